"""The measurements collection: schema, semantic and cross-collection checks, each broken fixture failing with one precise line."""

import datetime
import shutil
from pathlib import Path

import pytest

from atlas.data.checks.measurements import measurement_references
from atlas.data.dataset import CROSS_CHECKS, load_dataset
from atlas.data.errors import DataValidationError
from conftest import REPO_ROOT

FIXTURES = Path(__file__).parent / "fixtures" / "invalid_measurements"
CASES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
TODAY = datetime.date(2026, 12, 7)  # on or after the newest access date in data/


def data_with(tmp_path: Path, case: str | None = None, text: str | None = None) -> Path:
    """A data folder with the real devices plus one fixture case (or one measurement text) under measurements/test/."""
    data = tmp_path / "data"
    shutil.copytree(REPO_ROOT / "data" / "hardware", data / "hardware")
    target = data / "measurements" / "test"
    if case:
        shutil.copytree(FIXTURES / case, target, ignore=shutil.ignore_patterns("expect.txt"))
    if text:
        target.mkdir(parents=True, exist_ok=True)
        (target / "ok.yaml").write_text(text, encoding="utf-8")
    return data


def valid_text() -> str:
    """The fixtures differ from this valid measurement only in their defect."""
    return (FIXTURES / "above-peak" / "abovepeak.yaml").read_text(encoding="utf-8").replace("value: 1500", "value: 700.5").replace("id: abovepeak", "id: ok")


def test_shipped_measurements_are_valid(dataset):
    assert dataset.measurements, "data/measurements/ holds no measurement"
    for entry in dataset.measurements.values():
        assert entry["device"] is None or entry["device"] in dataset.devices


def test_valid_measurement_passes(tmp_path):
    ds = load_dataset(data_with(tmp_path, text=valid_text()), root=tmp_path, today=TODAY)
    assert ds.measurements["ok"]["result"] == {"value": 700.5, "unit": "tflops"}


def test_unmatched_device_is_allowed_without_peak(tmp_path):
    text = valid_text().replace("device: h100-sxm", "device: null").replace("value: 700.5", "value: 5000")
    ds = load_dataset(data_with(tmp_path, text=text), root=tmp_path, today=TODAY)
    assert ds.measurements["ok"]["device"] is None  # no device, so no peak to exceed


@pytest.mark.parametrize("case", CASES)
def test_broken_fixture_fails_with_expected_line(case, tmp_path):
    expected = (FIXTURES / case / "expect.txt").read_text(encoding="utf-8").strip()
    with pytest.raises(DataValidationError) as info:
        load_dataset(data_with(tmp_path, case), root=tmp_path, today=TODAY)
    errors = [str(e) for e in info.value.errors]
    assert expected in errors, "\n".join(errors)
    assert all("\n" not in e and e.startswith("data/measurements/test/") for e in errors)


def test_result_within_tolerance_of_peak_passes(tmp_path):
    text = valid_text().replace("value: 700.5", "value: 1030")  # 104 % of 989.4: within the 5 % allowance
    assert load_dataset(data_with(tmp_path, text=text), root=tmp_path, today=TODAY).measurements["ok"]


def test_measurement_references_are_a_cross_check():
    """The device check runs with atlas.data.dataset's other cross-collection checks, once every file is valid on its own."""
    assert measurement_references in CROSS_CHECKS


def test_cross_check_waits_for_valid_files(tmp_path):
    data = data_with(tmp_path, "unknown-device")
    (data / "measurements" / "test" / "broken.yaml").write_text("id: broken\n", encoding="utf-8")
    with pytest.raises(DataValidationError) as info:
        load_dataset(data, root=tmp_path, today=TODAY)
    messages = [str(e) for e in info.value.errors]
    assert any("broken.yaml" in m for m in messages)
    assert not any("h100-sxn" in m for m in messages)  # reported once the other file is fixed

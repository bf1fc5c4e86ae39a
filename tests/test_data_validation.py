"""The data set validates, and every broken fixture fails with a precise one-line message."""

import datetime
import shutil
from pathlib import Path

import pytest

from atlas.data.dataset import load_dataset
from atlas.data.errors import DataValidationError

FIXTURES = Path(__file__).parent / "fixtures" / "invalid_devices"
CASES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
TODAY = datetime.date(2026, 12, 6)  # on or after the newest access date in data/


def test_shipped_data_set_is_valid(dataset):
    assert "h100-sxm" in dataset.devices


def test_every_device_figure_names_a_source(dataset):
    for device in dataset.devices.values():
        blocks = [device["memory"], *device["compute"]] + [
            device[k] for k in ("power", "interconnect", "price") if k in device
        ]
        for block in blocks:
            assert block["source"] in device["sources"], device["id"]
            assert device["sources"][block["source"]]["url"].startswith("https://")


def run_case(case: str, tmp_path: Path) -> list[str]:
    data = tmp_path / "data"
    shutil.copytree(FIXTURES / case, data / "hardware" / "test", ignore=shutil.ignore_patterns("expect.txt"))
    with pytest.raises(DataValidationError) as info:
        load_dataset(data, root=tmp_path, today=TODAY)
    return [str(e) for e in info.value.errors]


@pytest.mark.parametrize("case", CASES)
def test_broken_fixture_fails_with_expected_line(case, tmp_path):
    expected = (FIXTURES / case / "expect.txt").read_text(encoding="utf-8").strip()
    errors = run_case(case, tmp_path)
    assert expected in errors, "\n".join(errors)


@pytest.mark.parametrize("case", CASES)
def test_each_error_is_one_line_naming_the_file(case, tmp_path):
    for line in run_case(case, tmp_path):
        assert "\n" not in line
        assert line.startswith("data/hardware/test/")


def test_valid_fixture_passes(tmp_path):
    """The fixtures differ from a valid device only in their defect."""
    src = (FIXTURES / "negative" / "neg.yaml").read_text().replace("-3350", "3350")
    (tmp_path / "data" / "hardware" / "test").mkdir(parents=True)
    (tmp_path / "data" / "hardware" / "test" / "neg.yaml").write_text(src)
    ds = load_dataset(tmp_path / "data", root=tmp_path, today=TODAY)
    assert ds.devices["neg"]["memory"]["bandwidth_gb_s"] == 3350


def test_future_access_date_is_refused(tmp_path):
    src = (FIXTURES / "negative" / "neg.yaml").read_text().replace("-3350", "3350").replace("2026-01-15", "2027-01-15")
    (tmp_path / "data" / "hardware" / "test").mkdir(parents=True)
    (tmp_path / "data" / "hardware" / "test" / "neg.yaml").write_text(src)
    with pytest.raises(DataValidationError, match="sources.sheet.accessed': 2027-01-15 is not a past date"):
        load_dataset(tmp_path / "data", root=tmp_path, today=TODAY)


def test_validate_command_exit_codes(tmp_path):
    import subprocess
    import sys

    from conftest import REPO_ROOT

    ok = subprocess.run([sys.executable, "-m", "atlas.data", "validate"], cwd=REPO_ROOT, capture_output=True, text=True)
    assert ok.returncode == 0 and "Data set OK" in ok.stdout
    shutil.copytree(FIXTURES / "negative", tmp_path / "hardware" / "test", ignore=shutil.ignore_patterns("expect.txt"))
    bad = subprocess.run(
        [sys.executable, "-m", "atlas.data", "validate", "--data", str(tmp_path)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1
    assert "field 'memory.bandwidth_gb_s': must be greater than 0" in bad.stderr

"""The data set validates, and every broken fixture fails with a precise one-line message."""

import datetime
import shutil
from pathlib import Path

import pytest

from atlas.data.dataset import load_dataset
from atlas.data.errors import DataValidationError

FIXTURES = Path(__file__).parent / "fixtures" / "invalid_devices"
CASES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
TODAY = datetime.date(2026, 12, 7)  # on or after the newest access date in data/


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


# --- accelerators without memory of their own (memory.type "none") --------------------------------------------------

def test_hailo_8_and_8l_are_filed_without_memory(dataset):
    for device_id, tops in (("hailo-8", 26), ("hailo-8l", 13)):
        device = dataset.devices[device_id]
        assert (device["memory"]["type"], device["memory"]["capacity_gib"], device["memory"]["bandwidth_gb_s"]) == (
            "none", None, None)
        assert [(e["precision"], e["sparsity"], e["tflops"], e["origin"]) for e in device["compute"]] == [
            ("int8", "dense", tops, "estimate")]
        assert "power" not in device


def test_a_device_without_memory_shows_a_dash_in_the_tables(dataset):
    from atlas.data.tables import cell

    for lang, dash in (("en", "—"), ("de", "—")):
        for column in ("memory", "bandwidth"):
            shown = cell(dataset.devices["hailo-8"], column, lang)
            assert f">{dash}</td>" in shown and "None" not in shown


def test_hailo_10h_is_filed_with_its_own_memory(dataset):
    ten = dataset.devices["hailo-10h"]
    assert (ten["memory"]["type"], ten["memory"]["capacity_gib"], ten["memory"]["origin"]) == ("LPDDR4X", 8, "estimate")
    assert ten["memory"]["bandwidth_gb_s"] == pytest.approx(4267 * 32 / 8 / 1000, rel=1e-3)
    assert sorted(c["capacity_gib"] for c in ten["memory"]["configurations"]) == [4, 8]
    assert {(e["precision"], e["sparsity"], e["tflops"]) for e in ten["compute"]} == {("int4", "dense", 40),
                                                                                     ("int8", "dense", 20)}
    assert "power" not in ten


NO_MEMORY_ID = "hailo-8"


def no_memory_catalog():
    """The data set's catalogue with a device without memory of its own (the Hailo-8, as filed or, where the data
    set does not hold it yet, its figures: 26 TOPS INT8, memory type "none")."""
    from atlas.core.calculators.catalog import Catalog
    from calculators_support import catalog

    cat = catalog()
    if NO_MEMORY_ID in cat.devices:
        return cat
    device = {"id": NO_MEMORY_ID, "name": "Hailo-8 AI Accelerator", "short_name": "Hailo-8", "vendor": "Hailo",
              "kind": "npu", "segment": "edge",
              "memory": {"capacity_gib": None, "type": "none", "bandwidth_gb_s": None, "source": "s", "note": "n"},
              "compute": [{"precision": "int8", "unit": "matrix", "sparsity": "dense", "tflops": 26, "source": "s"}]}
    return Catalog(devices={**cat.devices, NO_MEMORY_ID: device}, models=cat.models, prices=cat.prices)


@pytest.mark.parametrize("lang, words", [("en", "has no memory of its own"), ("de", "hat keinen eigenen Speicher")])
@pytest.mark.parametrize("command, role", [("vram", "device"), ("speed", "device"), ("speed", "baseline")])
def test_calculators_refuse_a_device_without_memory(command, role, lang, words):
    import re

    from atlas.core.calculators.api import handle

    params = {"model": "llama-3.1-8b", "device": "h100-sxm", role: NO_MEMORY_ID}
    answer = handle({"command": command, "lang": lang, "params": params}, no_memory_catalog())
    assert answer["ok"] is False
    [refusal] = answer["errors"]
    assert refusal["key"] == "error.device_without_memory"
    assert refusal["field"] == role  # shown at the field that chose it
    assert refusal["message"].startswith(f"Hailo-8 {words}")
    assert not re.search(r"\b(?:None|nan|NaN|inf)\b|Traceback|\{device\}", refusal["message"])


def test_a_device_without_memory_is_left_out_of_the_pickers():
    from atlas.core.calculators import devices as dev
    from atlas.core.calculators.inputs import BY_NAME
    from atlas.core.calcview.form import choices

    cat = no_memory_catalog()
    offered = choices(BY_NAME["device"], cat)
    assert "hailo-10h" in offered and "hailo-10h@4" in offered and "h100-sxm" in offered
    assert NO_MEMORY_ID not in offered
    assert dev.choices(NO_MEMORY_ID, cat.devices[NO_MEMORY_ID]) == []
    # lists of every device (which devices hold a model) count it as holding nothing, never a crash
    assert dev.capacity_bytes(cat.devices[NO_MEMORY_ID]) == 0.0
    assert dev.capacity_bytes(cat.devices["hailo-10h"]) == 8 * 2**30

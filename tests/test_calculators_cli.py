"""The command line, and the package running on the standard library alone."""

import json
import shutil
import subprocess
import sys

from atlas.data.export import export_json
from conftest import REPO_ROOT, shared_dataset


def run(*args, cwd=REPO_ROOT, python=(sys.executable,)):
    return subprocess.run([*python, "-m", "atlas", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_vram_json_answers_the_issue_example():
    out = run("vram", "--model", "llama-3.1-70b", "--weights", "q4_k_m", "--kv-cache", "fp16", "--context", "8192",
              "--batch", "1", "--mode", "inference", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["total_gib"] == sum(result["breakdown"].values())
    assert {f["device"] for f in result["fits"] if f["count"] == 1} >= {"h100-sxm", "a100-sxm-80gb"}


def test_speed_table_in_german():
    out = run("speed", "--model", "llama-3.1-8b", "--weights", "bf16", "--workload", "decode", "--device", "h100-sxm",
              "--baseline", "a100-sxm-80gb", "--lang", "de")
    assert out.returncode == 0, out.stderr
    assert "speichergebunden" in out.stdout and "× schneller als A100 SXM 80GB." in out.stdout
    assert "1,64-Fache der Speicherbandbreite" in out.stdout  # the reason gives the bandwidth ratio, German commas


def test_unknown_name_is_one_line_with_close_matches_and_exit_2():
    out = run("vram", "--model", "lama-3.1-8b")
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "llama-3.1-8b" in lines[0] and "Traceback" not in out.stderr
    out = run("speed", "--model", "llama-3.1-8b", "--device", "h100-sxm", "--weights", "q4km")
    assert out.returncode == 2 and "q4_k_m" in out.stderr


def test_an_option_of_another_command_is_refused_not_read_as_a_longer_one(capsys):
    """argparse took "--mode" on speed (which has no --mode) for an abbreviation of --model: "qlora" became the
    model and the answer an unknown-model error. Options are only ever read in full."""
    import pytest

    from atlas.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["speed", "--model", "llama-3.1-8b", "--workload", "training", "--mode", "qlora"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "unrecognized arguments: --mode qlora" in err and "Model" not in err
    with pytest.raises(SystemExit):
        main(["vram", "--model", "llama-3.1-8b", "--dev", "rtx-4090"])  # --device, abbreviated
    assert "unrecognized arguments: --dev" in capsys.readouterr().err
    assert main(["vram", "--model", "llama-3.1-8b", "--mode", "qlora", "--device", "rtx-4090", "--json"]) == 0


def test_export_data_writes_the_catalog(tmp_path):
    target = tmp_path / "atlas-data.json"
    out = run("export-data", str(target))
    assert out.returncode == 0, out.stderr
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["schema_version"] == 1 and "h100-sxm" in data["devices"] and "llama-3.1-8b" in data["models"]


def test_runs_on_the_standard_library_alone(tmp_path):
    """Only the core, the command line and an export file, no site-packages (-S), no environment (-E), no user
    site (-s): the data layer (atlas/data/) is left out, so the command line cannot have needed it."""
    for folder in ("atlas/core", "atlas/cli"):
        shutil.copytree(REPO_ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("__init__.py", "__main__.py"):
        shutil.copy(REPO_ROOT / "atlas" / name, tmp_path / "atlas" / name)
    (tmp_path / "atlas-data.json").write_text(export_json(shared_dataset()), encoding="utf-8")
    python = (sys.executable, "-S", "-E", "-s")
    out = run("vram", "--model", "mixtral-8x7b", "--weights", "q4_k_m", "--json", "--data-json", "atlas-data.json",
              cwd=tmp_path, python=python)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["model"] == "mixtral-8x7b"
    probe = (
        "import sys, json, atlas.core.calculators.api, atlas.cli\n"
        "from atlas.core.calculators.catalog import Catalog\n"
        "cat = Catalog.from_json(open('atlas-data.json', encoding='utf-8').read())\n"
        "r = atlas.core.calculators.api.handle({'command': 'speed', 'params': {'model': 'llama-3.1-8b', 'device': 'h100-sxm'}}, cat)\n"
        "assert r['ok'], r\n"
        "third = sorted(m if m.startswith('atlas.data') else m.split('.')[0] for m in sys.modules\n"
        "               if m.split('.')[0] not in sys.stdlib_module_names)\n"
        "print(json.dumps(sorted(set(third))))\n"
    )
    out = subprocess.run([*python, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert set(json.loads(out.stdout)) <= {"atlas", "__main__"}

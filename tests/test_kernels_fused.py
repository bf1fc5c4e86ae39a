"""The fused-vs-unfused demo's two operations, softmax and layer norm: the pass
counts of atlas/demos/fused_common.py (against its own step tables, the CUDA C
file and known values), the float64 references, the NumPy demo end to end,
recording, the measurements table and the built page. The heavy backends
run layer norm in test_kernels_backends.py."""

import json
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from atlas.demos import fused_common, harness, record
from conftest import REPO_ROOT

STEP_TOTAL = re.compile(r"(\d+) reads \+ (\d+) writes = (\d+) passes")


def step_table(op: str) -> tuple[int, int, int]:
    """(reads, writes, passes) counted from the step lines of ``op``'s table in fused_common's docstring,
    after checking they agree with the table's own total line."""
    section = fused_common.__doc__.split(f"``--op {op}``", 1)[1]
    total = STEP_TOTAL.search(section)
    steps = section[: total.start()]
    reads, writes = len(re.findall(r"\bread\b", steps)), len(re.findall(r"\bwrite\b", steps))
    assert (reads, writes, reads + writes) == tuple(int(g) for g in total.groups()), op
    return reads, writes, reads + writes


def run_demo(*args):
    return subprocess.run([sys.executable, *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)


# --- pass counts --------------------------------------------------------------------------------


def test_pass_counts_are_the_known_values():
    # softmax: max, subtract, exp, sum, divide; layer norm: mean, subtract, mean of squares, normalize, scale, shift.
    assert fused_common.PASSES == {"softmax": {"unfused": 8, "fused": 2}, "layernorm": {"unfused": 10, "fused": 2}}
    assert fused_common.OPS == ("softmax", "layernorm")


@pytest.mark.parametrize("op, reads, writes", [("softmax", 5, 3), ("layernorm", 6, 4)])
def test_docstring_step_tables_give_the_counts(op, reads, writes):
    assert step_table(op) == (reads, writes, fused_common.PASSES[op]["unfused"])


def test_traffic_and_details_per_op():
    matrix = 1024 * 4096 * 4
    assert fused_common.traffic(1024, 4096) == {"unfused_bytes": 8 * matrix, "fused_bytes": 2 * matrix}
    assert fused_common.traffic(1024, 4096, op="layernorm") == {"unfused_bytes": 10 * matrix, "fused_bytes": 2 * matrix}
    info = fused_common.details(1024, 4096, unfused_s=0.01, fused_s=0.004, op="layernorm")
    assert info["traffic_saved_percent"] == 80.0 and fused_common.saved_percent("softmax") == 75.0
    assert info["unfused_gb_s"] == pytest.approx(10 * matrix / 0.01 / 1e9)  # 16.8 GB/s
    assert info["fused_gb_s"] == pytest.approx(2 * matrix / 0.004 / 1e9)  # 8.39 GB/s
    assert info["speedup"] == pytest.approx(2.5)
    with pytest.raises(KeyError):
        fused_common.traffic(8, 8, op="gelu")


def test_cuda_file_counts_the_same_passes():
    """C cannot import fused_common: its table of passes must say the same."""
    source = (REPO_ROOT / "atlas" / "demos" / "fused_cuda.cu").read_text(encoding="utf-8")
    table = re.search(r"constexpr Op OPS\[\] = \{(.*)\};", source).group(1)
    found = {name: {"unfused": int(u), "fused": int(f)} for name, u, f in re.findall(r'\{"(\w+)", (\d+), (\d+)\}', table)}
    assert found == fused_common.PASSES


# --- references ---------------------------------------------------------------------------------


def test_layernorm_reference_by_hand():
    x = np.array([[1.0, 2.0, 3.0, 4.0], [3.0, 3.0, 3.0, 3.0]])
    y = fused_common.layernorm_reference(x, np.ones(4), np.zeros(4))
    # Row 1: mean 2.5, biased variance (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25.
    assert y[0] == pytest.approx(np.array([-1.5, -0.5, 0.5, 1.5]) / np.sqrt(1.25 + 1e-5), rel=1e-12)
    assert y[1] == pytest.approx([0, 0, 0, 0])  # a constant row: eps keeps 0 / 0 away
    scaled = fused_common.layernorm_reference(x, np.full(4, 2.0), np.array([1.0, 0.0, -1.0, 0.5]))
    assert scaled[0] == pytest.approx(2 * y[0] + [1.0, 0.0, -1.0, 0.5], rel=1e-12)
    assert scaled[1] == pytest.approx([1.0, 0.0, -1.0, 0.5])  # = beta


def test_expected_picks_the_operation():
    x = np.random.default_rng(3).standard_normal((5, 7)).astype(np.float32)
    assert fused_common.expected("softmax", x).sum(axis=1) == pytest.approx(np.ones(5))
    gamma, beta = fused_common.affine(7)
    assert gamma.dtype == np.float32 and gamma.shape == beta.shape == (7,)
    assert np.array_equal(fused_common.affine(7)[0], gamma)  # the same values in every backend
    assert np.allclose(fused_common.expected("layernorm", x), fused_common.layernorm_reference(x, gamma, beta))


# --- the NumPy demo -----------------------------------------------------------------------------


@pytest.mark.parametrize("op, passes, saved", [("softmax", 8, 75.0), ("layernorm", 10, 80.0)])
def test_numpy_demo_runs_each_op(op, passes, saved, run_demo_here):
    # 517 rows: the last block of rows is a partial one.
    done = run_demo_here("fused_numpy", "--op", op, "--rows", "517", "--cols", "300", "--repeat", "2", "--json", "--device", "h100-sxm")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["params"] == {"op": op, "rows": 517, "cols": 300, "dtype": "fp32"}
    assert out["check"]["passed"] and out["check"]["relative_error"] < 1e-6
    details = out["details"]
    assert details["unfused_bytes"] == passes * 517 * 300 * 4 and details["fused_bytes"] == 2 * 517 * 300 * 4
    assert details["traffic_saved_percent"] == saved
    assert out["achieved"]["value"] == pytest.approx(details["fused_gb_s"])


def test_numpy_default_op_is_softmax(run_demo_here):
    done = run_demo_here("fused_numpy", "--rows", "16", "--cols", "16", "--repeat", "1", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["params"]["op"] == "softmax"


def test_numpy_layernorm_blocks_match_the_whole_matrix():
    from atlas.demos import fused_numpy

    x = np.random.default_rng(5).standard_normal((37, 64), dtype=np.float32)
    steps = fused_numpy.unfused_steps("layernorm", 64)
    whole, blocks, t = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    steps(x, t, whole)
    fused_numpy.blocked(steps, x, blocks, block_rows=8)
    expected = fused_common.expected("layernorm", x)
    assert harness.relative_error(whole, expected) < 1e-6 and harness.relative_error(blocks, expected) < 1e-6


def test_bad_op_is_refused_by_argparse():
    done = run_demo("atlas/demos/fused_numpy.py", "--op", "gelu", "--rows", "8", "--cols", "8")
    assert done.returncode == 2
    assert "argument --op: invalid choice: 'gelu'" in done.stderr and "Traceback" not in done.stderr


# --- recording and the GPU script ---------------------------------------------------------------


def fused_result(dataset, op):
    return harness.build_result(
        demo="fused",
        backend="torch",
        device_name="NVIDIA H200",
        platform_name="cuda",
        params={"op": op, "rows": 32768, "cols": 8192, "dtype": "fp32"},
        achieved=4321.0,
        unit="gb_s",
        check_result=harness.check(8e-8, 1e-5),
        software={"python": "3.11.7", "torch": "2.13.0"},
        command_line=f"python -m atlas.demos.fused_torch --op {op} --rows 32768 --cols 8192 --json",
        details=fused_common.details(32768, 8192, 0.02, 0.0005, op=op),
        devices_by_id=dataset.devices,
    )


def test_record_keeps_layernorm_apart_and_valid(dataset, tmp_path):
    from atlas.data.dataset import load_dataset

    softmax, layernorm = (record.measurement(fused_result(dataset, op)) for op in ("softmax", "layernorm"))
    assert softmax["id"].startswith("h200-sxm-fused-torch-softmax-32768-8192-fp32-")
    assert layernorm["id"].startswith("h200-sxm-fused-torch-layernorm-32768-8192-fp32-")
    data = tmp_path / "data"
    shutil.copytree(REPO_ROOT / "data" / "hardware", data / "hardware")
    for entry in (softmax, layernorm):
        record.write(entry, data / "measurements")
    loaded = load_dataset(data, root=tmp_path).measurements
    assert loaded[layernorm["id"]]["params"]["op"] == "layernorm"
    assert loaded[layernorm["id"]]["details"]["unfused_bytes"] == 10 * 32768 * 8192 * 4
    assert loaded[softmax["id"]]["details"]["traffic_saved_percent"] == 75.0


def test_schema_refuses_an_unknown_op(dataset, tmp_path):
    from atlas.data.dataset import load_dataset
    from atlas.data.errors import DataValidationError

    entry = record.measurement(fused_result(dataset, "layernorm"))
    entry["params"]["op"] = "rmsnorm"
    data = tmp_path / "data"
    shutil.copytree(REPO_ROOT / "data" / "hardware", data / "hardware")
    record.write(entry, data / "measurements")
    with pytest.raises(DataValidationError, match="field 'params.op': must be one of softmax, layernorm"):
        load_dataset(data, root=tmp_path)


def test_gpu_script_runs_layernorm_on_every_gpu_backend():
    text = (REPO_ROOT / "atlas" / "demos" / "run_all_gpu.sh").read_text(encoding="utf-8")
    assert "for op in softmax layernorm; do" in text
    assert 'run "fused-$op-$backend" "$PY" -m atlas.demos.fused_$backend --op $op ' in text
    assert 'run "fused-$op-cuda" "$PY" -m atlas.demos run fused cuda -- --op $op ' in text
    assert "for backend in torch triton jax; do" in text


# --- the built page -----------------------------------------------------------------------------


def fused_page(site, lang):
    base = site / "de" if lang == "de" else site
    return (base / "kernels" / "fused" / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "lang, heading, total, saved",
    [
        ("en", "Layer norm", "10 passes</strong> (6 reads, 4 writes)", "1 − 2/10 = 80 %"),
        ("de", "Layer-Norm", "10 Durchgänge</strong> (6 Lese-, 4 Schreibvorgänge)", "1 − 2/10 = 80\u202f%"),
    ],
)
def test_page_explains_layer_norm(built_site, lang, heading, total, saved):
    text = fused_page(built_site, lang)
    assert re.search(rf"<h2[^>]*>{heading}", text) and total in text and saved in text
    # the step table lists the six steps of fused_common's docstring
    for step in ("mu = rowmean(x)", "v = rowmean(t · t)", "t = t · rsqrt(v + ε)", "y = t + β"):
        assert step in text, step
    # every backend tab shows the layer-norm command next to the softmax one
    commands = re.findall(r"--op layernorm --rows (?:32768 --cols 8192|8192 --cols 4096)", re.sub(r"<[^>]+>", "", text))
    assert len(commands) >= 5


@pytest.mark.parametrize("lang", ["en", "de"])
def test_page_has_one_measurement_table_per_op(built_site, dataset, lang):
    text = fused_page(built_site, lang)
    for op, heading in (("softmax", "Softmax"), ("layernorm", "Layer norm" if lang == "en" else "Layer-Norm")):
        section = re.search(rf"<h3[^>]*>{heading}.*?(?=<h[23])", text, re.S).group(0)
        ids = sorted(m["id"] for m in dataset.measurements.values() if m["demo"] == "fused" and m["params"]["op"] == op)
        if ids:
            assert f'data-op="{op}"' in section
            assert sorted(re.findall(r'data-measurement="([^"]+)"', section)) == ids
            assert f"--op {op} " in section
        else:
            assert 'data-result="no_measurements"' in section

"""The kernel demos' shared parts with real values: device matching, peaks,
the roofline and systolic-array models, the NumPy demos end to end, and the
record step. No heavy backend here (see test_kernels_backends.py)."""

import json
import math
import random
import shutil
import subprocess
import sys

import pytest

from atlas.core import l10n
from atlas.core.calculators import demo_peaks
from atlas.core.kernels import roofline, systolic
from atlas.demos import (
    BACKENDS,
    DEMOS,
    demo_file,
    devices,
    fused_common,
    harness,
    intensity_common,
    record,
)
from conftest import REPO_ROOT, shared_dataset


def run_demo(*args, env=None):
    return subprocess.run([sys.executable, *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, env=env)


# --- device matching and peaks ---------------------------------------------------------------

@pytest.mark.parametrize(
    "reported, expected",
    [
        ("NVIDIA H100 80GB HBM3", "h100-sxm"),
        ("NVIDIA H100 PCIe", "h100-pcie"),
        ("NVIDIA H200", "h200-sxm"),
        ("nvidia  h200", "h200-sxm"),  # case and repeated spaces do not matter
        ("NVIDIA A100-SXM4-80GB", "a100-sxm-80gb"),
        ("NVIDIA GeForce RTX 4090", "rtx-4090"),
        ("Tesla V100-SXM2-32GB", "v100-sxm2-32gb"),
        ("TPU v5 lite", "tpu-v5e"),
        ("TPU v5", "tpu-v5p"),
        ("TPU v6 lite", "tpu-v6e"),
        ("TPU7x", "tpu-v7"),
        ("AMD Instinct MI300X", "mi300x"),
        ("AMD Instinct MI300X VF", "mi300x"),
        ("AMD EPYC 9654 96-Core Processor", "epyc-9654"),
        ("NVIDIA H100 NVL", "h100-nvl"),  # a different product with its own entry: never the SXM figures
        ("NVIDIA H200 NVL", "h200-nvl"),  # its own entry, never the SXM module's
        ("NVIDIA A100 80GB PCIe", "a100-pcie-80gb"),
        ("NVIDIA GeForce RTX 4070 Ti SUPER", "rtx-4070-ti-super"),
        ("NVIDIA A10", "a10"),  # not the A100s: a name must match in full
        ("NVIDIA GeForce RTX 3080", "rtx-3080"),  # the 12 GB card reports the same name; the 10 GB entry holds it
        ("AMD EPYC", None),
        ("H200", None),  # a prefix of a listed name is not a match
    ],
)
def test_reported_names_match_the_right_device(dataset, reported, expected):
    assert devices.match_name(reported, dataset.devices) == expected


def test_a_name_matches_only_devices_that_are_passed():
    assert devices.match_name("NVIDIA H200", {"h100-sxm": {"runtime_names": ["NVIDIA H100 80GB HBM3"]}}) is None
    assert devices.match_name("NVIDIA H200", {"x": {}}) is None  # runtime_names is optional


# GPUs without a runtime name of their own: the RTX 3080 12 GB reports the 10 GB card's name (a name
# belongs to one device), and the name CUDA reports for the GB300 was not found in a stored source.
NO_RUNTIME_NAME = {"rtx-3080-12gb", "gb300", "jetson-agx-orin-64gb", "jetson-orin-nano-super",
                   "jetson-orin-nx-16gb"}  # Orin modules all report "Orin"


def test_every_gpu_and_tpu_in_the_data_set_can_be_detected(dataset):
    """A device the demos can run on but not recognise would show no peak; FPGAs and ASICs without a
    supported runtime are exempt, and so are the GPUs listed in NO_RUNTIME_NAME (their notes say why)."""
    for device_id, device in dataset.devices.items():
        if device["kind"] in ("gpu", "tpu") and device_id not in NO_RUNTIME_NAME:
            assert device.get("runtime_names"), device_id
            assert all(devices.match_name(name, dataset.devices) == device_id for name in device["runtime_names"])


def test_override_must_exist(dataset):
    assert devices.resolve_device("anything", dataset.devices, "h100-sxm") == ("h100-sxm", "override")
    with pytest.raises(devices.UnknownDevice, match="did you mean h100-sxm"):
        devices.resolve_device("anything", dataset.devices, "h100-smx")


@pytest.mark.parametrize(
    "device_id, demo, precision, field, value",
    [
        ("h100-sxm", "bandwidth", None, "bandwidth", 3350),
        ("h100-sxm", "fused", None, "bandwidth", 3350),
        # NVIDIA states no FP32 matrix figure: plain FP32 runs on the CUDA cores (vector unit).
        ("h100-sxm", "matmul", "fp32", "fp32.vector.dense", 66.9),
        ("h100-sxm", "matmul", "tf32", "tf32.matrix.dense", 494.7),
        ("h100-sxm", "matmul", "bf16", "bf16.matrix.dense", 989.4),  # dense, never the 1,978.9 sparse figure
        ("h100-sxm", "matmul", "fp8", "fp8.matrix.dense", 1978.9),
        ("h100-sxm", "intensity", "fp32", "fp32.vector.dense", 66.9),
        ("a100-sxm-80gb", "matmul", "bf16", "bf16.matrix.dense", 312),
    ],
)
def test_peak_is_the_dense_figure_on_the_right_unit(dataset, device_id, demo, precision, field, value):
    found = demo_peaks.peak(dataset.device(device_id), demo, precision)
    assert (found["field"], found["value"], found["from_sparse"]) == (field, value, None)
    assert found["source"].startswith("https://")


def test_h200_dense_peak_is_half_its_only_published_sparse_figure(dataset):
    """NVIDIA's H200 datasheet states tensor figures with sparsity only; the estimators' lookup halves them."""
    found = demo_peaks.peak(dataset.device("h200-sxm"), "matmul", "bf16")
    assert found["from_sparse"] == 1979 and found["value"] == pytest.approx(989.5)
    assert found["field"] == "bf16.matrix.dense"


def test_fp32_matrix_figure_is_used_where_stated_but_never_for_the_fma_chain(dataset):
    mi300x = dataset.device("mi300x")
    assert demo_peaks.peak(mi300x, "matmul", "fp32")["field"] == "fp32.matrix.dense"
    assert demo_peaks.peak(mi300x, "intensity", "fp32")["field"] == "fp32.vector.dense"


def test_missing_precision_falls_back_and_says_so(dataset):
    found = demo_peaks.peak(dataset.device("a100-sxm-80gb"), "matmul", "fp8")  # A100 has no FP8
    assert found["field"] == "bf16.matrix.dense" and found["requested"] == "fp8"


def test_unknown_precision_or_demo():
    with pytest.raises(ValueError, match="unknown precision"):
        demo_peaks.peak({}, "matmul", "fp7")
    with pytest.raises(ValueError, match="unknown demo"):
        demo_peaks.peak({}, "gemm", "bf16")


def test_percent_of_peak():
    assert demo_peaks.percent_of(742.05, 989.4) == pytest.approx(75.0)
    with pytest.raises(ValueError):
        demo_peaks.percent_of(1, 0)


# --- result objects ---------------------------------------------------------------------------


def result(dataset, name="NVIDIA H100 80GB HBM3", achieved=742.05, demo="matmul", params=None, details=None, check=None, override=None):
    return harness.build_result(
        demo=demo,
        backend="torch",
        device_name=name,
        platform_name="cuda",
        params=params or {"precision": "bf16", "size": 8192},
        achieved=achieved,
        unit="tflops",
        check_result=check or harness.check(1e-3, 1.5e-2),
        software={"python": "3.11"},
        command_line="python -m atlas.demos.matmul_torch",
        details=details,
        override=override,
        devices_by_id=dataset.devices,
    )


def test_result_matches_device_and_computes_percentage(dataset):
    r = result(dataset)
    assert r["device"] == {"name": "NVIDIA H100 80GB HBM3", "platform": "cuda", "id": "h100-sxm", "matched_by": "detected"}
    assert r["peak"]["value"] == 989.4 and r["peak"]["field"] == "bf16.matrix.dense"
    assert r["percent_of_peak"] == pytest.approx(75.0)
    assert "achieved 742 TFLOP/s of 989 TFLOP/s peak (75.0 %)" in harness.text_report(r)
    json.dumps(r, allow_nan=False)


def test_unmatched_device_gives_the_achieved_figure_alone(dataset):
    r = result(dataset, name="Some Future GPU")
    assert r["device"]["id"] is None and r["peak"] is None and r["percent_of_peak"] is None
    assert any("no device in the data set matches 'Some Future GPU'" in n for n in r["notes"])


def test_missing_precision_on_the_device_is_a_note(dataset):
    r = result(dataset, name="NVIDIA A100-SXM4-80GB", params={"precision": "fp8", "size": 8192}, achieved=300)
    assert r["peak"]["field"] == "bf16.matrix.dense"
    assert "a100-sxm-80gb states no fp8 figure; compared with bf16.matrix.dense instead" in r["notes"]


def test_sparse_only_vendor_figure_is_a_note(dataset):
    r = result(dataset, name="NVIDIA H200")
    assert r["device"]["id"] == "h200-sxm" and r["percent_of_peak"] == pytest.approx(100 * 742.05 / 989.5)
    assert "the vendor states only a sparse bf16 figure (1979); the dense peak is half of it" in r["notes"]


def test_failed_check_is_reported(dataset):
    r = result(dataset, check=harness.check(math.nan, 1e-4))
    assert r["check"] == {"passed": False, "relative_error": None, "tolerance": 1e-4}
    assert "WRONG" in harness.text_report(r)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -1.0])
def test_non_finite_achieved_is_refused(dataset, bad):
    with pytest.raises(ValueError):
        result(dataset, achieved=bad)


def test_sweep_points_get_the_roofline(dataset):
    points = [intensity_common.point(f, 1_000_000, 1e-3) for f in (1, 4096)]
    r = result(dataset, demo="intensity", params={"precision": "fp32", "size": 1_000_000, "fmas": [1, 4096]}, details={"points": points})
    low, high = r["details"]["points"]
    # FP32 vector 66.9 TFLOP/s and 3,350 GB/s: at 0.25 FLOP/byte the memory roof is 0.8375 TFLOP/s.
    assert low["attainable_tflops"] == pytest.approx(0.25 * 3350 / 1000)
    assert high["attainable_tflops"] == 66.9


# --- roofline --------------------------------------------------------------------------------


def test_h100_ridge_point():
    # 989.4 TFLOP/s / 3,350 GB/s = 295.3 FLOP/byte (the ridge the JAX scaling book quotes as ~295 for H100).
    assert roofline.critical_intensity(989.4, 3350) == pytest.approx(295.34, abs=0.01)
    assert roofline.explore(989.4, 3350, 1)["ridge_flop_per_byte"] == pytest.approx(295.34, abs=0.01)


def test_attainable_below_and_above_the_ridge():
    assert roofline.attainable_tflops(989.4, 3350, 1) == pytest.approx(3.35)
    assert roofline.attainable_tflops(989.4, 3350, 1000) == 989.4
    result = roofline.explore(989.4, 3350, 2)
    assert result["bound"] == "memory" and result["percent_of_peak"] == pytest.approx(100 * 6.7 / 989.4)
    assert roofline.explore(989.4, 3350, 300)["bound"] == "compute"


def test_workload_intensities():
    assert roofline.triad_intensity(4) == pytest.approx(1 / 6)
    assert roofline.decode_intensity(2, 1) == 1
    assert roofline.decode_intensity(2, 64) == 64


@pytest.mark.parametrize(
    "value, key",
    [("abc", "kernels.error.not_a_number"), ("nan", "kernels.error.not_finite"), (-1, "kernels.error.not_positive"), (0, "kernels.error.not_positive"), (1e300, "kernels.error.too_large")],
)
def test_bad_roofline_input_has_a_translated_message(value, key):
    with pytest.raises(roofline.InputError) as info:
        roofline.explore(value, 3350, 10)
    assert info.value.key == key and info.value.field == "peak_tflops"
    for lang in l10n.LANGUAGES:
        message = l10n.t(lang, info.value.key, **info.value.params)
        assert "NaN" not in message and "Traceback" not in message


def test_log_intensities():
    assert roofline.log_intensities(0.25, 4) == [0.25, 0.5, 1, 2, 4]


# --- systolic array --------------------------------------------------------------------------


@pytest.mark.parametrize("m, k, n, size", [(1, 1, 1, 1), (5, 7, 3, 4), (9, 4, 4, 4), (3, 10, 9, 3), (16, 8, 8, 8)])
def test_simulation_computes_the_product_in_the_predicted_cycles(m, k, n, size):
    rng = random.Random(m * 1000 + k * 100 + n)
    x = [[rng.uniform(-1, 1) for _ in range(k)] for _ in range(m)]
    w = [[rng.uniform(-1, 1) for _ in range(n)] for _ in range(k)]
    run = systolic.simulate(x, w, size)
    expected = systolic.matmul(x, w)
    for got_row, want_row in zip(run["y"], expected, strict=True):
        assert got_row == pytest.approx(want_row, abs=1e-12)
    assert run["cycles"] == systolic.cycles(m, k, n, size)
    assert run["busy"] == m * k * n


def test_known_cycle_counts():
    # One 128 x 128 tile: 128 load + 128 rows + 2*128 - 2 = 510 cycles, utilisation 128^3 / (128^2 * 510).
    assert systolic.cycles(128, 128, 128, 128) == 510
    assert systolic.utilisation(128, 128, 128, 128) == pytest.approx(128 / 510)
    # 1024^3 on 128 x 128: 64 tiles of 128 + 1024 + 254 = 1406 cycles.
    assert systolic.cycles(1024, 1024, 1024, 128) == 64 * 1406
    assert systolic.utilisation(8, 8, 8, 128) < 0.001 < systolic.utilisation(4096, 4096, 4096, 128)


def test_trace_shows_the_wave():
    run = systolic.simulate([[1.0, 2.0], [3.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]], 2, trace=True)
    first, second = run["frames"][0], run["frames"][1]
    assert first["active"] == [[0, None], [None, None]]  # row 0 of X enters the top-left cell first
    assert second["active"] == [[1, 0], [0, None]]
    assert run["y"] == [[1.0, 2.0], [3.0, 4.0]]


@pytest.mark.parametrize("value, key", [("x", "kernels.error.not_a_number"), (2.5, "kernels.error.not_whole"), (0, "kernels.error.too_small"), (10**7, "kernels.error.too_large")])
def test_bad_systolic_input(value, key):
    with pytest.raises(systolic.InputError) as info:
        systolic.summary(value, 8, 8, 4)
    assert info.value.key == key
    assert l10n.t("de", key, **info.value.params)


def test_in_page_modules_need_only_the_standard_library(tmp_path):
    code = (
        "import sys; sys.path.insert(0, '.'); from atlas.core.kernels import roofline, systolic; "  # -I -S: only the checkout
        "third = sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'yaml', 'jsonschema', 'torch', 'jax') or m.startswith('atlas.data')); "
        "print(third, roofline.critical_intensity(989.4, 3350) > 295, systolic.cycles(4, 4, 4, 4))"
    )
    done = subprocess.run([sys.executable, "-I", "-S", "-c", code], cwd=REPO_ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[] True 14"


# --- shared counts ------------------------------------------------------------------------------


def test_softmax_traffic_and_fma_intensity():
    assert fused_common.traffic(1024, 1024) == {"unfused_bytes": 8 * 4 * 1024 * 1024, "fused_bytes": 2 * 4 * 1024 * 1024}
    assert intensity_common.intensity(4) == 1.0
    assert intensity_common.fma_list("1,4,16") == [1, 4, 16]


def test_demo_files_exist_for_every_demo_and_backend():
    for demo in DEMOS:
        for backend in BACKENDS:
            assert demo_file(demo, backend).is_file(), demo_file(demo, backend)


# --- the NumPy demos, end to end (numpy is a site requirement) -----------------------------------

NUMPY_RUNS = [
    ("bandwidth", ["--kernel", "triad", "--size", "2000000"], "gb_s"),
    ("bandwidth", ["--kernel", "copy", "--size", "2000000"], "gb_s"),
    ("matmul", ["--precision", "fp32", "--size", "256"], "tflops"),
    ("matmul", ["--precision", "fp64", "--size", "128"], "tflops"),
    ("intensity", ["--size", "200000", "--fmas", "1,8,64"], "tflops"),
    ("fused", ["--rows", "512", "--cols", "300"], "gb_s"),
]

# Percentage of peak may exceed 100 only by this much (boost clocks, rounding); more means a counting bug.
PEAK_TOLERANCE_PERCENT = 5


@pytest.mark.parametrize("demo, options, unit", NUMPY_RUNS, ids=lambda v: v if isinstance(v, str) else None)
def test_numpy_demo_runs_and_checks_its_result(demo, options, unit, run_demo_here):
    done = run_demo_here(f"{demo}_numpy", *options, "--repeat", "2", "--json", "--device", "h100-sxm")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["demo"] == demo and out["backend"] == "numpy" and out["device"]["platform"] == "cpu"
    assert out["check"]["passed"] and out["check"]["relative_error"] <= out["check"]["tolerance"]
    assert out["achieved"]["unit"] == unit and out["achieved"]["value"] > 0
    assert out["device"]["id"] == "h100-sxm" and out["device"]["matched_by"] == "override"
    assert 0 < out["percent_of_peak"] < 100 + PEAK_TOLERANCE_PERCENT
    assert out["command"].startswith(f"python -m atlas.demos.{demo}_numpy ")


def test_numpy_demo_without_a_match_reports_the_figure_alone(dataset):
    done = run_demo("atlas/demos/matmul_numpy.py", "--size", "128", "--repeat", "1")
    assert done.returncode == 0, done.stderr
    assert "achieved" in done.stdout
    if devices.match_name(devices.cpu_name(), dataset.devices) is None:
        assert "no device in the data set matches" in done.stdout


def test_bad_options_exit_2_with_a_message():
    done = run_demo("atlas/demos/matmul_numpy.py", "--size", "0")
    assert done.returncode == 2 and "must be at least 1" in done.stderr
    done = run_demo("atlas/demos/matmul_numpy.py", "--size", "64", "--device", "h100-smx")
    assert done.returncode == 2 and "did you mean h100-sxm?" in done.stderr
    assert "Traceback" not in done.stderr


def test_python_m_kernels_lists_backends():
    done = run_demo("-m", "atlas.demos")
    assert done.returncode == 0, done.stderr
    assert "Demos: bandwidth, matmul, intensity, fused" in done.stdout
    assert "yes  numpy" in done.stdout


def test_python_m_kernels_runs_a_demo():
    done = run_demo("-m", "atlas.demos", "run", "fused", "numpy", "--", "--rows", "64", "--cols", "64", "--repeat", "1", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["details"]["traffic_saved_percent"] == 75.0


# --- recording measurements ---------------------------------------------------------------------


def numpy_result(dataset):
    return harness.build_result(
        demo="matmul",
        backend="numpy",
        device_name="AMD EPYC",
        platform_name="cpu",
        params={"precision": "fp32", "size": 256},
        achieved=0.1234567891,
        unit="tflops",
        check_result=harness.check(1e-7, 1e-4),
        software={"python": "3.11.7", "numpy": "2.4.6"},
        command_line="python -m atlas.demos.matmul_numpy --precision fp32 --size 256 --json",
        devices_by_id=dataset.devices,
    )


def test_record_writes_a_valid_measurement(dataset, tmp_path):
    import shutil

    from atlas.data.dataset import load_dataset

    entry = record.measurement(numpy_result(dataset), contributor="tester")
    assert entry["device"] is None and entry["device_name"] == "AMD EPYC"
    assert entry["id"].startswith("amd-epyc-matmul-numpy-fp32-256-")
    assert "peak" not in entry["result"]  # peaks are looked up, never stored
    data = tmp_path / "data"
    shutil.copytree(REPO_ROOT / "data" / "hardware", data / "hardware")
    path = record.write(entry, data / "measurements")
    assert path.parent.name == "unmatched"
    loaded = load_dataset(data, root=tmp_path).measurements[entry["id"]]
    assert loaded["result"] == {"value": 0.123457, "unit": "tflops"}


def test_record_refuses_wrong_or_interpreted_results(dataset):
    bad = numpy_result(dataset)
    bad["check"] = harness.check(1.0, 1e-4)
    with pytest.raises(record.RecordError, match="failed its correctness check"):
        record.measurement(bad)
    interp = numpy_result(dataset)
    interp["device"]["platform"] = "interpreter"
    with pytest.raises(record.RecordError, match="interpreter"):
        record.measurement(interp)


def test_demos_read_the_validated_devices_and_refuse_an_invalid_data_set(tmp_path, monkeypatch):
    """The demos take their devices from the kept export of the validated data set: the same entries as a full
    load (dates as ISO text); a data set that does not validate gives no devices and says why."""
    monkeypatch.setenv("ATLAS_CACHE_DIR", str(tmp_path / "cache"))
    found, note = devices.load_devices()
    assert note is None
    assert found == json.loads(json.dumps(shared_dataset().devices, default=str))
    assert found["h100-sxm"]["memory"]["bandwidth_gb_s"] == 3350
    broken = tmp_path / "data"
    shutil.copytree(REPO_ROOT / "data", broken)
    path = broken / "hardware" / "nvidia" / "h100-sxm.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("bandwidth_gb_s: 3350", "bandwidth_gb_s: -1"), encoding="utf-8")
    found, note = devices.load_devices(broken)
    assert found == {}
    assert note.startswith("the data set does not validate (1 error;")


def test_data_set_is_read_without_jsonschema(monkeypatch):
    """A GPU machine may have PyYAML but not jsonschema: the demos still find the peaks, and say they did not validate."""
    for name in ("atlas.data.dataset", "atlas.data.schema"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setitem(sys.modules, "jsonschema", None)
    found, note = devices.load_devices()
    assert found["h100-sxm"]["memory"]["bandwidth_gb_s"] == 3350
    assert note == "data set read without validation (jsonschema is not installed)"


def test_gpu_script_is_valid_bash_and_runs_every_demo():
    script = REPO_ROOT / "atlas" / "demos" / "run_all_gpu.sh"
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    text = script.read_text(encoding="utf-8")
    for demo in DEMOS:
        for backend in ("torch", "triton", "jax"):
            # as modules, so the script runs from a checkout that is not installed (the device image)
            assert f"-m atlas.demos.{demo}_{backend} " in text or f"-m atlas.demos.{demo}_$backend " in text, (demo, backend)
        assert f"-m atlas.demos run {demo} cuda" in text
    assert "python3} -m atlas.demos record" in text or '"$PY" -m atlas.demos record' in text


FAKE_PYTHON = """#!/usr/bin/env bash
# Stands in for python3 in run_all_gpu.sh: each demo prints a result at once, except the JAX sweep.
case "$*" in
  "-c "*) exec "{python}" "$@" ;;
  *"atlas.demos record"*) echo "recorded $3" ;;
  *intensity_jax*) sleep 5 ;;
  *--json*) echo '{{"achieved": {{"value": 1.5, "unit": "tflops"}}, "percent_of_peak": 50.0, "peak": {{"value": 3.0}}}}' ;;
  *) echo "backends" ;;
esac
"""


def run_gpu_script(tmp_path, **env):
    import os

    fake = tmp_path / "python"
    fake.write_text(FAKE_PYTHON.format(python=sys.executable), encoding="utf-8")
    fake.chmod(0o755)
    out = tmp_path / "out"
    done = subprocess.run(
        ["bash", str(REPO_ROOT / "atlas" / "demos" / "run_all_gpu.sh"), str(out)],
        env={**os.environ, "PYTHON": str(fake), **env}, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return [line.split()[:2] for line in (out / "log.txt").read_text(encoding="utf-8").splitlines() if line[:5] in ("ok   ", "TIME ", "SKIP ", "FAIL ")], out


def test_gpu_script_puts_cheap_informative_runs_first_and_caps_each_demo(tmp_path):
    """All 34 runs, one per demo first, then the reruns that confirm the fixes (Triton FP8, the JAX sweep), the
    expensive sweeps last; a demo that overruns its budget is stopped and the rest still run and are recorded."""
    lines, out = run_gpu_script(tmp_path, BUDGET_MAX="2")
    names = [name for _, name in lines]
    assert len(names) == len(set(names)) == 34
    assert names[:6] == ["bandwidth-cuda-copy", "matmul-torch-bf16", "intensity-cuda", "fused-softmax-cuda", "matmul-triton-fp8", "intensity-jax"]
    assert names[-2:] == ["intensity-triton", "intensity-torch"]
    assert ["TIME", "intensity-jax"] in lines and sum(status == "ok" for status, _ in lines) == 33
    assert len((out / "results.jsonl").read_text(encoding="utf-8").splitlines()) == 33
    assert "recorded" in (out / "log.txt").read_text(encoding="utf-8")


def test_gpu_script_skips_what_no_longer_fits_the_window_and_still_records(tmp_path):
    """A 39-second window: the 30-second budgets fit (the fake demos finish at once), none of 40 s or more does."""
    lines, out = run_gpu_script(tmp_path, WINDOW="39")
    status = {name: state for state, name in lines}
    assert len(status) == 34 and status["bandwidth-cuda-copy"] == status["matmul-torch-fp8"] == "ok"
    for name in ("intensity-cuda", "fused-softmax-cuda", "matmul-triton-fp8", "intensity-jax", "fused-layernorm-jax", "intensity-torch"):
        assert status[name] == "SKIP", name
    assert "recorded" in (out / "log.txt").read_text(encoding="utf-8")

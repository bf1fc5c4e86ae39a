"""The heavy backends, run for real on the CPU with small sizes: PyTorch (CPU
build), JAX (CPU), Triton in its interpreter (TRITON_INTERPRET=1) and CUDA C
compiled with nvcc (this machine has no GPU to run it on).

Each run must produce the right numbers (its check against a float64
reference passed, and we re-check the reported error against the tolerance)
and plausible throughput (positive; below the peak of the device it is
compared with, plus a stated tolerance). `make test-kernels` installs the
backends from requirements-kernels.txt and runs only these tests; `make test`
runs them too. Outside CI a missing backend skips with the command to run; in
CI it fails.

Most runs call the demo's ``main(argv)`` in the test process (``run_here``): a
new Python process costs seconds (PyTorch, JAX or Triton, then the data set).
The Triton demos run in one helper process started with TRITON_INTERPRET=1
(see TRITON_HELPER). A few stay real processes, the command line as a reader
types it (``run``): one run per backend (the layer-norm test), torch.compile,
and Triton without TRITON_INTERPRET.
"""

import atexit
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from atlas.demos import DEMOS, cuda_build, demo_file
from conftest import REPO_ROOT

pytestmark = pytest.mark.kernels

PEAK_TOLERANCE_PERCENT = 5  # a percentage of peak above 105 % means miscounted work


def need(module: str):
    if importlib.util.find_spec(module) is None:
        if os.environ.get("CI"):
            pytest.fail(f"{module} is not installed: 'make test' installs requirements-kernels.txt")
        pytest.skip(f"{module} is not installed: run 'make test-kernels'")


def run(args, env_extra=None, timeout=600):
    """``python <args>`` in a new process, as a reader runs a demo."""
    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run([sys.executable, *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=timeout, env=env)


# Triton's interpreter cannot share a process with compiled Triton: TRITON_INTERPRET=1 must be set before the
# first `import triton` (which decorates triton.language's own @jit functions, tl.max, tl.sum, ...) and stays
# read while kernels run, and tests/test_kernels_triton_compile.py compiles the same kernels for GPUs in the
# test process. So the Triton demos run in one helper process per test process, started with TRITON_INTERPRET=1
# as a reader's `TRITON_INTERPRET=1 python atlas/demos/<name>.py` is: it imports PyTorch and Triton once, loads
# the data set once, and runs each demo's main(argv) as run_demo_here does here.
TRITON_HELPER = r"""
import contextlib, functools, importlib, io, json, os, sys, traceback
from pathlib import Path

from atlas.data import dataset

replies = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)  # what C code prints goes to stderr, not into the replies
load = dataset.load_dataset
shared = functools.cache(load)


def load_shared(data_dir=dataset.DATA_DIR, *args, **kwargs):
    if args or kwargs or Path(data_dir).resolve() != Path(dataset.DATA_DIR).resolve():
        return load(data_dir, *args, **kwargs)
    return shared()


dataset.load_dataset = load_shared
for line in sys.stdin:
    name, argv = json.loads(line)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = importlib.import_module(f"atlas.demos.{name}").main(argv)
        except SystemExit as exc:
            code = exc.code
        except Exception:
            traceback.print_exc()
            code = 1
        if code is not None and not isinstance(code, int):
            print(code, file=sys.stderr)
            code = 1
    replies.write(json.dumps([code or 0, out.getvalue(), err.getvalue()]) + "\n")
    replies.flush()
"""
_TRITON_PROCESS: list = []  # the helper process, once started


def stop_helper(helper: subprocess.Popen) -> None:
    helper.stdin.close()  # the helper ends when its input does
    helper.wait(timeout=60)


def run_in_triton_helper(name: str, *argv: str) -> subprocess.CompletedProcess:
    """``TRITON_INTERPRET=1 python atlas/demos/<name>.py argv...``, run in the helper process."""
    if not _TRITON_PROCESS or _TRITON_PROCESS[0].poll() is not None:
        env = dict(os.environ, TRITON_INTERPRET="1")
        command = [sys.executable, "-c", TRITON_HELPER]
        helper = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        atexit.register(stop_helper, helper)
        _TRITON_PROCESS[:] = [helper]
    helper = _TRITON_PROCESS[0]
    helper.stdin.write(json.dumps([name, list(argv)]) + "\n")
    helper.stdin.flush()
    reply = helper.stdout.readline()
    assert reply, f"the Triton helper process ended (exit code {helper.wait()}); its output is in the captured stderr"
    code, out, err = json.loads(reply)
    return subprocess.CompletedProcess([name, *argv], code, out, err)


@pytest.fixture
def run_here(run_demo_here):
    """``run_here("matmul_torch", *argv)``: ``python atlas/demos/matmul_torch.py argv...`` without a new process,
    exit code and output as ``subprocess.run`` gives them: conftest's ``run_demo_here`` (``main(argv)`` in this
    process); a Triton demo in the interpreter's helper process."""
    return lambda name, *argv: (run_in_triton_helper if name.endswith("_triton") else run_demo_here)(name, *argv)


def check_result(done, demo, backend, unit):
    assert done.returncode == 0, done.stdout + done.stderr
    out = json.loads(done.stdout)
    assert (out["demo"], out["backend"]) == (demo, backend)
    assert out["check"]["passed"] is True
    assert out["check"]["relative_error"] is not None and out["check"]["relative_error"] <= out["check"]["tolerance"]
    assert out["achieved"]["unit"] == unit and out["achieved"]["value"] > 0
    if out["peak"]:
        assert 0 < out["percent_of_peak"] < 100 + PEAK_TOLERANCE_PERCENT
    return out


# --- PyTorch on the CPU --------------------------------------------------------------------------

TORCH_RUNS = [
    ("bandwidth", ["--kernel", "triad", "--size", "1000000"], "gb_s"),
    ("bandwidth", ["--kernel", "copy", "--size", "1000000"], "gb_s"),
    ("matmul", ["--precision", "fp32", "--size", "256"], "tflops"),
    ("matmul", ["--precision", "bf16", "--size", "256"], "tflops"),
    ("matmul", ["--precision", "fp16", "--size", "128"], "tflops"),
    ("matmul", ["--precision", "fp8", "--size", "128"], "tflops"),
    ("intensity", ["--size", "100000", "--fmas", "1,8,32"], "tflops"),
    ("fused", ["--rows", "256", "--cols", "512"], "gb_s"),
    ("fused", ["--op", "layernorm", "--rows", "256", "--cols", "512"], "gb_s"),
]


@pytest.mark.parametrize("demo, options, unit", TORCH_RUNS, ids=lambda v: v if isinstance(v, str) else "-".join(v) if isinstance(v, list) else None)
def test_torch_on_cpu(demo, options, unit, run_here):
    need("torch")
    out = check_result(run_here(f"{demo}_torch", *options, "--on", "cpu", "--repeat", "2", "--json", "--device", "h100-sxm"), demo, "torch", unit)
    assert out["device"]["platform"] == "cpu" and out["software"]["torch"].startswith("2.13")


def test_torch_intensity_compiled():
    """The path a CUDA GPU takes (torch.compile fuses the FMA chain), here compiled for the CPU (a process of its
    own: torch.compile's state stays there)."""
    need("torch")
    out = check_result(
        run(["atlas/demos/intensity_torch.py", "--on", "cpu", "--mode", "compile", "--size", "50000", "--fmas", "1,8", "--repeat", "2", "--json"]),
        "intensity",
        "torch",
        "tflops",
    )
    assert out["params"]["mode"] == "compile" and [p["fmas"] for p in out["details"]["points"]] == [1, 8]


def test_torch_asks_for_a_missing_gpu(run_here):
    need("torch")
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU")
    done = run_here("matmul_torch", "--on", "cuda", "--size", "64")
    assert done.returncode == 3 and "PyTorch sees no CUDA device" in done.stderr


# --- JAX on the CPU ------------------------------------------------------------------------------

JAX_RUNS = [
    ("bandwidth", ["--kernel", "triad", "--size", "1000000"], "gb_s"),
    ("bandwidth", ["--kernel", "copy", "--size", "1000000"], "gb_s"),
    ("matmul", ["--precision", "fp32", "--size", "256"], "tflops"),
    ("matmul", ["--precision", "bf16", "--size", "256"], "tflops"),
    ("intensity", ["--size", "100000", "--fmas", "1,8,32"], "tflops"),
    ("fused", ["--rows", "256", "--cols", "512"], "gb_s"),
    ("fused", ["--op", "layernorm", "--rows", "256", "--cols", "512"], "gb_s"),
]


@pytest.mark.parametrize("demo, options, unit", JAX_RUNS, ids=lambda v: v if isinstance(v, str) else "-".join(v) if isinstance(v, list) else None)
def test_jax_on_cpu(demo, options, unit, run_here):
    need("jax")
    out = check_result(run_here(f"{demo}_jax", *options, "--repeat", "2", "--json", "--device", "h100-sxm"), demo, "jax", unit)
    assert out["device"]["platform"] == "cpu"


def test_jax_intensity_records_how_many_kernels_xla_compiled_the_chain_into(run_here):
    """On the CPU, XLA fuses the whole FMA chain into one loop fusion at every point; the count goes into
    the recorded details (max_kernels_per_run), so a GPU rerun shows whether XLA split the chain."""
    need("jax")
    from atlas.demos import record
    from atlas.demos.intensity_jax import kernels_in

    out = check_result(run_here("intensity_jax", "--size", "20000", "--fmas", "1,64,256", "--repeat", "1", "--json"), "intensity", "jax", "tflops")
    assert [pt["kernels"] for pt in out["details"]["points"]] == [1, 1, 1]
    assert record.measurement(out)["details"]["max_kernels_per_run"] == 1
    split = """HloModule m

ENTRY %main (x: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0)
  %c = f32[] constant(1)
  %loop_fusion = f32[8]{0} fusion(%x), kind=kLoop, calls=%fused_computation
  %loop_fusion.1 = f32[8]{0} fusion(%loop_fusion), kind=kLoop, calls=%fused_computation.1
  ROOT %loop_fusion.2 = f32[8]{0} fusion(%loop_fusion.1), kind=kLoop, calls=%fused_computation.2
}
"""
    assert kernels_in(split) == 3


# --- Triton in its interpreter -------------------------------------------------------------------

TRITON_RUNS = [
    ("bandwidth", ["--kernel", "triad", "--size", "20000"], "gb_s"),
    ("bandwidth", ["--kernel", "copy", "--size", "20000"], "gb_s"),
    ("matmul", ["--precision", "fp32", "--size", "96"], "tflops"),
    ("matmul", ["--precision", "tf32", "--size", "64"], "tflops"),
    ("matmul", ["--precision", "fp16", "--size", "64"], "tflops"),
    ("matmul", ["--precision", "fp8", "--size", "64"], "tflops"),
    ("intensity", ["--size", "5000", "--fmas", "1,16"], "tflops"),
    ("fused", ["--rows", "64", "--cols", "300"], "gb_s"),
    ("fused", ["--op", "layernorm", "--rows", "64", "--cols", "300"], "gb_s"),
]
INTERPRET = {"TRITON_INTERPRET": "1"}


@pytest.mark.parametrize("demo, options, unit", TRITON_RUNS, ids=lambda v: v if isinstance(v, str) else "-".join(v) if isinstance(v, list) else None)
def test_triton_kernels_in_the_interpreter(demo, options, unit, run_here):
    need("triton")
    done = run_here(f"{demo}_triton", *options, "--repeat", "1", "--warmup", "0", "--json")
    out = check_result(done, demo, "triton", unit)
    assert out["device"]["platform"] == "interpreter"
    assert any("interpreter" in note for note in out["notes"])


def test_triton_interpreter_refuses_bf16_dot(run_here):
    """triton-lang/triton#11584: the interpreter multiplies bfloat16 bit patterns; bf16 is checked on a GPU only."""
    need("triton")
    done = run_here("matmul_triton", "--precision", "bf16", "--size", "64")
    assert done.returncode == 3 and "does not support bf16" in done.stderr


def test_triton_without_gpu_or_interpreter_says_so():
    need("triton")
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run([sys.executable, "atlas/demos/bandwidth_triton.py"], cwd=REPO_ROOT, capture_output=True, text=True, env=env)
    assert done.returncode == 3 and "TRITON_INTERPRET=1" in done.stderr


# --- layer norm in every Python backend: the counts of atlas/demos/fused_common.py ----------------------

LAYERNORM_RUNS = {
    "torch": (["--on", "cpu", "--rows", "96", "--cols", "384", "--repeat", "2"], {}),
    "jax": (["--rows", "96", "--cols", "384", "--repeat", "2"], {}),
    "triton": (["--rows", "24", "--cols", "384", "--repeat", "1", "--warmup", "0"], INTERPRET),
}


@pytest.mark.parametrize("backend", sorted(LAYERNORM_RUNS))
def test_layernorm_traffic_in_each_backend(backend):
    """Also each backend's one run as a reader types it, in a new process."""
    need(backend)
    options, env = LAYERNORM_RUNS[backend]
    out = check_result(run([f"atlas/demos/fused_{backend}.py", "--op", "layernorm", *options, "--json"], env), "fused", backend, "gb_s")
    rows = out["params"]["rows"]
    assert out["params"] == {"op": "layernorm", "rows": rows, "cols": 384, "dtype": "fp32"}
    # 6 reads + 4 writes unfused, 1 read + 1 write fused, of rows x 384 float32 values
    assert out["details"]["unfused_bytes"] == 10 * rows * 384 * 4 and out["details"]["fused_bytes"] == 2 * rows * 384 * 4
    assert out["details"]["traffic_saved_percent"] == 80.0
    assert out["check"]["relative_error"] < 1e-6


@pytest.mark.parametrize("backend", sorted(LAYERNORM_RUNS))
def test_unknown_op_exits_2(backend, run_here):
    need(backend)
    done = run_here(f"fused_{backend}", "--op", "rmsnorm")
    assert done.returncode == 2 and "invalid choice: 'rmsnorm'" in done.stderr and "Traceback" not in done.stderr


# --- CUDA C: compiled with nvcc --------------------------------------------------------------------


def need_nvcc():
    if shutil.which("nvcc") is None:
        if os.environ.get("CI"):
            pytest.fail("nvcc is not on PATH")
        pytest.skip("nvcc is not on PATH")


_BUILT: dict = {}  # demo -> its binary for PORTABLE_ARCH, built once per test process


def portable_binary(demo: str, tmp_path_factory) -> Path:
    """``cuda_build.build(demo, PORTABLE_ARCH, ...)``, once per process: several tests run the same binary."""
    if demo not in _BUILT:
        _BUILT[demo] = cuda_build.build(demo, cuda_build.PORTABLE_ARCH, tmp_path_factory.mktemp(f"{demo}_cuda"))
    return _BUILT[demo]


_PTX: dict = {}  # (demo, arch) -> nvcc's run and the PTX file, once per test process


def ptx(demo: str, arch: str, tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path]:
    """``nvcc -std=c++17 -arch=<arch> -ptx`` of the demo, once per process: two tests read matmul's PTX."""
    if (demo, arch) not in _PTX:
        out = tmp_path_factory.mktemp("ptx") / f"{demo}_{arch}.ptx"
        cmd = [cuda_build.nvcc(), "-std=c++17", f"-arch={arch}", "-ptx", "-o", str(out), str(demo_file(demo, "cuda"))]
        _PTX[demo, arch] = subprocess.run(cmd, capture_output=True, text=True), out
    return _PTX[demo, arch]


@pytest.mark.parametrize("demo", DEMOS)
def test_cuda_demo_compiles(demo, tmp_path_factory):
    need_nvcc()
    binary = portable_binary(demo, tmp_path_factory)
    assert binary.is_file() and binary.stat().st_size > 0
    # The fatbinary holds machine code for both targets (Ampere sm_80, Hopper sm_90).
    data = binary.read_bytes()
    assert b"sm_80" in data and b"sm_90" in data
    if shutil.which("nvidia-smi") is None:
        done = subprocess.run([str(binary), "--json"], capture_output=True, text=True, timeout=60)
        assert done.returncode == 3, done.stderr  # no GPU here: a clear message, no crash
        assert done.stderr.startswith("error: ")


def test_cuda_demo_rejects_bad_options(tmp_path_factory):
    need_nvcc()
    binary = portable_binary("matmul", tmp_path_factory)
    done = subprocess.run([str(binary), "--size", "100"], capture_output=True, text=True)
    assert done.returncode == 2 and "multiple of 128" in done.stderr
    done = subprocess.run([str(binary), "--precision", "fp64"], capture_output=True, text=True)
    assert done.returncode == 2 and "must be fp32, fp16, bf16 or fp8" in done.stderr


@pytest.mark.parametrize(
    ("arch", "fp8_instructions", "bf16_instructions", "traps"),
    [
        ("sm_120", 32, 8, 0),  # GeForce Blackwell (RTX 5090)
        ("sm_100", 32, 8, 0),  # B200
        ("sm_90", 32, 8, 0),  # Hopper: 4 x 4 tiles x 2 K steps per warp = 32 FP8 mma; 4 x 2 BF16 WMMA
        ("sm_89", 32, 8, 0),  # Ada (RTX 4090, L4): FP8 from 8.9 on
        ("sm_80", 0, 8, 32),  # Ampere: each inlined FP8 mma is a trap instead
        ("sm_75", 0, 0, 33),  # Turing (T4): no BF16 either, one more trap; FP16 still on the tensor cores
    ],
)
def test_cuda_matmul_uses_the_tensor_core_instructions(arch, fp8_instructions, bf16_instructions, traps, tmp_path_factory):
    """The PTX nvcc emits: WMMA for FP16 (and BF16 from Ampere), mma.sync m16n8k32 E4M3 for FP8 where
    the GPU has it, and a trap where it has not (main() refuses those precisions before launching)."""
    need_nvcc()
    done, path = ptx("matmul", arch, tmp_path_factory)
    assert done.returncode == 0, done.stderr
    text = path.read_text()
    assert text.count("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32") == fp8_instructions
    assert text.count("trap;") == traps
    assert text.count("wmma.mma.sync.aligned.row.row.m16n16k16.f32.bf16.bf16.f32") == bf16_instructions
    assert "wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32" in text  # FP16 inputs: PTX names only D and C types


@pytest.mark.parametrize("demo", DEMOS)
@pytest.mark.parametrize("arch", ["sm_75", "sm_86", "sm_89", "sm_100", "sm_120"])
def test_cuda_demo_compiles_for_other_generations(demo, arch, tmp_path_factory):
    """What -arch=native builds on a reader's Turing, GeForce Ampere/Ada/Blackwell or B200 (PTX only: quick)."""
    need_nvcc()
    done, path = ptx(demo, arch, tmp_path_factory)
    assert done.returncode == 0, done.stderr
    assert f".target {arch}" in path.read_text()


def test_cuda_fused_demo_rejects_an_unknown_op(tmp_path_factory):
    need_nvcc()
    binary = portable_binary("fused", tmp_path_factory)
    done = subprocess.run([str(binary), "--op", "rmsnorm"], capture_output=True, text=True)
    assert done.returncode == 2 and "--op must be softmax or layernorm, got 'rmsnorm'" in done.stderr
    done = subprocess.run([str(binary), "--op", "layernorm", "--cols", "20000"], capture_output=True, text=True)
    assert done.returncode == 2 and "at most 12288" in done.stderr

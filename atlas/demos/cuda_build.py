"""Build a CUDA C demo with nvcc and run it with the data-set comparison.

The ``.cu`` programs print their raw result as JSON (C has no YAML parser);
``run`` adds what the Python demos add themselves: the matched device, its
peak and the percentage. ``python -m atlas.demos run matmul cuda -- --size 8192``
calls it.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from atlas.demos import REPO_ROOT, demo_file, harness

BUILD_DIR = REPO_ROOT / "build"
# Compile-only targets when no GPU is present (CI): Ampere and Hopper.
PORTABLE_ARCH = ["-gencode=arch=compute_80,code=sm_80", "-gencode=arch=compute_90,code=sm_90"]


def nvcc() -> str | None:
    return shutil.which("nvcc")


def build_command(demo: str, out: Path, arch: list[str] | None = None) -> list[str]:
    """The nvcc command line for ``demo``; ``arch`` defaults to ``-arch=native`` (the GPU in this machine)."""
    return [nvcc() or "nvcc", "-O3", "-std=c++17", *(arch or ["-arch=native"]), "-o", str(out), str(demo_file(demo, "cuda"))]


def build(demo: str, arch: list[str] | None = None, out_dir: Path = BUILD_DIR) -> Path:
    """Compile ``atlas/demos/<demo>_cuda.cu`` into ``out_dir``; raise RuntimeError with nvcc's output on failure."""
    if not nvcc():
        raise RuntimeError("nvcc is not on PATH (install the CUDA toolkit)")
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{demo}_cuda"
    done = subprocess.run(build_command(demo, out, arch), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"nvcc failed for {demo}:\n{done.stdout}{done.stderr}")
    return out


def run(demo: str, argv: list[str]) -> int:
    """Build and run one CUDA demo; print its result like the Python demos do; return the exit code."""
    p = harness.parser(demo, "cuda", f"Build atlas/demos/{demo}_cuda.cu with nvcc, run it, compare with the data set.")
    p.add_argument("--arch", help="nvcc target, e.g. sm_90 (default: native, the GPU in this machine)")
    args, rest = p.parse_known_args(argv)
    try:
        binary = build(demo, [f"-arch={args.arch}"] if args.arch else None)
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return harness.EXIT_UNAVAILABLE
    cmd = [str(binary), *rest, "--repeat", str(args.repeat), "--warmup", str(args.warmup), "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.stderr.write(done.stderr)
        return done.returncode
    raw = json.loads(done.stdout)
    result = harness.build_result(
        demo=demo,
        backend="cuda",
        device_name=raw["device"]["name"],
        platform_name="cuda",
        params=raw["params"],
        achieved=raw["achieved"]["value"],
        unit=raw["achieved"]["unit"],
        check_result={**raw["check"], "passed": bool(raw["check"]["passed"])},
        software={"nvcc": nvcc_version(), "python": harness.versions()["python"]},
        command_line=shlex.join(["python", "-m", "atlas.demos", "run", demo, "cuda", "--", *argv]),
        details=raw.get("details"),
        override=args.device,
    )
    if result is None:
        return 2
    print(json.dumps(result, indent=2, allow_nan=False) if args.json else harness.text_report(result))
    return 0 if result["check"]["passed"] else 1


def nvcc_version() -> str:
    done = subprocess.run([nvcc() or "nvcc", "--version"], capture_output=True, text=True)
    last = [line for line in done.stdout.splitlines() if "release" in line]
    return last[0].split("release", 1)[1].split(",")[0].strip() if last else "unknown"

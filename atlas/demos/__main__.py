"""``python -m atlas.demos``: list the demos and backends, run one, or record results.

    python -m atlas.demos                      # what runs on this machine
    python -m atlas.demos run matmul torch -- --precision bf16 --size 8192
    python -m atlas.demos run matmul cuda -- --precision bf16 --size 8192 --json
    python -m atlas.demos record result.json   # -> data/measurements/<device>/<id>.yaml
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import subprocess
import sys

from atlas.demos import BACKENDS, DEMOS, demo_file


def backend_status(backend: str) -> tuple[bool, str]:
    """(can it measure here?, what it runs on or why not)."""
    if backend == "numpy":
        try:
            import numpy

            return True, f"CPU (numpy {numpy.__version__})"
        except ImportError:
            return False, "numpy is not installed"
    if backend == "torch":
        try:
            import torch
        except ImportError:
            return False, "torch is not installed"
        if torch.cuda.is_available():
            return True, f"CUDA: {torch.cuda.get_device_name()}"
        if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
            return True, "Apple MPS"
        return True, f"CPU (torch {torch.__version__})"
    if backend == "jax":
        try:
            import jax
        except ImportError:
            return False, "jax is not installed"
        dev = jax.devices()[0]
        return True, f"{dev.platform.upper()}: {dev.device_kind}"
    if backend == "triton":
        try:
            import torch
            import triton
        except ImportError:
            return False, "triton (and torch) are not installed"
        if torch.cuda.is_available():
            return True, f"GPU: {torch.cuda.get_device_name()} (triton {triton.__version__})"
        return False, "no GPU; TRITON_INTERPRET=1 checks the kernels on the CPU (no timing)"
    if backend == "cuda":
        if not shutil.which("nvcc"):
            return False, "nvcc is not on PATH"
        gpu = shutil.which("nvidia-smi") and subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0
        return (True, "nvcc and an NVIDIA GPU") if gpu else (False, "nvcc found but no NVIDIA GPU: builds, cannot run")
    raise ValueError(backend)


def list_demos() -> int:
    print("Demos: " + ", ".join(DEMOS))
    print("Backends on this machine:")
    for backend in BACKENDS:
        ok, text = backend_status(backend)
        print(f"  {'yes' if ok else 'no ':3}  {backend:7} {text}")
    print("\nRun one:  python -m atlas.demos run DEMO BACKEND -- [options]   (options: python atlas/demos/DEMO_BACKEND.py --help)")
    return 0


def run(demo: str, backend: str, argv: list[str]) -> int:
    if backend == "cuda":
        from atlas.demos import cuda_build

        return cuda_build.run(demo, argv)
    if backend == "triton" and os.environ.get("TRITON_INTERPRET") != "1":
        ok, why = backend_status("triton")
        if not ok:
            print(f"error: {why}", file=sys.stderr)
            return 3
    module = importlib.import_module(f"atlas.demos.{demo_file(demo, backend).stem}")
    return module.main(argv)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m atlas.demos", description="Kernel demos against the data set's peaks.")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("list", help="list demos and the backends available here (the default)")
    run_p = sub.add_parser("run", help="run one demo with one backend")
    run_p.add_argument("demo", choices=DEMOS)
    run_p.add_argument("backend", choices=BACKENDS)
    run_p.add_argument("options", nargs=argparse.REMAINDER, help="options for the demo, after --")
    rec = sub.add_parser("record", help="turn --json results into measurement files under data/measurements/")
    rec.add_argument("results", nargs="+", help="files holding one JSON result each, or JSON lines")
    rec.add_argument("--out", help="folder to write to (default: data/measurements)")
    rec.add_argument("--contributor", help="your name or handle, stored with the measurement")
    rec.add_argument("--notes", help="anything a reader should know about the machine or the run")
    args = parser.parse_args(argv)

    if args.command in (None, "list"):
        return list_demos()
    if args.command == "run":
        options = args.options[1:] if args.options[:1] == ["--"] else args.options
        return run(args.demo, args.backend, options)
    from atlas.demos import record

    return record.main(args.results, args.out, args.contributor, args.notes)


if __name__ == "__main__":
    sys.exit(main())

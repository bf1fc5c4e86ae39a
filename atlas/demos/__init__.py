"""Kernel demos: small programs that measure a device against its data-set peak.

Four demos, each written once per backend as a self-contained file
``atlas/demos/<demo>_<backend>.py`` (``.cu`` for CUDA C):

- ``bandwidth``: STREAM copy / triad over large arrays; achieved GB/s against
  the device's peak memory bandwidth (``bandwidth`` in the data set);
- ``matmul``: a matrix product C = A·B at one precision; achieved TFLOP/s
  (2·M·N·K operations) against the dense peak of that precision;
- ``intensity``: an element-wise kernel doing a chosen number of FMAs per
  element loaded, swept over arithmetic intensity to trace the roofline;
- ``fused``: row softmax or layer norm (``--op``) as separate operations vs
  one fused kernel; the memory traffic saved and the effective bandwidth of
  each.

The two models the kernel pages run in the browser live in the core
(``atlas.core.kernels``: ``systolic``, a cycle-by-cycle systolic-array
matrix-multiply simulator, and ``roofline``, attainable FLOP/s for a device and
an arithmetic intensity); the demos import them from there.

``python -m atlas.demos`` lists the demos and the backends this machine has,
``python -m atlas.demos run DEMO BACKEND -- [options]`` runs one.
"""

from __future__ import annotations

from pathlib import Path

from atlas.core.kernels.demo_workloads import BACKENDS, DEMOS

DEMOS_DIR = Path(__file__).resolve().parent
REPO_ROOT = DEMOS_DIR.parents[1]



def demo_file(demo: str, backend: str) -> Path:
    """The source file of ``demo`` for ``backend`` (``atlas/demos/matmul_torch.py``, ``atlas/demos/matmul_cuda.cu``)."""
    if demo not in DEMOS:
        raise ValueError(f"unknown demo {demo!r}; expected one of {', '.join(DEMOS)}")
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    return DEMOS_DIR / f"{demo}_{backend}.{'cu' if backend == 'cuda' else 'py'}"

"""What the GPU demos (``atlas/demos/``) run, as plain facts that the demos and the build's kernel tables
(``atlas.data.kernel_tables``) share: the demo and backend names, the fused demo's row operations with their passes
over the matrix, and the FMA chain's arithmetic intensity. Standard library only; the demos themselves need NumPy or
a GPU backend and stay outside the core."""

from __future__ import annotations

DEMOS = ("bandwidth", "matmul", "intensity", "fused")
BACKENDS = ("numpy", "torch", "jax", "triton", "cuda")

# The fused-vs-unfused demo: row softmax and layer norm, and the passes over the whole matrix each version makes
# (the step tables in atlas/demos/fused_common.py count them).
FUSED_OPS = ("softmax", "layernorm")
FUSED_PASSES = {
    "softmax": {"unfused": 8, "fused": 2},
    "layernorm": {"unfused": 10, "fused": 2},
}

# The arithmetic-intensity demo: y = A*y + B repeated ``fmas`` times on FP32 elements; each element is read once
# and written once (4 + 4 bytes), each FMA is 2 FLOP.
FMA_BYTES_PER_ELEMENT = 8


def fma_intensity(fmas: int) -> float:
    """FLOP per byte of the FMA chain with ``fmas`` steps per element."""
    return 2 * fmas / FMA_BYTES_PER_ELEMENT

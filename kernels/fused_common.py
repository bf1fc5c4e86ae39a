"""Shared by the fused-vs-unfused demos: row softmax, its memory traffic and reference.

softmax(x)[i, j] = exp(x[i, j] - max_j x[i, j]) / sum_j exp(x[i, j] - max_j x[i, j])

Written as separate operations, every step is a pass over the whole matrix
(R x C elements of E bytes):

    m = rowmax(x)       read x
    t = x - m           read x, write t
    t = exp(t)          read t, write t
    s = rowsum(t)       read t
    y = t / s           read t, write y

5 reads + 3 writes = 8 passes. A fused kernel keeps each row on chip: it
reads x once and writes y once = 2 passes, a quarter of the traffic.
(The row vectors m and s are R values each and are not counted.)
"""

from __future__ import annotations

UNFUSED_PASSES = 8
FUSED_PASSES = 2


def traffic(rows: int, cols: int, element_bytes: int = 4) -> dict:
    """Bytes each version moves through memory."""
    matrix = rows * cols * element_bytes
    return {"unfused_bytes": UNFUSED_PASSES * matrix, "fused_bytes": FUSED_PASSES * matrix}


def reference(x):
    """Row softmax in float64."""
    import numpy as np

    x = np.asarray(x, dtype=np.float64)
    t = np.exp(x - x.max(axis=1, keepdims=True))
    return t / t.sum(axis=1, keepdims=True)


def details(rows: int, cols: int, unfused_s: float, fused_s: float, element_bytes: int = 4) -> dict:
    """Times, bytes, effective bandwidths (GB/s) and the speed-up of fusing."""
    moved = traffic(rows, cols, element_bytes)
    return {
        "unfused_s": unfused_s,
        "fused_s": fused_s,
        **moved,
        "unfused_gb_s": moved["unfused_bytes"] / unfused_s / 1e9,
        "fused_gb_s": moved["fused_bytes"] / fused_s / 1e9,
        "speedup": unfused_s / fused_s,
        "traffic_saved_percent": 100 * (1 - FUSED_PASSES / UNFUSED_PASSES),
    }

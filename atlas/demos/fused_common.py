"""Shared by the fused-vs-unfused demos: the two operations, their memory traffic and references.

Both work row by row on an R x C matrix x of E-byte elements; each step
written as a separate operation is a pass over the whole matrix (R x C x E
bytes). Row vectors (R values) and the layer norm's gamma and beta (C
values) are small next to the matrix and are not counted.

Row softmax, ``--op softmax``:

    softmax(x)[i, j] = exp(x[i, j] - max_j x[i, j]) / sum_j exp(x[i, j] - max_j x[i, j])

    m = rowmax(x)       read x
    t = x - m           read x, write t
    t = exp(t)          read t, write t
    s = rowsum(t)       read t
    y = t / s           read t, write y

    5 reads + 3 writes = 8 passes

Layer norm over the last dimension, ``--op layernorm``:

    y = (x - mean) / sqrt(var + eps) * gamma + beta,   eps = 1e-5,
    mean and var (biased: divided by C) taken over each row

    mu = rowmean(x)             read x
    t = x - mu                  read x, write t
    v = rowmean(t * t)          read t (one reduction; t * t is not stored)
    t = t * rsqrt(v + eps)      read t, write t (rsqrt of R values)
    t = t * gamma               read t, write t
    y = t + beta                read t, write y

    6 reads + 4 writes = 10 passes

A fused kernel keeps each row on chip: it reads x once and writes y once,
2 passes for either operation. Fusing saves 75 % of softmax's traffic and
80 % of layer norm's, whose unfused form has more separate steps.
"""

from __future__ import annotations

from atlas.core.kernels.demo_workloads import FUSED_OPS as OPS
from atlas.core.kernels.demo_workloads import FUSED_PASSES as PASSES  # passes over the matrix; the step tables above

EPS = 1e-5  # layer norm's epsilon, added to the variance


def add_op_option(parser) -> None:
    """``--op softmax|layernorm`` (default softmax); argparse rejects anything else with exit code 2."""
    parser.add_argument("--op", choices=OPS, default="softmax", help="the row operation (default: softmax)")


def traffic(rows: int, cols: int, element_bytes: int = 4, op: str = "softmax") -> dict:
    """Bytes each version of ``op`` moves through memory."""
    matrix = rows * cols * element_bytes
    passes = PASSES[op]
    return {"unfused_bytes": passes["unfused"] * matrix, "fused_bytes": passes["fused"] * matrix}


def saved_percent(op: str) -> float:
    """Share of the unfused traffic that fusing ``op`` saves, in percent."""
    return 100 * (1 - PASSES[op]["fused"] / PASSES[op]["unfused"])


def affine(cols: int):
    """The layer norm's gamma and beta: C float32 values each, the same in every backend."""
    import numpy as np

    rng = np.random.default_rng(1)
    gamma = (1 + 0.1 * rng.standard_normal(cols)).astype(np.float32)
    beta = (0.1 * rng.standard_normal(cols)).astype(np.float32)
    return gamma, beta


def reference(x):
    """Row softmax in float64."""
    import numpy as np

    x = np.asarray(x, dtype=np.float64)
    t = np.exp(x - x.max(axis=1, keepdims=True))
    return t / t.sum(axis=1, keepdims=True)


def layernorm_reference(x, gamma, beta, eps: float = EPS):
    """Layer norm over each row in float64 (biased variance, as every framework uses)."""
    import numpy as np

    x = np.asarray(x, dtype=np.float64)
    t = x - x.mean(axis=1, keepdims=True)
    var = (t * t).mean(axis=1, keepdims=True)
    return t / np.sqrt(var + eps) * np.asarray(gamma, dtype=np.float64) + np.asarray(beta, dtype=np.float64)


def expected(op: str, x):
    """The float64 reference of ``op`` for x; layer norm uses ``affine(C)`` as gamma and beta."""
    if op == "softmax":
        return reference(x)
    return layernorm_reference(x, *affine(len(x[0])))


def details(rows: int, cols: int, unfused_s: float, fused_s: float, element_bytes: int = 4, op: str = "softmax") -> dict:
    """Times (s), bytes, effective bandwidths (GB/s = 1e9 bytes/s) and the speed-up of fusing ``op``."""
    moved = traffic(rows, cols, element_bytes, op)
    return {
        "unfused_s": unfused_s,
        "fused_s": fused_s,
        **moved,
        "unfused_gb_s": moved["unfused_bytes"] / unfused_s / 1e9,
        "fused_gb_s": moved["fused_bytes"] / fused_s / 1e9,
        "speedup": unfused_s / fused_s,
        "traffic_saved_percent": saved_percent(op),
    }

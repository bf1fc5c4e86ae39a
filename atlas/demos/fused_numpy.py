"""Fused vs unfused row softmax or layer norm on the CPU with NumPy.

Unfused: the steps of atlas/demos/fused_common.py's tables as whole-matrix NumPy
operations, each a pass through main memory (8 passes for softmax, 10 for
layer norm).
"Fused": NumPy has no kernel fusion, so the same operations run on blocks of
rows small enough to stay in the CPU cache; main memory then sees one read
of x and one write of y (2 passes). That is what a fused GPU kernel does
with a row in registers or shared memory.

The headline is the fused version's effective bandwidth (2 passes over its
time) against the device's peak memory bandwidth.

    python -m atlas.demos.fused_numpy --rows 8192 --cols 4096
    python -m atlas.demos.fused_numpy --op layernorm --rows 8192 --cols 4096
"""

import sys
from functools import partial

import numpy as np

from atlas.demos import devices, harness
from atlas.demos import fused_common as common

BLOCK_BYTES = 256 * 1024  # rows per block chosen so a block of float32 fits in L2


def softmax_unfused(x, t, y):
    m = x.max(axis=1, keepdims=True)
    np.subtract(x, m, out=t)
    np.exp(t, out=t)
    s = t.sum(axis=1, keepdims=True)
    np.divide(t, s, out=y)


def layernorm_unfused(x, t, y, gamma, beta):
    mu = x.mean(axis=1, keepdims=True)
    np.subtract(x, mu, out=t)
    v = np.vecdot(t, t)[:, None] / x.shape[1]  # one read of t: no t * t in memory
    np.multiply(t, 1 / np.sqrt(v + common.EPS), out=t)
    np.multiply(t, gamma, out=t)
    np.add(t, beta, out=y)


def unfused_steps(op: str, cols: int):
    """The unfused sequence of ``op`` as a function (x, t, y) -> None that writes y."""
    if op == "softmax":
        return softmax_unfused
    gamma, beta = common.affine(cols)
    return partial(layernorm_unfused, gamma=gamma, beta=beta)


def blocked(steps, x, y, block_rows):
    """Run ``steps`` on one block of rows at a time, so its intermediate t stays in the cache."""
    t = np.empty((block_rows, x.shape[1]), dtype=x.dtype)
    for start in range(0, x.shape[0], block_rows):
        xb, yb = x[start : start + block_rows], y[start : start + block_rows]
        steps(xb, t[: xb.shape[0]], yb)


def main(argv=None) -> int:
    p = harness.parser("fused", "numpy", "Fused vs unfused row softmax or layer norm with NumPy on the CPU.")
    common.add_op_option(p)
    p.add_argument("--rows", type=harness.positive_int, default=8192)
    p.add_argument("--cols", type=harness.positive_int, default=4096)
    args = p.parse_args(argv)

    x = np.random.default_rng(0).standard_normal((args.rows, args.cols), dtype=np.float32)
    t, y = np.empty_like(x), np.empty_like(x)
    block_rows = max(1, BLOCK_BYTES // (args.cols * x.itemsize))
    steps = unfused_steps(args.op, args.cols)

    unfused = harness.median(harness.time_runs(lambda: steps(x, t, y), args.repeat, args.warmup))
    fused = harness.median(harness.time_runs(lambda: blocked(steps, x, y, block_rows), args.repeat, args.warmup))

    expected = common.expected(args.op, x)
    y.fill(np.nan)
    steps(x, t, y)
    error = harness.relative_error(y, expected)
    y.fill(np.nan)
    blocked(steps, x, y, block_rows)
    error = max(error, harness.relative_error(y, expected))

    info = common.details(args.rows, args.cols, unfused, fused, op=args.op)
    return harness.finish(
        args,
        demo="fused",
        backend="numpy",
        device_name=devices.cpu_name(),
        platform_name="cpu",
        params={"op": args.op, "rows": args.rows, "cols": args.cols, "dtype": "fp32"},
        achieved=info["fused_gb_s"],
        unit="gb_s",
        check_result=harness.check(error, 1e-5),
        software=harness.versions("numpy"),
        command_line=harness.command(argv, __file__),
        details=info,
    )


if __name__ == "__main__":
    sys.exit(main())

"""Fused vs unfused row softmax with JAX (TPU, GPU or CPU).

Unfused: each of the five steps is its own jax.jit function, so XLA must
write every intermediate to memory (8 passes, see kernels/fused_common.py).
Fused: the same five steps inside ONE jax.jit function; XLA fuses them into
kernels that keep rows on chip (2 passes in the ideal case).

    python kernels/fused_jax.py --rows 32768 --cols 8192
"""

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import jax
import jax.numpy as jnp
import numpy as np

from kernels import fused_common as common
from kernels import harness
from kernels import jax_common as jc

row_max = jax.jit(lambda x: jnp.max(x, axis=1, keepdims=True))
subtract = jax.jit(lambda x, m: x - m)
exp = jax.jit(jnp.exp)
row_sum = jax.jit(lambda t: jnp.sum(t, axis=1, keepdims=True))
divide = jax.jit(lambda t, s: t / s)


def softmax_unfused(x):
    t = exp(subtract(x, row_max(x)))
    return divide(t, row_sum(t))


@jax.jit
def softmax_fused(x):
    t = jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
    return t / jnp.sum(t, axis=1, keepdims=True)


def main(argv=None) -> int:
    p = harness.parser("fused", "jax", "Fused vs unfused row softmax with JAX.")
    p.add_argument("--rows", type=harness.positive_int, default=32768)
    p.add_argument("--cols", type=harness.positive_int, default=8192)
    args = p.parse_args(argv)
    dev = jc.device()

    x_host = np.random.default_rng(0).standard_normal((args.rows, args.cols), dtype=np.float32)
    x = jax.device_put(x_host, dev)
    unfused_s = harness.median(harness.time_runs(lambda: softmax_unfused(x).block_until_ready(), args.repeat, args.warmup))
    fused_s = harness.median(harness.time_runs(lambda: softmax_fused(x).block_until_ready(), args.repeat, args.warmup))

    expected = common.reference(x_host)
    error = max(
        harness.relative_error(np.asarray(softmax_unfused(x)), expected),
        harness.relative_error(np.asarray(softmax_fused(x)), expected),
    )

    info = common.details(args.rows, args.cols, unfused_s, fused_s)
    return harness.finish(
        args,
        demo="fused",
        backend="jax",
        device_name=jc.name(dev),
        platform_name=dev.platform,
        params={"op": "softmax", "rows": args.rows, "cols": args.cols, "dtype": "fp32"},
        achieved=info["fused_gb_s"],
        unit="gb_s",
        check_result=harness.check(error, 1e-5),
        software=harness.versions("jax", "jaxlib", "numpy"),
        command_line=harness.command(argv, __file__),
        details=info,
    )


if __name__ == "__main__":
    sys.exit(main())

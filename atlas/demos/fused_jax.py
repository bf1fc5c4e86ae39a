"""Fused vs unfused row softmax or layer norm with JAX (TPU, GPU or CPU).

Unfused: each step of atlas/demos/fused_common.py's tables is its own jax.jit
function, so XLA must write every intermediate to memory (8 passes for
softmax, 10 for layer norm). Fused: the same steps inside ONE jax.jit
function; XLA fuses them into kernels that keep rows on chip (2 passes in
the ideal case).

    python -m atlas.demos.fused_jax --rows 32768 --cols 8192
    python -m atlas.demos.fused_jax --op layernorm --rows 32768 --cols 8192
"""

import sys
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from atlas.demos import fused_common as common
from atlas.demos import harness
from atlas.demos import jax_common as jc

row_max = jax.jit(lambda x: jnp.max(x, axis=1, keepdims=True))
row_mean = jax.jit(lambda x: jnp.mean(x, axis=1, keepdims=True))
row_mean_square = jax.jit(lambda t: jnp.mean(jnp.square(t), axis=1, keepdims=True))  # one read of t
subtract = jax.jit(lambda x, m: x - m)
exp = jax.jit(jnp.exp)
row_sum = jax.jit(lambda t: jnp.sum(t, axis=1, keepdims=True))
divide = jax.jit(lambda t, s: t / s)
normalize = jax.jit(lambda t, v: t * jax.lax.rsqrt(v + common.EPS))
multiply = jax.jit(lambda t, g: t * g)
add = jax.jit(lambda t, b: t + b)


def softmax_unfused(x):
    t = exp(subtract(x, row_max(x)))
    return divide(t, row_sum(t))


@jax.jit
def softmax_fused(x):
    t = jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
    return t / jnp.sum(t, axis=1, keepdims=True)


def layernorm_unfused(x, gamma, beta):
    t = subtract(x, row_mean(x))
    t = normalize(t, row_mean_square(t))
    return add(multiply(t, gamma), beta)


@jax.jit
def layernorm_fused(x, gamma, beta):
    t = x - jnp.mean(x, axis=1, keepdims=True)
    t = t * jax.lax.rsqrt(jnp.mean(jnp.square(t), axis=1, keepdims=True) + common.EPS)
    return t * gamma + beta


def versions(op: str, x, dev):
    """(unfused, fused): functions of no arguments that return y."""
    if op == "softmax":
        return partial(softmax_unfused, x), partial(softmax_fused, x)
    gamma, beta = (jax.device_put(v, dev) for v in common.affine(x.shape[1]))
    return partial(layernorm_unfused, x, gamma, beta), partial(layernorm_fused, x, gamma, beta)


def main(argv=None) -> int:
    p = harness.parser("fused", "jax", "Fused vs unfused row softmax or layer norm with JAX.")
    common.add_op_option(p)
    p.add_argument("--rows", type=harness.positive_int, default=32768)
    p.add_argument("--cols", type=harness.positive_int, default=8192)
    args = p.parse_args(argv)
    dev = jc.device()

    x_host = np.random.default_rng(0).standard_normal((args.rows, args.cols), dtype=np.float32)
    x = jax.device_put(x_host, dev)
    unfused, fused = versions(args.op, x, dev)
    unfused_s = harness.median(harness.time_runs(lambda: unfused().block_until_ready(), args.repeat, args.warmup))
    fused_s = harness.median(harness.time_runs(lambda: fused().block_until_ready(), args.repeat, args.warmup))

    expected = common.expected(args.op, x_host)
    error = max(
        harness.relative_error(np.asarray(unfused()), expected),
        harness.relative_error(np.asarray(fused()), expected),
    )

    info = common.details(args.rows, args.cols, unfused_s, fused_s, op=args.op)
    return harness.finish(
        args,
        demo="fused",
        backend="jax",
        device_name=jc.name(dev),
        platform_name=dev.platform,
        params={"op": args.op, "rows": args.rows, "cols": args.cols, "dtype": "fp32"},
        achieved=info["fused_gb_s"],
        unit="gb_s",
        check_result=harness.check(error, 1e-5),
        software=harness.versions("jax", "jaxlib", "numpy"),
        command_line=harness.command(argv, __file__),
        details=info,
    )


if __name__ == "__main__":
    sys.exit(main())

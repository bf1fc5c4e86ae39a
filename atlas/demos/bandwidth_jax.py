"""Memory bandwidth with JAX (TPU, GPU or CPU): STREAM copy and triad.

copy:  c = a            2 arrays touched, 2 x 4 bytes per element
triad: a = b + s * c    3 arrays touched, 3 x 4 bytes per element

JAX arrays are immutable: each call writes a new output array, and XLA
compiles the triad into one fused kernel, so the bytes counted are the
bytes moved.

    python -m atlas.demos.bandwidth_jax --kernel triad --size 268435456
"""

import sys

import jax
import jax.numpy as jnp
import numpy as np

from atlas.demos import harness
from atlas.demos import jax_common as jc

ARRAYS_TOUCHED = {"copy": 2, "triad": 3}
SCALAR = 3.0


@jax.jit
def copy(a):
    return jnp.copy(a)


@jax.jit
def triad(b, c):
    return b + SCALAR * c


def main(argv=None) -> int:
    p = harness.parser("bandwidth", "jax", "STREAM copy/triad with JAX.")
    p.add_argument("--kernel", choices=tuple(ARRAYS_TOUCHED), default="triad")
    p.add_argument("--size", type=harness.positive_int, default=2**28, help="elements per array (float32)")
    args = p.parse_args(argv)
    dev = jc.device()

    n = args.size
    rng = np.random.default_rng(0)
    a, b, c = (jax.device_put(rng.random(n, dtype=np.float32), dev) for _ in range(3))

    if args.kernel == "copy":
        def run():
            return copy(a).block_until_ready()
        expected = np.asarray(a)
    else:
        def run():
            return triad(b, c).block_until_ready()
        expected = np.asarray(b, dtype=np.float64) + SCALAR * np.asarray(c, dtype=np.float64)

    times = harness.time_runs(run, args.repeat, args.warmup)
    seconds = harness.median(times)
    moved = ARRAYS_TOUCHED[args.kernel] * n * 4
    error = harness.relative_error(np.asarray(run()), expected)

    return harness.finish(
        args,
        demo="bandwidth",
        backend="jax",
        device_name=jc.name(dev),
        platform_name=dev.platform,
        params={"kernel": args.kernel, "size": n, "dtype": "fp32"},
        achieved=moved / seconds / 1e9,
        unit="gb_s",
        check_result=harness.check(error, 1e-6),
        software=harness.versions("jax", "jaxlib", "numpy"),
        command_line=harness.command(argv, __file__),
        details={"bytes_per_run": moved, "median_s": seconds, "best_s": min(times)},
    )


if __name__ == "__main__":
    sys.exit(main())

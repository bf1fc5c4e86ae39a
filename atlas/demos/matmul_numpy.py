"""Matrix multiplication on the CPU with NumPy (its BLAS library does the work).

C = A @ B with A of M x K and B of K x N takes 2 * M * N * K floating-point
operations (one multiply and one add per term). Achieved TFLOP/s is that
count over the median time, compared with the CPU's dense vector (SIMD) peak
at the same precision, if the data set has this CPU.

    python -m atlas.demos.matmul_numpy --precision fp32 --size 4096
"""

import sys

import numpy as np

from atlas.core.calculators.roofline import matmul_flops
from atlas.demos import devices, harness

DTYPES = {"fp32": np.float32, "fp64": np.float64}
CHECK_ROWS = 64  # rows of C compared with a float64 reference


def main(argv=None) -> int:
    p = harness.parser("matmul", "numpy", "Matrix multiplication with NumPy on the CPU.")
    p.add_argument("--precision", choices=tuple(DTYPES), default="fp32")
    p.add_argument("--size", type=harness.positive_int, default=4096, help="M = N = K")
    args = p.parse_args(argv)

    n, dtype = args.size, DTYPES[args.precision]
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (n, n)).astype(dtype)
    b = rng.uniform(-1, 1, (n, n)).astype(dtype)
    c = np.empty((n, n), dtype=dtype)

    times = harness.time_runs(lambda: np.matmul(a, b, out=c), args.repeat, args.warmup)
    seconds = harness.median(times)
    flops = matmul_flops(n, n, n)

    c.fill(np.nan)  # poison: every element must be written again
    np.matmul(a, b, out=c)
    rows = rng.choice(n, size=min(n, CHECK_ROWS), replace=False)
    reference = a[rows].astype(np.float64) @ b.astype(np.float64)
    error = harness.relative_error(c[rows], reference)

    return harness.finish(
        args,
        demo="matmul",
        backend="numpy",
        device_name=devices.cpu_name(),
        platform_name="cpu",
        params={"precision": args.precision, "size": n},
        achieved=flops / seconds / 1e12,
        unit="tflops",
        check_result=harness.check(error, harness.TOLERANCE[args.precision]),
        software=harness.versions("numpy"),
        command_line=harness.command(argv, __file__),
        details={"flops_per_run": flops, "median_s": seconds, "best_s": min(times)},
    )


if __name__ == "__main__":
    sys.exit(main())

"""Memory bandwidth on the CPU with NumPy: STREAM copy and triad.

copy:  c[i] = a[i]              2 arrays touched, 2 x 8 bytes per element
triad: a[i] = b[i] + s * c[i]   3 arrays touched, 3 x 8 bytes per element

Bytes are counted as STREAM counts them (each array read or written once;
the write-allocate read of the destination is not counted). Each array must
be far larger than the last-level cache, or the demo measures the cache.
NumPy computes the triad in two passes (s * c into a scratch array, then the
add), so it moves more bytes than it is credited with: expect less than copy.

    python -m atlas.demos.bandwidth_numpy --kernel triad --size 50000000
"""

import sys

import numpy as np

from atlas.demos import devices, harness

ARRAYS_TOUCHED = {"copy": 2, "triad": 3}


def main(argv=None) -> int:
    p = harness.parser("bandwidth", "numpy", "STREAM copy/triad with NumPy on the CPU.")
    p.add_argument("--kernel", choices=tuple(ARRAYS_TOUCHED), default="triad")
    p.add_argument("--size", type=harness.positive_int, default=50_000_000, help="elements per array (float64)")
    args = p.parse_args(argv)

    n, scalar = args.size, 3.0
    rng = np.random.default_rng(0)
    a, b, c = rng.random(n), rng.random(n), rng.random(n)
    scratch = np.empty(n)

    def copy():
        np.copyto(c, a)

    def triad():
        np.multiply(c, scalar, out=scratch)
        np.add(b, scratch, out=a)

    kernel = copy if args.kernel == "copy" else triad
    times = harness.time_runs(kernel, args.repeat, args.warmup)
    seconds = harness.median(times)
    moved = ARRAYS_TOUCHED[args.kernel] * n * a.itemsize

    expected = a.copy() if args.kernel == "copy" else b + scalar * c
    kernel()
    error = harness.relative_error(c if args.kernel == "copy" else a, expected)

    return harness.finish(
        args,
        demo="bandwidth",
        backend="numpy",
        device_name=devices.cpu_name(),
        platform_name="cpu",
        params={"kernel": args.kernel, "size": n, "dtype": "fp64"},
        achieved=moved / seconds / 1e9,
        unit="gb_s",
        check_result=harness.check(error, 1e-12),
        software=harness.versions("numpy"),
        command_line=harness.command(argv, __file__),
        details={"bytes_per_run": moved, "median_s": seconds, "best_s": min(times)},
    )


if __name__ == "__main__":
    sys.exit(main())

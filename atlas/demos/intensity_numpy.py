"""Arithmetic-intensity sweep on the CPU with NumPy: trace the roofline.

Each element x[i] (float32, 4 bytes) is read once, put through FMAS steps of
y = y * a + b (2 operations each) and written once (4 bytes), so the kernel
does 2 * FMAS operations per 8 bytes: intensity = FMAS / 4 FLOP/byte.
At low intensity the time is the memory traffic; past the ridge point
(peak / bandwidth) it is the arithmetic.

NumPy cannot fuse the steps into one loop, so the array is processed in
chunks small enough to stay in the CPU's cache: only the first read and the
last write reach main memory. The in-cache passes still cost time, so NumPy
stays well below the roofline; the fused JAX, Triton and CUDA C versions
show the true shape.

    python -m atlas.demos.intensity_numpy --size 20000000 --fmas 1,4,16,64,256
"""

import sys

import numpy as np

from atlas.demos import devices, harness
from atlas.demos import intensity_common as common

CHUNK = 32_768  # elements per chunk (128 KiB of float32): stays in L2


def fma_chain(x, out, fmas):
    for start in range(0, x.size, CHUNK):
        y = out[start : start + CHUNK]
        np.multiply(x[start : start + CHUNK], common.A, out=y)
        np.add(y, common.B, out=y)
        for _ in range(fmas - 1):
            np.multiply(y, common.A, out=y)
            np.add(y, common.B, out=y)


def main(argv=None) -> int:
    p = harness.parser("intensity", "numpy", "Arithmetic-intensity sweep with NumPy on the CPU.")
    p.add_argument("--size", type=harness.positive_int, default=20_000_000, help="elements (float32)")
    p.add_argument("--fmas", type=common.fma_list, default=common.DEFAULT_FMAS, help="comma-separated FMAs per element")
    args = p.parse_args(argv)

    x = np.random.default_rng(0).uniform(-1, 1, args.size).astype(np.float32)
    out = np.empty_like(x)
    points, worst = [], 0.0
    tolerance = common.tolerance(max(args.fmas))
    for fmas in args.fmas:
        times = harness.time_runs(lambda k=fmas: fma_chain(x, out, k), args.repeat, args.warmup)
        points.append(common.point(fmas, args.size, harness.median(times)))
        out.fill(np.nan)
        fma_chain(x, out, fmas)
        worst = max(worst, harness.relative_error(out, common.reference(x, fmas)))

    best = max(points, key=lambda pt: pt["achieved_tflops"])
    return harness.finish(
        args,
        demo="intensity",
        backend="numpy",
        device_name=devices.cpu_name(),
        platform_name="cpu",
        params={"precision": "fp32", "size": args.size, "fmas": args.fmas},
        achieved=best["achieved_tflops"],
        unit="tflops",
        check_result=harness.check(worst, tolerance),
        software=harness.versions("numpy"),
        command_line=harness.command(argv, __file__),
        details={"points": points},
    )


if __name__ == "__main__":
    sys.exit(main())

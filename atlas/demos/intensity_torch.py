"""Arithmetic-intensity sweep with PyTorch: trace the roofline.

Each float32 element is read once, put through FMAS steps of y = y * a + b
and written once: 2 * FMAS operations per 8 bytes (see
atlas/demos/intensity_common.py). On CUDA the chain is compiled by
torch.compile into ONE kernel that keeps y in registers, so the memory
traffic stays 8 bytes per element while the arithmetic grows: below the
ridge point the time is flat (memory-bound), above it it grows with FMAS.
Eager mode (the default off CUDA, or --mode eager) runs one operation at a
time on cache-sized chunks instead, like the NumPy version.

    python -m atlas.demos.intensity_torch --size 268435456 --fmas 1,4,16,64,256
"""

import sys

import torch

from atlas.demos import harness
from atlas.demos import intensity_common as common
from atlas.demos import torch_common as tc

CHUNK = 32_768  # elements per chunk in eager mode (128 KiB of float32)


def chain(x, fmas: int):
    y = x * common.A + common.B
    for _ in range(fmas - 1):
        y = y * common.A + common.B
    return y


def eager_chunked(x, out, fmas: int):
    for start in range(0, x.numel(), CHUNK):
        y = out[start : start + CHUNK]
        torch.mul(x[start : start + CHUNK], common.A, out=y)
        y.add_(common.B)
        for _ in range(fmas - 1):
            y.mul_(common.A).add_(common.B)


def main(argv=None) -> int:
    p = harness.parser("intensity", "torch", "Arithmetic-intensity sweep with PyTorch.")
    p.add_argument("--size", type=harness.positive_int, default=2**28, help="elements (float32)")
    p.add_argument("--fmas", type=common.fma_list, default=common.DEFAULT_FMAS, help="comma-separated FMAs per element")
    p.add_argument("--mode", choices=("auto", "compile", "eager"), default="auto", help="auto: compile on CUDA, eager elsewhere")
    tc.add_option(p)
    args = p.parse_args(argv)
    dev = tc.pick(args.on)
    mode = args.mode if args.mode != "auto" else ("compile" if dev.type == "cuda" else "eager")

    gen = torch.Generator(device="cpu").manual_seed(0)
    x = torch.empty(args.size).uniform_(-1, 1, generator=gen).to(dev)
    out = torch.empty_like(x)
    points, worst = [], 0.0
    for fmas in args.fmas:
        if mode == "compile":
            fused = torch.compile(lambda t, k=fmas: chain(t, k), dynamic=False)

            def run(f=fused):
                return f(x)  # one fused kernel; a fresh output each call
        else:

            def run(k=fmas):
                eager_chunked(x, out, k)
                return out

        times = harness.time_runs(run, args.repeat, args.warmup, sync=tc.sync(dev))
        points.append(common.point(fmas, args.size, harness.median(times)))
        out.fill_(float("nan"))
        result = run()
        worst = max(worst, harness.relative_error(result.cpu().numpy(), common.reference(x.cpu().numpy(), fmas)))

    best = max(points, key=lambda pt: pt["achieved_tflops"])
    return harness.finish(
        args,
        demo="intensity",
        backend="torch",
        device_name=tc.name(dev),
        platform_name=dev.type,
        params={"precision": "fp32", "size": args.size, "fmas": args.fmas, "mode": mode},
        achieved=best["achieved_tflops"],
        unit="tflops",
        check_result=harness.check(worst, common.tolerance(max(args.fmas))),
        software=harness.versions("torch", "numpy"),
        command_line=harness.command(argv, __file__),
        details={"points": points},
    )


if __name__ == "__main__":
    sys.exit(main())

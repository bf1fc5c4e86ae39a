"""Arithmetic-intensity sweep written in Triton (NVIDIA or AMD GPU).

Each program instance loads BLOCK float32 elements, runs FMAS steps of
y = y * a + b on them in registers, and stores the result: 8 bytes and
2 * FMAS operations per element (see atlas/demos/intensity_common.py). FMAS is a
compile-time constant, so each value gets its own compiled kernel with the
loop unrolled. Below the ridge point the time is the memory traffic; above
it the FMA units are the limit, and achieved TFLOP/s approaches the FP32
vector peak. Set TRITON_INTERPRET=1 to check it on the CPU.

    python -m atlas.demos.intensity_triton --size 268435456 --fmas 1,4,16,64,256
"""

import sys

import torch
import triton
import triton.language as tl

from atlas.demos import harness
from atlas.demos import intensity_common as common
from atlas.demos import triton_common as trc

BLOCK = 1024


@triton.jit
def fma_chain_kernel(x_ptr, y_ptr, n, a, b, FMAS: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    y = tl.load(x_ptr + offsets, mask=mask)
    for _ in tl.static_range(FMAS):
        y = y * a + b
    tl.store(y_ptr + offsets, y, mask=mask)


def main(argv=None) -> int:
    p = harness.parser("intensity", "triton", "Arithmetic-intensity sweep in Triton.")
    p.add_argument("--size", type=harness.positive_int, default=2**28, help="elements (float32)")
    p.add_argument("--fmas", type=common.fma_list, default=common.DEFAULT_FMAS, help="comma-separated FMAs per element")
    args = p.parse_args(argv)
    dev = trc.device()

    gen = torch.Generator(device="cpu").manual_seed(0)
    x = torch.empty(args.size).uniform_(-1, 1, generator=gen).to(dev)
    y = torch.empty_like(x)
    grid = (triton.cdiv(args.size, BLOCK),)
    points, worst = [], 0.0
    for fmas in args.fmas:
        def run(k=fmas):
            fma_chain_kernel[grid](x, y, args.size, common.A, common.B, FMAS=k, BLOCK=BLOCK)

        times = harness.time_runs(run, args.repeat, args.warmup, sync=trc.sync(dev))
        points.append(common.point(fmas, args.size, harness.median(times)))
        y.fill_(float("nan"))
        run()
        worst = max(worst, harness.relative_error(y.cpu().numpy(), common.reference(x.cpu().numpy(), fmas)))

    best = max(points, key=lambda pt: pt["achieved_tflops"])
    return harness.finish(
        args,
        demo="intensity",
        backend="triton",
        device_name=trc.name(dev),
        platform_name=trc.platform(dev),
        params={"precision": "fp32", "size": args.size, "fmas": args.fmas},
        achieved=best["achieved_tflops"],
        unit="tflops",
        check_result=harness.check(worst, common.tolerance(max(args.fmas))),
        software=harness.versions("triton", "torch", "numpy"),
        command_line=harness.command(argv, __file__),
        details={"points": points},
        notes=trc.notes(),
    )


if __name__ == "__main__":
    sys.exit(main())

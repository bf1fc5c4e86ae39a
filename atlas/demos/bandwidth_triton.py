"""Memory bandwidth with Triton (NVIDIA or AMD GPU): STREAM copy and triad.

copy:  c[i] = a[i]              2 x 4 bytes per element
triad: a[i] = b[i] + s * c[i]   3 x 4 bytes per element

Each program instance handles BLOCK consecutive elements; the loads and
stores are contiguous, so the hardware can coalesce them into wide memory
transactions. Set TRITON_INTERPRET=1 to run on the CPU (correctness only).

    python -m atlas.demos.bandwidth_triton --kernel triad --size 268435456
"""

import sys

import torch
import triton
import triton.language as tl

from atlas.demos import harness
from atlas.demos import triton_common as trc

ARRAYS_TOUCHED = {"copy": 2, "triad": 3}
BLOCK = 4096


@triton.jit
def copy_kernel(a_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(c_ptr + offsets, tl.load(a_ptr + offsets, mask=mask), mask=mask)


@triton.jit
def triad_kernel(a_ptr, b_ptr, c_ptr, scalar, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    b = tl.load(b_ptr + offsets, mask=mask)
    c = tl.load(c_ptr + offsets, mask=mask)
    tl.store(a_ptr + offsets, b + scalar * c, mask=mask)


def main(argv=None) -> int:
    p = harness.parser("bandwidth", "triton", "STREAM copy/triad with Triton.")
    p.add_argument("--kernel", choices=tuple(ARRAYS_TOUCHED), default="triad")
    p.add_argument("--size", type=harness.positive_int, default=2**28, help="elements per array (float32)")
    args = p.parse_args(argv)
    dev = trc.device()

    n, scalar = args.size, 3.0
    gen = torch.Generator(device="cpu").manual_seed(0)
    a, b, c = (torch.rand(n, generator=gen).to(dev) for _ in range(3))
    grid = (triton.cdiv(n, BLOCK),)

    if args.kernel == "copy":
        def run():
            copy_kernel[grid](a, c, n, BLOCK=BLOCK)
        out, target = c, a.cpu().double().numpy()
    else:
        def run():
            triad_kernel[grid](a, b, c, scalar, n, BLOCK=BLOCK)
        out, target = a, b.cpu().double().numpy() + scalar * c.cpu().double().numpy()

    times = harness.time_runs(run, args.repeat, args.warmup, sync=trc.sync(dev))
    seconds = harness.median(times)
    moved = ARRAYS_TOUCHED[args.kernel] * n * 4
    out.fill_(float("nan"))
    run()
    error = harness.relative_error(out.cpu().numpy(), target)

    return harness.finish(
        args,
        demo="bandwidth",
        backend="triton",
        device_name=trc.name(dev),
        platform_name=trc.platform(dev),
        params={"kernel": args.kernel, "size": n, "dtype": "fp32"},
        achieved=moved / seconds / 1e9,
        unit="gb_s",
        check_result=harness.check(error, 1e-6),
        software=harness.versions("triton", "torch", "numpy"),
        command_line=harness.command(argv, __file__),
        details={"bytes_per_run": moved, "median_s": seconds, "best_s": min(times)},
        notes=trc.notes(),
    )


if __name__ == "__main__":
    sys.exit(main())

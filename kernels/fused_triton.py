"""Fused row softmax written in Triton, against the unfused PyTorch sequence.

One program instance per row: it loads the whole row (BLOCK >= number of
columns, a power of two), subtracts the row maximum, exponentiates, divides
by the sum and stores the row. x is read once and y written once: 2 passes
over memory, against 8 for the five separate PyTorch operations of
kernels/fused_torch.py, which this demo times as the unfused baseline.
Set TRITON_INTERPRET=1 to check it on the CPU.

    python kernels/fused_triton.py --rows 32768 --cols 8192
"""

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
import triton
import triton.language as tl

from kernels import fused_common as common
from kernels import harness
from kernels import triton_common as trc
from kernels.fused_torch import softmax_unfused


@triton.jit
def softmax_kernel(x_ptr, y_ptr, cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    mask = offsets < cols
    x = tl.load(x_ptr + row * stride + offsets, mask=mask, other=-float("inf"))
    t = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * stride + offsets, t / tl.sum(t, axis=0), mask=mask)


def main(argv=None) -> int:
    p = harness.parser("fused", "triton", "Fused row softmax in Triton vs unfused PyTorch.")
    p.add_argument("--rows", type=harness.positive_int, default=32768)
    p.add_argument("--cols", type=harness.positive_int, default=8192)
    args = p.parse_args(argv)
    dev = trc.device()

    gen = torch.Generator(device="cpu").manual_seed(0)
    x = torch.randn(args.rows, args.cols, generator=gen).to(dev)
    t, y = torch.empty_like(x), torch.empty_like(x)
    block = triton.next_power_of_2(args.cols)
    warps = 4 if block <= 2048 else 8 if block <= 8192 else 16

    def fused():
        softmax_kernel[(args.rows,)](x, y, args.cols, x.stride(0), BLOCK=block, num_warps=warps)

    wait = trc.sync(dev)
    unfused_s = harness.median(harness.time_runs(lambda: softmax_unfused(x, t, y), args.repeat, args.warmup, sync=wait))
    fused_s = harness.median(harness.time_runs(fused, args.repeat, args.warmup, sync=wait))

    expected = common.reference(x.cpu().numpy())
    y.fill_(float("nan"))
    fused()
    error = harness.relative_error(y.cpu().numpy(), expected)

    info = common.details(args.rows, args.cols, unfused_s, fused_s)
    return harness.finish(
        args,
        demo="fused",
        backend="triton",
        device_name=trc.name(dev),
        platform_name=trc.platform(dev),
        params={"op": "softmax", "rows": args.rows, "cols": args.cols, "dtype": "fp32"},
        achieved=info["fused_gb_s"],
        unit="gb_s",
        check_result=harness.check(error, 1e-5),
        software=harness.versions("triton", "torch", "numpy"),
        command_line=harness.command(argv, __file__),
        details=info,
        notes=trc.notes(),
    )


if __name__ == "__main__":
    sys.exit(main())

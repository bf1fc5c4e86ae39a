"""Fused vs unfused row softmax with PyTorch (CUDA, Apple MPS or CPU).

Unfused: amax, subtract, exp, sum and divide as five separate operations,
each one kernel launch and one or two passes over the matrix in memory
(8 passes in all, see kernels/fused_common.py). Fused: torch.softmax, one
kernel that keeps each row on chip and moves 2 passes. The ratio of the two
times approaches the ratio of the traffic (4x) when both are memory-bound.

    python kernels/fused_torch.py --rows 32768 --cols 8192
"""

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from kernels import fused_common as common
from kernels import harness
from kernels import torch_common as tc


def softmax_unfused(x, t, y):
    m = torch.amax(x, dim=1, keepdim=True)
    torch.sub(x, m, out=t)
    torch.exp(t, out=t)
    s = torch.sum(t, dim=1, keepdim=True)
    torch.div(t, s, out=y)


def main(argv=None) -> int:
    p = harness.parser("fused", "torch", "Fused vs unfused row softmax with PyTorch.")
    p.add_argument("--rows", type=harness.positive_int, default=32768)
    p.add_argument("--cols", type=harness.positive_int, default=8192)
    tc.add_option(p)
    args = p.parse_args(argv)
    dev = tc.pick(args.on)

    gen = torch.Generator(device="cpu").manual_seed(0)
    x = torch.randn(args.rows, args.cols, generator=gen).to(dev)
    t, y = torch.empty_like(x), torch.empty_like(x)

    def fused_kernel():
        return torch.softmax(x, dim=1)

    wait = tc.sync(dev)
    unfused_s = harness.median(harness.time_runs(lambda: softmax_unfused(x, t, y), args.repeat, args.warmup, sync=wait))
    fused_s = harness.median(harness.time_runs(fused_kernel, args.repeat, args.warmup, sync=wait))

    expected = common.reference(x.cpu().numpy())
    y.fill_(float("nan"))
    softmax_unfused(x, t, y)
    error = harness.relative_error(y.cpu().numpy(), expected)
    error = max(error, harness.relative_error(fused_kernel().cpu().numpy(), expected))

    info = common.details(args.rows, args.cols, unfused_s, fused_s)
    return harness.finish(
        args,
        demo="fused",
        backend="torch",
        device_name=tc.name(dev),
        platform_name=dev.type,
        params={"op": "softmax", "rows": args.rows, "cols": args.cols, "dtype": "fp32"},
        achieved=info["fused_gb_s"],
        unit="gb_s",
        check_result=harness.check(error, 1e-5),
        software=harness.versions("torch", "numpy"),
        command_line=harness.command(argv, __file__),
        details=info,
    )


if __name__ == "__main__":
    sys.exit(main())

"""Fused row softmax or layer norm written in Triton, against the unfused PyTorch sequence.

One program instance per row: it loads the whole row (BLOCK >= number of
columns, a power of two), computes the operation on it and stores the row.
Softmax subtracts the row maximum, exponentiates and divides by the sum;
layer norm subtracts the row mean, divides by sqrt(variance + eps) and
applies gamma and beta. x is read once and y written once: 2 passes over
memory, against 8 (softmax) or 10 (layer norm) for the separate PyTorch
operations of atlas/demos/fused_torch.py, which this demo times as the unfused
baseline. Set TRITON_INTERPRET=1 to check it on the CPU.

    python -m atlas.demos.fused_triton --rows 32768 --cols 8192
    python -m atlas.demos.fused_triton --op layernorm --rows 32768 --cols 8192
"""

import sys

import torch
import triton
import triton.language as tl

from atlas.demos import fused_common as common
from atlas.demos import harness
from atlas.demos import triton_common as trc
from atlas.demos.fused_torch import affine, layernorm_unfused, softmax_unfused


@triton.jit
def softmax_kernel(x_ptr, y_ptr, cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    mask = offsets < cols
    x = tl.load(x_ptr + row * stride + offsets, mask=mask, other=-float("inf"))
    t = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * stride + offsets, t / tl.sum(t, axis=0), mask=mask)


@triton.jit
def layernorm_kernel(x_ptr, y_ptr, gamma_ptr, beta_ptr, cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    mask = offsets < cols
    x = tl.load(x_ptr + row * stride + offsets, mask=mask, other=0.0)
    t = tl.where(mask, x - tl.sum(x, axis=0) / cols, 0.0)  # padding stays 0 for the variance
    rstd = 1.0 / tl.sqrt(tl.sum(t * t, axis=0) / cols + eps)
    gamma = tl.load(gamma_ptr + offsets, mask=mask)
    beta = tl.load(beta_ptr + offsets, mask=mask)
    tl.store(y_ptr + row * stride + offsets, t * rstd * gamma + beta, mask=mask)


def launch(cols: int) -> tuple[int, int]:
    """(BLOCK, num_warps) for rows of ``cols`` float32 values: the whole row in one program."""
    block = triton.next_power_of_2(cols)
    return block, 4 if block <= 2048 else 8 if block <= 8192 else 16


def versions(op: str, x, t, y):
    """(unfused, fused): functions of no arguments that write y."""
    rows, cols = x.shape
    block, warps = launch(cols)
    if op == "softmax":
        return (
            lambda: softmax_unfused(x, t, y),
            lambda: softmax_kernel[(rows,)](x, y, cols, x.stride(0), BLOCK=block, num_warps=warps),
        )
    gamma, beta = affine(cols, x.device)
    return (
        lambda: layernorm_unfused(x, t, y, gamma, beta),
        lambda: layernorm_kernel[(rows,)](x, y, gamma, beta, cols, x.stride(0), common.EPS, BLOCK=block, num_warps=warps),
    )


def main(argv=None) -> int:
    p = harness.parser("fused", "triton", "Fused row softmax or layer norm in Triton vs unfused PyTorch.")
    common.add_op_option(p)
    p.add_argument("--rows", type=harness.positive_int, default=32768)
    p.add_argument("--cols", type=harness.positive_int, default=8192)
    args = p.parse_args(argv)
    dev = trc.device()

    gen = torch.Generator(device="cpu").manual_seed(0)
    x = torch.randn(args.rows, args.cols, generator=gen).to(dev)
    t, y = torch.empty_like(x), torch.empty_like(x)
    unfused, fused = versions(args.op, x, t, y)

    wait = trc.sync(dev)
    unfused_s = harness.median(harness.time_runs(unfused, args.repeat, args.warmup, sync=wait))
    fused_s = harness.median(harness.time_runs(fused, args.repeat, args.warmup, sync=wait))

    expected = common.expected(args.op, x.cpu().numpy())
    error = 0.0
    for version in (unfused, fused):
        y.fill_(float("nan"))
        version()
        error = max(error, harness.relative_error(y.cpu().numpy(), expected))

    info = common.details(args.rows, args.cols, unfused_s, fused_s, op=args.op)
    return harness.finish(
        args,
        demo="fused",
        backend="triton",
        device_name=trc.name(dev),
        platform_name=trc.platform(dev),
        params={"op": args.op, "rows": args.rows, "cols": args.cols, "dtype": "fp32"},
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

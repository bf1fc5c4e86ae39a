"""Fused vs unfused row softmax or layer norm with PyTorch (CUDA, Apple MPS or CPU).

Unfused: the steps of atlas/demos/fused_common.py's tables as separate PyTorch
operations, each one kernel launch and one or two passes over the matrix in
memory (8 passes for softmax, 10 for layer norm). Fused: PyTorch's own
kernel for the whole operation, torch.softmax or
torch.nn.functional.layer_norm. These are library-fused kernels, written by
the PyTorch developers, not by this demo (atlas/demos/fused_triton.py and
atlas/demos/fused_cuda.cu write their own); they keep each row on chip and move
2 passes. (On CUDA, layer_norm is one kernel when a float32 row's length is
a multiple of 4, as here; otherwise it runs a statistics kernel and an
output kernel, which read x twice.) The ratio of the two times approaches
the ratio of the traffic (4x for softmax, 5x for layer norm) when both are
memory-bound.

    python -m atlas.demos.fused_torch --rows 32768 --cols 8192
    python -m atlas.demos.fused_torch --op layernorm --rows 32768 --cols 8192
"""

import sys
from functools import partial

import torch

from atlas.demos import fused_common as common
from atlas.demos import harness
from atlas.demos import torch_common as tc


def softmax_unfused(x, t, y):
    m = torch.amax(x, dim=1, keepdim=True)
    torch.sub(x, m, out=t)
    torch.exp(t, out=t)
    s = torch.sum(t, dim=1, keepdim=True)
    torch.div(t, s, out=y)


def layernorm_unfused(x, t, y, gamma, beta):
    mu = torch.mean(x, dim=1, keepdim=True)
    torch.sub(x, mu, out=t)
    norm = torch.linalg.vector_norm(t, dim=1, keepdim=True)  # one read of t: sqrt(sum t^2)
    torch.mul(t, torch.rsqrt(norm * norm / x.shape[1] + common.EPS), out=t)
    torch.mul(t, gamma, out=t)
    torch.add(t, beta, out=y)


def affine(cols: int, dev: torch.device):
    """gamma and beta of atlas/demos/fused_common.py as tensors on ``dev``."""
    return tuple(torch.from_numpy(v).to(dev) for v in common.affine(cols))


def versions(op: str, x, t, y):
    """(unfused, fused): the unfused one writes y; the fused one returns its result."""
    if op == "softmax":
        return partial(softmax_unfused, x, t, y), partial(torch.softmax, x, dim=1)
    gamma, beta = affine(x.shape[1], x.device)
    unfused = partial(layernorm_unfused, x, t, y, gamma, beta)
    return unfused, partial(torch.nn.functional.layer_norm, x, (x.shape[1],), gamma, beta, common.EPS)


def main(argv=None) -> int:
    p = harness.parser("fused", "torch", "Fused vs unfused row softmax or layer norm with PyTorch.")
    common.add_op_option(p)
    p.add_argument("--rows", type=harness.positive_int, default=32768)
    p.add_argument("--cols", type=harness.positive_int, default=8192)
    tc.add_option(p)
    args = p.parse_args(argv)
    dev = tc.pick(args.on)

    gen = torch.Generator(device="cpu").manual_seed(0)
    x = torch.randn(args.rows, args.cols, generator=gen).to(dev)
    t, y = torch.empty_like(x), torch.empty_like(x)
    unfused, fused = versions(args.op, x, t, y)

    wait = tc.sync(dev)
    unfused_s = harness.median(harness.time_runs(unfused, args.repeat, args.warmup, sync=wait))
    fused_s = harness.median(harness.time_runs(fused, args.repeat, args.warmup, sync=wait))

    expected = common.expected(args.op, x.cpu().numpy())
    y.fill_(float("nan"))
    unfused()
    error = harness.relative_error(y.cpu().numpy(), expected)
    error = max(error, harness.relative_error(fused().cpu().numpy(), expected))

    info = common.details(args.rows, args.cols, unfused_s, fused_s, op=args.op)
    return harness.finish(
        args,
        demo="fused",
        backend="torch",
        device_name=tc.name(dev),
        platform_name=dev.type,
        params={"op": args.op, "rows": args.rows, "cols": args.cols, "dtype": "fp32"},
        achieved=info["fused_gb_s"],
        unit="gb_s",
        check_result=harness.check(error, 1e-5),
        software=harness.versions("torch", "numpy"),
        command_line=harness.command(argv, __file__),
        details=info,
    )


if __name__ == "__main__":
    sys.exit(main())

"""Matrix multiplication with PyTorch (CUDA, Apple MPS or CPU) at a chosen precision.

C = A @ B of size N x N x N takes 2 * N**3 operations. The library picks
the kernel: on NVIDIA GPUs cuBLAS runs BF16, FP16 and TF32 on the tensor
cores, FP32 on the CUDA cores (TF32 is switched off unless you ask for it),
and FP8 E4M3 (torch._scaled_mm, compute capability 8.9 and newer; on AMD
CDNA 3 and newer in the encoding the GPU takes) on the tensor cores with
BF16 output; a GPU without FP8 gets a message, not a traceback. The result is compared with the dense peak of that
precision: the matrix-unit figure for TF32/BF16/FP16/FP8, the vector-unit
figure for FP32/FP64.

    python -m atlas.demos.matmul_torch --precision bf16 --size 8192
"""

import sys

import torch

from atlas.core.calculators.roofline import matmul_flops
from atlas.demos import harness
from atlas.demos import torch_common as tc

DTYPES = {
    "fp64": torch.float64,
    "fp32": torch.float32,
    "tf32": torch.float32,
    "bf16": torch.bfloat16,
    "fp16": torch.float16,
    "fp8": None,  # per device: torch_common.fp8_dtype
}
CHECK_ROWS = 64  # rows of C compared with a float64 reference


def main(argv=None) -> int:
    p = harness.parser("matmul", "torch", "Matrix multiplication with PyTorch.")
    p.add_argument("--precision", choices=tuple(DTYPES), default="bf16")
    p.add_argument("--size", type=harness.positive_int, default=8192, help="M = N = K")
    tc.add_option(p)
    args = p.parse_args(argv)
    dev = tc.pick(args.on)
    torch.backends.cuda.matmul.allow_tf32 = args.precision == "tf32"

    n = args.size
    gen = torch.Generator(device="cpu").manual_seed(0)
    a32 = torch.empty(n, n).uniform_(-1, 1, generator=gen)
    b32 = torch.empty(n, n).uniform_(-1, 1, generator=gen)
    if args.precision == "fp8":
        fp8 = tc.fp8_dtype(dev)  # OCP E4M3, or FNUZ on AMD CDNA 3
        a = a32.to(fp8).to(dev)
        b = b32.to(fp8).t().contiguous().t().to(dev)  # _scaled_mm wants B column-major
        one = torch.tensor(1.0, device=dev)

        def run():
            return torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    else:
        a, b = a32.to(DTYPES[args.precision]).to(dev), b32.to(DTYPES[args.precision]).to(dev)
        c = torch.empty(n, n, dtype=a.dtype, device=dev)

        def run():
            return torch.matmul(a, b, out=c)

    times = harness.time_runs(run, args.repeat, args.warmup, sync=tc.sync(dev))
    seconds = harness.median(times)

    if args.precision != "fp8":
        c.fill_(float("nan"))
    out = run()
    rows = torch.randperm(n, generator=gen)[: min(n, CHECK_ROWS)]
    # Reference from the same rounded inputs, in float64 on the CPU.
    reference = a.cpu()[rows].double() @ b.cpu().double()
    error = harness.relative_error(out.cpu()[rows].double().numpy(), reference.numpy())

    return harness.finish(
        args,
        demo="matmul",
        backend="torch",
        device_name=tc.name(dev),
        platform_name=dev.type,
        params={"precision": args.precision, "size": n},
        achieved=matmul_flops(n, n, n) / seconds / 1e12,
        unit="tflops",
        check_result=harness.check(error, harness.TOLERANCE[args.precision]),
        software=harness.versions("torch", "numpy"),
        command_line=harness.command(argv, __file__),
        details={"flops_per_run": matmul_flops(n, n, n), "median_s": seconds, "best_s": min(times)},
    )


if __name__ == "__main__":
    sys.exit(main())

"""Matrix multiplication written in Triton (NVIDIA or AMD GPU).

Each program instance computes one BLOCK_M x BLOCK_N tile of C: it walks
along K, loads a BLOCK_M x BLOCK_K tile of A and a BLOCK_K x BLOCK_N tile of
B, and multiplies them with tl.dot, which Triton lowers to the tensor-core
(matrix-unit) instructions of the GPU. Accumulation is in FP32. For fp32 the
kernel asks tl.dot for IEEE FP32 (no TF32), for tf32 it allows TF32.
2 * N**3 operations per product; compared with the dense peak of the
precision. Set TRITON_INTERPRET=1 to check it on the CPU (small sizes).

For fp8 and tf32, B is stored K-major (column-major, as in Triton's own
matmul tutorial: "pre-transpose b for efficiency"). Hopper's wgmma reads
8-bit and 32-bit operands from shared memory only K-major; with a row-major
B, Triton loads every B tile into registers and writes it back transposed,
outside the asynchronous copy pipeline, which left the first H200 run of the
fp8 kernel at 177 TFLOP/s. The transposed copy is made once, before timing.

    python -m atlas.demos.matmul_triton --precision bf16 --size 8192
"""

import sys

import torch
import triton
import triton.language as tl
from triton.compiler.errors import CompilationError

from atlas.core.calculators.roofline import matmul_flops
from atlas.demos import harness
from atlas.demos import torch_common as tc
from atlas.demos import triton_common as trc

DTYPES = {"fp32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16, "fp8": None}  # fp8: per GPU
# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) on a GPU, by bytes per input element. The
# pipelined A and B tiles live in shared memory; these fit the smallest per-block limit among the
# data set's GPUs (64 KiB on AMD CDNA 3), which tests/test_kernels_triton_compile.py checks.
GPU_TILES = {4: (128, 128, 32, 8, 3), 2: (128, 128, 64, 8, 3), 1: (128, 128, 64, 8, 3)}
INTERPRETER_TILE = (32, 32, 32, 4, 1)
# Precisions whose B operand the demo stores K-major: wgmma transposes only 16-bit operands.
B_K_MAJOR = frozenset({"fp8", "tf32"})
CHECK_ROWS = 64


def gpu_tile(precision: str) -> tuple[int, int, int, int, int]:
    """The tile the demo launches on a GPU for ``precision``."""
    return GPU_TILES[{"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1}[precision]]


def b_operand(b: torch.Tensor, precision: str) -> torch.Tensor:
    """B as the kernel reads it: the same matrix, but for ``B_K_MAJOR`` precisions laid out
    K-major in memory (strides (1, K)), so each BLOCK_K x BLOCK_N tile is contiguous along K."""
    return b.t().contiguous().t() if precision in B_K_MAJOR else b


def matrix_unit_note(platform: str, capability: tuple[int, int] | None) -> str | None:
    """Where Triton's tl.dot does not reach the tensor cores, what that means for the result.

    Triton 3.x emits tensor-core instructions from compute capability 8.0 on; for
    Volta (7.0) it multiplies on the CUDA cores. tests/test_kernels_triton_compile.py
    checks both sides in the compiled code.
    """
    if platform == "cuda" and capability is not None and tuple(capability) < (8, 0):
        return (
            "Triton does not use Volta's tensor cores: tl.dot ran on the CUDA cores, so the share of the "
            "tensor-core peak is low by design; atlas/demos/matmul_torch.py (cuBLAS) uses them"
        )
    return None


@triton.jit
def matmul_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, INPUT_PRECISION: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_tile = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_tile, mask=(rm[:, None] < M) & (rk[None, :] + k < K), other=0.0)
        b = tl.load(b_tile, mask=(rk[:, None] + k < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)
        a_tile += BLOCK_K * stride_ak
        b_tile += BLOCK_K * stride_bk
    c = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


def main(argv=None) -> int:
    p = harness.parser("matmul", "triton", "Matrix multiplication in Triton.")
    p.add_argument("--precision", choices=tuple(DTYPES), default="bf16")
    p.add_argument("--size", type=harness.positive_int, default=8192, help="M = N = K")
    args = p.parse_args(argv)
    dev = trc.device()
    if trc.INTERPRET and args.precision == "bf16":
        # The interpreter multiplies bfloat16 bit patterns as integers (triton-lang/triton#11584).
        harness.unavailable("Triton's interpreter does not support bf16 tl.dot; check fp16 here and bf16 on a GPU")

    n = args.size
    dtype = tc.fp8_dtype(dev) if args.precision == "fp8" else DTYPES[args.precision]
    gen = torch.Generator(device="cpu").manual_seed(0)
    a = torch.empty(n, n).uniform_(-1, 1, generator=gen).to(dtype).to(dev)
    b = b_operand(torch.empty(n, n).uniform_(-1, 1, generator=gen).to(dtype).to(dev), args.precision)
    out_dtype = torch.bfloat16 if args.precision == "fp8" else dtype
    c = torch.empty(n, n, dtype=out_dtype, device=dev)
    bm, bn, bk, warps, stages = INTERPRETER_TILE if trc.INTERPRET else gpu_tile(args.precision)
    grid = (triton.cdiv(n, bm), triton.cdiv(n, bn))
    input_precision = "tf32" if args.precision == "tf32" else "ieee"

    def run():
        matmul_kernel[grid](
            a, b, c, n, n, n, *a.stride(), *b.stride(), *c.stride(),
            BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, INPUT_PRECISION=input_precision, num_warps=warps, num_stages=stages,
        )

    try:
        run()  # the first call compiles the kernel for this GPU
    except CompilationError as error:  # e.g. tf32 where the matrix units have no TF32 (AMD CDNA 2 and 4)
        harness.unavailable(f"Triton cannot compile the {args.precision} kernel for {trc.name(dev)}: {error.error_message}")
    times = harness.time_runs(run, args.repeat, args.warmup, sync=trc.sync(dev))
    seconds = harness.median(times)

    c.fill_(float("nan"))
    run()
    rows = torch.randperm(n, generator=gen)[: min(n, CHECK_ROWS)]
    reference = a.cpu()[rows].double() @ b.cpu().double()
    error = harness.relative_error(c.cpu()[rows].double().numpy(), reference.numpy())

    return harness.finish(
        args,
        demo="matmul",
        backend="triton",
        device_name=trc.name(dev),
        platform_name=trc.platform(dev),
        params={"precision": args.precision, "size": n},
        achieved=matmul_flops(n, n, n) / seconds / 1e12,
        unit="tflops",
        check_result=harness.check(error, harness.TOLERANCE[args.precision]),
        software=harness.versions("triton", "torch", "numpy"),
        command_line=harness.command(argv, __file__),
        details={"flops_per_run": matmul_flops(n, n, n), "median_s": seconds, "best_s": min(times), "tile": [bm, bn, bk], "b_layout": "k-major" if args.precision in B_K_MAJOR else "n-major"},
        notes=[*trc.notes(), *filter(None, [matrix_unit_note(dev.type, trc.capability(dev))])],
    )


if __name__ == "__main__":
    sys.exit(main())

"""The Triton demos compile for the data set's GPUs, with none of them here.

Triton's compiler runs on any machine: given a target (an NVIDIA compute
capability or an AMD gfx name) it lowers a kernel to PTX and a cubin, or to
AMDGCN and a code object, with the ptxas and linker its wheel ships. That
checks what the interpreter runs cannot: that every kernel, with the tiles
and block sizes the demos launch on a GPU, compiles for each architecture;
that it fits in the shared memory (LDS on AMD) one block may use there, or
the launch would fail; and that the matrix multiplication reaches the matrix
units whose peak the demo compares it with, instead of plain FMAs.

Shared memory per block: CUDA C++ Programming Guide, "Technical
Specifications per Compute Capability" (96 KB on 7.0, 163 KB on 8.0, 99 KB
on 8.6, 8.9 and 12.x, 227 KB on 9.0 and 10.x; 1 KB = 1,024 bytes). LDS:
AMD ROCm's "GPU specifications" (64 KiB on CDNA 2 and CDNA 3, 160 KiB on
CDNA 4); on RDNA 3 a workgroup may allocate 64 KiB of its WGP's LDS.
"""

import re

import pytest
from test_kernels_backends import need

from atlas.core.calculators import demo_peaks

pytestmark = pytest.mark.kernels

KIB = 1024
MATRIX_INSTRUCTION = {  # what tl.dot becomes on each family's matrix units
    "mma.sync": r"\bmma\.sync\.aligned\.",  # Ampere, Ada, consumer Blackwell (warp-level MMA)
    "wgmma": r"\bwgmma\.mma_async\.",  # Hopper (warpgroup MMA)
    "tcgen05": r"\btcgen05\.mma\.",  # data-centre Blackwell (fifth-generation tensor cores)
    "mfma": r"\bv_mfma_",  # AMD CDNA
    "wmma": r"\bv_wmma_",  # AMD RDNA 3
}
# name: (backend, arch, threads per warp/wavefront, bytes of shared memory one block may use,
#        the data set's devices with this architecture, the matrix instruction family or None)
GPUS = {
    "sm_70": ("cuda", 70, 32, 96 * KIB, ("v100-sxm2-32gb",), None),
    "sm_80": ("cuda", 80, 32, 163 * KIB, ("a100-sxm-80gb", "a100-pcie-40gb"), "mma.sync"),
    "sm_86": ("cuda", 86, 32, 99 * KIB, ("rtx-3090",), "mma.sync"),
    "sm_89": ("cuda", 89, 32, 99 * KIB, ("rtx-4060", "rtx-4090", "l4", "l40s"), "mma.sync"),
    "sm_90": ("cuda", 90, 32, 227 * KIB, ("h100-sxm", "h100-pcie", "h200-sxm"), "wgmma"),
    "sm_100": ("cuda", 100, 32, 227 * KIB, ("b200",), "tcgen05"),
    "sm_103": ("cuda", 103, 32, 227 * KIB, ("b300",), "tcgen05"),
    "sm_120": ("cuda", 120, 32, 99 * KIB, ("rtx-5090", "rtx-pro-6000-blackwell"), "mma.sync"),
    "sm_121": ("cuda", 121, 32, 99 * KIB, ("dgx-spark",), "mma.sync"),
    "gfx90a": ("hip", "gfx90a", 64, 64 * KIB, ("mi250x",), "mfma"),
    "gfx942": ("hip", "gfx942", 64, 64 * KIB, ("mi300x", "mi325x"), "mfma"),
    "gfx950": ("hip", "gfx950", 64, 160 * KIB, ("mi355x",), "mfma"),
    "gfx1100": ("hip", "gfx1100", 32, 64 * KIB, ("radeon-rx-7900-xtx",), "wmma"),
}
MATMUL_PRECISIONS = ("fp32", "tf32", "bf16", "fp16", "fp8")
MATMUL_SIGNATURE = dict.fromkeys(("M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn"), "i32")


def platform_arch(gpu: str):
    """What kernels.torch_common.fp8_dtype_for takes for this GPU."""
    backend, arch = GPUS[gpu][:2]
    return backend, (divmod(arch, 10) if backend == "cuda" else arch)


def compile_for(gpu: str, fn, signature: dict, constexprs: dict, num_warps: int = 4, num_stages: int = 3):
    """Compile ``fn`` for ``gpu`` (a key of GPUS); returns the compiled kernel (asm, metadata)."""
    need("triton")
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    backend, arch, warp_size = GPUS[gpu][:3]
    source = ASTSource(fn=fn, signature={**signature, **dict.fromkeys(constexprs, "constexpr")}, constexprs=constexprs)
    return triton.compile(source, target=GPUTarget(backend, arch, warp_size), options={"num_warps": num_warps, "num_stages": num_stages})


def machine_code(kernel) -> str:
    return kernel.asm["ptx"] if "ptx" in kernel.asm else kernel.asm["amdgcn"]


def assert_fits(kernel, gpu: str):
    limit = GPUS[gpu][3]
    assert kernel.metadata.shared <= limit, f"{gpu}: {kernel.metadata.shared} bytes of shared memory per block, at most {limit} allowed"


def triton_type(dtype) -> str:
    import torch

    return {
        torch.float32: "fp32",
        torch.bfloat16: "bf16",
        torch.float16: "fp16",
        torch.float8_e4m3fn: "fp8e4nv",
        torch.float8_e4m3fnuz: "fp8e4b8",
    }[dtype]


def matmul_input_type(gpu: str, precision: str):
    """The Triton type the matmul demo feeds tl.dot on ``gpu``, or None where it refuses the precision."""
    need("torch")
    from atlas.demos import matmul_triton, torch_common

    if precision == "fp8":
        dtype = torch_common.fp8_dtype_for(*platform_arch(gpu))
        return triton_type(dtype) if dtype is not None else None
    return triton_type(matmul_triton.DTYPES[precision])


def compile_matmul(gpu: str, precision: str):
    """The matmul kernel as the demo launches it on ``gpu``: its input type, GPU tile and TF32 switch."""
    from atlas.demos import matmul_triton

    dtype = matmul_input_type(gpu, precision)
    out = "bf16" if precision == "fp8" else dtype
    bm, bn, bk, warps, stages = matmul_triton.gpu_tile(precision)
    signature = {"a_ptr": f"*{dtype}", "b_ptr": f"*{dtype}", "c_ptr": f"*{out}", **MATMUL_SIGNATURE}
    constexprs = {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "INPUT_PRECISION": "tf32" if precision == "tf32" else "ieee"}
    return compile_for(gpu, matmul_triton.matmul_kernel, signature, constexprs, warps, stages)


@pytest.mark.parametrize("gpu", GPUS)
def test_each_architecture_belongs_to_data_set_devices(gpu, dataset):
    """The table above names real devices, each a GPU of the vendor its backend compiles for."""
    vendor = {"cuda": "NVIDIA", "hip": "AMD"}[GPUS[gpu][0]]
    for device_id in GPUS[gpu][4]:
        device = dataset.devices[device_id]
        assert (device["kind"], device["vendor"]) == ("gpu", vendor), device_id


@pytest.mark.parametrize(
    "gpu, expected",
    [
        ("sm_70", None), ("sm_80", None), ("sm_86", None), ("sm_89", "fp8e4nv"), ("sm_90", "fp8e4nv"),
        ("sm_100", "fp8e4nv"), ("sm_120", "fp8e4nv"), ("gfx90a", None), ("gfx942", "fp8e4b8"),
        ("gfx950", "fp8e4nv"), ("gfx1100", None),
    ],
)
def test_fp8_encoding_per_architecture(gpu, expected):
    """OCP E4M3 on NVIDIA from 8.9 and on CDNA 4, FNUZ on CDNA 3, nothing on older GPUs and RDNA 3."""
    assert matmul_input_type(gpu, "fp8") == expected


def test_fp8_encoding_and_the_architecture_names_runtimes_report():
    """ROCm reports the gfx name with feature flags, JAX the compute capability as text."""
    from atlas.demos import fp8

    assert fp8.encoding("hip", "gfx942:sramecc+:xnack-") == "e4m3fnuz"
    assert fp8.encoding("hip", "gfx1100") is None and fp8.encoding("cpu", None) == "e4m3fn"
    assert fp8.parse_arch("8.9") == ("cuda", (8, 9)) and fp8.encoding(*fp8.parse_arch("8.9")) == "e4m3fn"
    assert fp8.parse_arch("12.0") == ("cuda", (12, 0)) and fp8.parse_arch("gfx950") == ("hip", "gfx950")
    assert fp8.parse_arch("") is None and fp8.parse_arch("TPU v5 lite") is None


class FakeJaxDevice:
    def __init__(self, platform, compute_capability=None, device_kind="GPU"):
        self.platform, self.device_kind = platform, device_kind
        if compute_capability is not None:
            self.compute_capability = compute_capability


@pytest.mark.parametrize(
    "device, expected",
    [
        (FakeJaxDevice("gpu", "9.0"), "float8_e4m3fn"),
        (FakeJaxDevice("gpu", "gfx942"), "float8_e4m3fnuz"),
        (FakeJaxDevice("gpu"), "float8_e4m3fn"),  # an older jaxlib without the attribute: XLA decides
        (FakeJaxDevice("tpu", device_kind="TPU7x"), "float8_e4m3fn"),
    ],
)
def test_jax_demo_picks_the_fp8_type_per_device(device, expected):
    need("jax")
    from atlas.demos import jax_common

    assert jax_common.fp8_dtype(device).__name__ == expected


def test_jax_demo_refuses_fp8_on_a_gpu_without_it(capsys):
    need("jax")
    from atlas.demos import jax_common

    with pytest.raises(SystemExit) as stop:
        jax_common.fp8_dtype(FakeJaxDevice("gpu", "8.0", device_kind="NVIDIA A100-SXM4-80GB"))
    assert stop.value.code == 3
    assert "NVIDIA A100-SXM4-80GB: this GPU has no FP8 matrix unit" in capsys.readouterr().err


@pytest.mark.parametrize("gpu", GPUS)
def test_matmul_compiles_fits_and_uses_the_matrix_units_it_is_compared_with(gpu, dataset):
    """For every precision the demo runs on this GPU: it compiles with the demo's GPU tile, fits in
    shared memory, and where the data set gives a matrix-unit peak of that precision (the figure the
    demo divides by), the code contains the matrix instruction — except on Volta, where Triton emits
    none and the demo says so in a note."""
    need("triton")
    from triton.compiler.errors import CompilationError

    from atlas.demos import matmul_triton

    family = GPUS[gpu][5]
    compared_with_matrix_unit = {
        precision: any(
            (found := demo_peaks.peak(dataset.devices[d], "matmul", precision)) and found["field"].startswith(f"{precision}.matrix.")
            for d in GPUS[gpu][4]
        )
        for precision in MATMUL_PRECISIONS
    }
    compiled = {}
    for precision in MATMUL_PRECISIONS:
        dtype = matmul_input_type(gpu, precision)
        if dtype is None:
            assert not compared_with_matrix_unit[precision], f"{gpu}: the data set has a {precision} matrix peak the demo refuses to run"
            continue
        try:
            kernel = compile_matmul(gpu, precision)
        except CompilationError as error:
            # The demo stops with Triton's reason (exit 3); only right where the GPU has no such matrix mode.
            assert precision == "tf32" and not compared_with_matrix_unit[precision], f"{gpu} {precision}: {error.error_message}"
            compiled[precision] = None
            continue
        assert_fits(kernel, gpu)
        compiled[precision] = machine_code(kernel)
        if compared_with_matrix_unit[precision] and family is not None:
            assert re.search(MATRIX_INSTRUCTION[family], compiled[precision]), f"{gpu} {precision}: no {family} instruction"
    if family is None:  # Volta: the note's premise, and the note
        assert not any(code and re.search(MATRIX_INSTRUCTION["mma.sync"], code) for code in compiled.values())
        assert "CUDA cores" in matmul_triton.matrix_unit_note("cuda", divmod(GPUS[gpu][1], 10))
    else:
        assert matmul_triton.matrix_unit_note(GPUS[gpu][0], divmod(GPUS[gpu][1], 10) if GPUS[gpu][0] == "cuda" else None) is None
    if GPUS[gpu][0] == "cuda":  # NVIDIA's plain FP32 is compared with the CUDA cores' peak: no tensor-core code
        assert not re.search("|".join(MATRIX_INSTRUCTION.values()), compiled["fp32"])


def test_the_known_cases_per_architecture():
    """Spot checks of the compiled instructions, so the table above cannot drift silently."""
    need("triton")

    def code(gpu, precision):
        return machine_code(compile_matmul(gpu, precision))

    assert re.search(r"wgmma\.mma_async\.\S*\.bf16\.bf16", code("sm_90", "bf16"))  # H100/H200: BF16 warpgroup MMA
    assert re.search(r"wgmma\.mma_async\.\S*\.e4m3\.e4m3", code("sm_90", "fp8"))
    assert re.search(r"mma\.sync\.aligned\.m16n8k32\.\S*\.e4m3\.e4m3", code("sm_89", "fp8"))  # Ada: FP8 mma.sync
    assert re.search(r"mma\.sync\.aligned\.m16n8k8\.\S*\.tf32\.tf32", code("sm_80", "tf32"))  # A100: TF32
    assert re.search(r"tcgen05\.mma\.\S*kind::f8f6f4", code("sm_100", "fp8"))  # B200
    assert re.search(r"v_mfma_f32_\w*_fp8_fp8", code("gfx942", "fp8"))  # MI300X: FNUZ FP8 MFMA, not FP16
    assert re.search(r"v_mfma_f32_\w*_xf32", code("gfx942", "tf32"))  # CDNA 3's XF32


@pytest.mark.parametrize("gpu", GPUS)
def test_memory_kernels_compile_and_fit(gpu):
    """Bandwidth (copy, triad), intensity (FMA chain, the deepest default step) and fused (softmax,
    layer norm at the default and a wide row), each with the launch configuration its demo uses."""
    need("triton")
    from atlas.demos import bandwidth_triton, fused_triton, intensity_common, intensity_triton

    f32 = "*fp32"
    kernels = [
        (bandwidth_triton.copy_kernel, {"a_ptr": f32, "c_ptr": f32, "n": "i32"}, {"BLOCK": bandwidth_triton.BLOCK}, 4),
        (bandwidth_triton.triad_kernel, {"a_ptr": f32, "b_ptr": f32, "c_ptr": f32, "scalar": "fp32", "n": "i32"}, {"BLOCK": bandwidth_triton.BLOCK}, 4),
        (
            intensity_triton.fma_chain_kernel,
            {"x_ptr": f32, "y_ptr": f32, "n": "i32", "a": "fp32", "b": "fp32"},
            {"FMAS": max(intensity_common.DEFAULT_FMAS), "BLOCK": intensity_triton.BLOCK},
            4,
        ),
    ]
    for cols in (8192, 65536):  # the default row, and one that needs 16 warps
        block, warps = fused_triton.launch(cols)
        kernels.append((fused_triton.softmax_kernel, {"x_ptr": f32, "y_ptr": f32, "cols": "i32", "stride": "i32"}, {"BLOCK": block}, warps))
        kernels.append(
            (
                fused_triton.layernorm_kernel,
                {"x_ptr": f32, "y_ptr": f32, "gamma_ptr": f32, "beta_ptr": f32, "cols": "i32", "stride": "i32", "eps": "fp32"},
                {"BLOCK": block},
                warps,
            )
        )
    for fn, signature, constexprs, warps in kernels:
        kernel = compile_for(gpu, fn, signature, constexprs, warps)
        assert_fits(kernel, gpu)
        assert kernel.asm["cubin" if GPUS[gpu][0] == "cuda" else "hsaco"], f"{gpu}: {fn.__name__} produced no machine code"


def compile_matmul_as_launched(gpu: str, precision: str, b_k_major: bool):
    """The matmul kernel as a launch on a GPU specialises it: unit strides become constants and the
    pointers and sizes (8192, 16-byte-aligned allocations) are known to be divisible by 16, which is what
    lets Triton pipeline the tile loads with asynchronous copies. B is K-major (strides (1, K)) or
    N-major (strides (N, 1))."""
    from atlas.demos import matmul_triton

    dtype = matmul_input_type(gpu, precision)
    out = "bf16" if precision == "fp8" else dtype
    bm, bn, bk, warps, stages = matmul_triton.gpu_tile(precision)
    unit = ("stride_ak", "stride_cn", "stride_bk" if b_k_major else "stride_bn")
    signature = {"a_ptr": f"*{dtype}", "b_ptr": f"*{dtype}", "c_ptr": f"*{out}", **MATMUL_SIGNATURE}
    signature.update(dict.fromkeys(unit, "constexpr"))
    constexprs = {**dict.fromkeys(unit, 1), "BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "INPUT_PRECISION": "ieee"}
    names = list(signature) + [k for k in constexprs if k not in signature]
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n, t in signature.items() if t != "constexpr"}
    need("triton")
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    backend, arch, warp_size = GPUS[gpu][:3]
    source = ASTSource(fn=matmul_triton.matmul_kernel, signature={**signature, **dict.fromkeys(constexprs, "constexpr")}, constexprs=constexprs, attrs=attrs)
    return triton.compile(source, target=GPUTarget(backend, arch, warp_size), options={"num_warps": warps, "num_stages": stages})


def test_fp8_on_hopper_needs_b_k_major_to_pipeline_both_operands():
    """Hopper's wgmma reads 8-bit operands from shared memory only K-major. With a row-major (N-major) B,
    Triton loads each B tile synchronously into registers and stores it transposed (a local_alloc inside
    the loop): only A is copied asynchronously, and the first H200 run reached 177 TFLOP/s, 9 % of the
    dense FP8 peak. With B K-major — what the demo now passes for fp8 — both operands go through the
    3-stage cp.async pipeline and there is no synchronous global load left in the loop."""
    from atlas.demos import matmul_triton

    assert matmul_triton.B_K_MAJOR == {"fp8", "tf32"}
    stages = matmul_triton.gpu_tile("fp8")[4]
    n_major = compile_matmul_as_launched("sm_90", "fp8", b_k_major=False)
    k_major = compile_matmul_as_launched("sm_90", "fp8", b_k_major=True)
    count = lambda kernel, pattern: len(re.findall(pattern, kernel.asm["ttgir"]))  # noqa: E731
    assert count(n_major, r"ttg\.async_copy_global_to_local") == stages  # A only
    assert count(n_major, r"= tt\.load %b") == 1 and count(n_major, r"ttg\.local_alloc %b") == 1
    assert count(k_major, r"ttg\.async_copy_global_to_local") == 2 * stages  # A and B
    assert count(k_major, r"= tt\.load ") == 0
    assert re.search(r"wgmma\.mma_async\.\S*\.e4m3\.e4m3", k_major.asm["ptx"])
    # Shared memory: 3 stages of a 128 x 64 A tile and a 64 x 128 B tile, one byte each.
    assert k_major.metadata.shared == stages * (128 * 64 + 64 * 128)


def test_b_operand_is_the_same_matrix_k_major():
    need("torch")
    import torch

    from atlas.demos import matmul_triton

    b = torch.arange(12.0).reshape(3, 4)
    k_major = matmul_triton.b_operand(b, "fp8")
    assert torch.equal(k_major, b) and k_major.stride() == (1, 3)
    assert matmul_triton.b_operand(b, "bf16").stride() == (4, 1)

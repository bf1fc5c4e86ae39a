"""Inference engines: which one a device runs by default, which device class it falls in, which peak its kernels use.

The speed model (``calculators.speed_model``) fits one set of efficiencies
per engine and per engine and device class, so two things must be decided the
same way everywhere — in the fit, the CLI, the build and the browser:

- ``device_class(device)``: a coarse group of devices whose kernels behave
  alike (GeForce/workstation NVIDIA cards, NVIDIA data-centre GPUs, Radeon,
  Instinct, Apple GPUs, Intel GPUs, unified-memory PCs, other accelerators);
- ``compute_precisions(engine, device, weights)``: the precisions whose peak
  the engine's matrix products are measured against, most likely first. For
  llama.cpp on CUDA and ROCm that depends on the weight format: its block
  quants (K-quants, legacy quants, i-quants, MXFP4) run through the MMQ
  kernels, which quantise the activations to 8 bits and multiply in INT8
  (int8 tensor-core MMA from Turing on, WMMA/MFMA on AMD, DP4A on older
  cards), so the INT8 matrix rate; F16 weights run through cuBLAS with FP16
  compute, which GeForce cards execute at twice their FP32-accumulate rate
  (``accumulate``); BF16 weights run through cuBLAS with FP32 compute, the
  FP32-accumulate BF16 rate that GeForce cards halve and workstation cards do
  not. On Metal (and in MLX) every format is dequantised to 16 bits.
  vLLM, SGLang and TensorRT-LLM run FP8 and FP4 checkpoints on FP8/FP4 tensor
  cores where the GPU has them and 16-bit matrix products for weight-only
  formats (GPTQ/AWQ Marlin kernels).

Plain values in, plain values out; standard library only.
"""

from __future__ import annotations

ENGINES = ("llama.cpp", "vllm", "sglang", "tensorrt-llm", "mlx", "transformers")
SPLITS = ("none", "layer", "tensor")

DEVICE_CLASSES = (
    "nvidia-geforce",  # GeForce and RTX workstation cards, GDDR memory
    "nvidia-datacenter",  # HBM data-centre GPUs and PCIe data-centre cards
    "nvidia-unified",  # DGX Spark, Jetson: LPDDR shared with the CPU
    "amd-radeon",
    "amd-instinct",
    "amd-unified",  # Ryzen AI Max (Strix Halo)
    "apple",
    "intel-gpu",
    "accelerator",  # TPUs, Trainium, Gaudi, Tenstorrent, Groq, Cerebras, ...
    "cpu",
)

# Formats whose weights llama.cpp keeps in its own block-quantised types (GGUF).
_FLOAT_FORMATS = ("fp32", "bf16", "fp16")


def _memory_type(device: dict) -> str:
    return str(device.get("memory", {}).get("type", "")).upper()


def device_class(device: dict) -> str:
    """The device class the speed model's efficiencies are fitted per (one of ``DEVICE_CLASSES``)."""
    vendor = str(device.get("vendor", "")).lower()
    kind = device.get("kind")
    segment = device.get("segment")
    memory = _memory_type(device)
    if kind == "cpu":
        return "cpu"
    if kind != "gpu":
        return "accelerator"
    if vendor == "apple":
        return "apple"
    if vendor == "nvidia":
        if memory.startswith("LPDDR"):
            return "nvidia-unified"
        return "nvidia-datacenter" if segment in ("datacenter", "cloud-only") else "nvidia-geforce"
    if vendor == "amd":
        if memory.startswith("LPDDR"):
            return "amd-unified"
        return "amd-instinct" if segment in ("datacenter", "cloud-only") else "amd-radeon"
    if vendor == "intel":
        return "intel-gpu"
    return "accelerator"


def default_engine(device: dict) -> str:
    """The engine a reader of this device most likely runs: llama.cpp on desktops, Macs and edge boxes, vLLM in data centres."""
    cls = device_class(device)
    if cls in ("nvidia-datacenter", "amd-instinct", "accelerator"):
        return "vllm"
    return "llama.cpp"


def backend(engine: str, device: dict) -> str:
    """The GPU API the engine drives this device through (cuda, rocm, metal, vulkan, sycl, other)."""
    cls = device_class(device)
    if cls == "apple":
        return "metal"
    if cls.startswith("nvidia"):
        return "cuda"
    if cls.startswith("amd"):
        return "rocm"
    if cls == "intel-gpu":
        return "sycl"
    return "other"


def is_gguf(weights: str) -> bool:
    """llama.cpp's own block types (q4_k_m, iq4_xs, q8_0, ...) rather than a float or server format."""
    return weights.startswith(("q", "iq")) or weights in ("tq1_0", "tq2_0")


def weight_family(weights: str) -> str:
    """The family whose kernels a weight format runs through: float, fp8, fp4, int8, int4 or gguf."""
    if weights in _FLOAT_FORMATS:
        return "float"
    if weights.startswith("fp8"):
        return "fp8"
    if weights in ("mxfp4", "nvfp4"):
        return "fp4"
    if weights in ("int8", "mlx_8bit"):
        return "int8"
    if is_gguf(weights):
        return "gguf"
    return "int4"


# llama.cpp's MMQ kernels: the block-quantised GGUF types multiplied in INT8 against activations quantised to
# q8_1. ``ggml_cuda_should_use_mmq`` (ggml/src/ggml-cuda/mmq.cu, https://github.com/ggml-org/llama.cpp/blob/
# master/ggml/src/ggml-cuda/mmq.cu) returns true for Q4_0..Q8_0, Q2_K..Q6_K, the IQ types and MXFP4 whenever
# ``turing_mma_available(cc)`` (int8 mma.sync, compute capability 7.5 and later), and on AMD GPUs with
# MFMA/WMMA; the kernels themselves (mmq.cuh, ``vec_dot_*_q8_1_mma`` / ``*_dp4a``) are integer dot products.
# Without int8 tensor cores (Pascal DP4A, Volta at large batches via cuBLAS FP16) the device states no INT8
# matrix figure and the FP16 one that follows in the chain is taken.
# F16 weights: ``ggml_cuda_op_mul_mat_cublas`` (ggml-cuda.cu) calls cublasGemmEx with CUBLAS_COMPUTE_16F on
# NVIDIA; BF16 weights: cublasGemmEx with CUDA_R_16BF and CUBLAS_COMPUTE_32F.
_LLAMA_CPP_MMQ_BACKENDS = ("cuda", "rocm")


def uses_mmq(engine: str, device: dict, weights: str) -> bool:
    """llama.cpp multiplies ``weights`` in INT8 (its MMQ kernels) on ``device``."""
    return (engine == "llama.cpp" and (is_gguf(weights) or weights == "mxfp4")
            and backend(engine, device) in _LLAMA_CPP_MMQ_BACKENDS)


def compute_precisions(engine: str, device: dict, weights: str) -> tuple[str, ...]:
    """Precisions the engine's matrix products run in for ``weights``, preferred first.

    The caller takes the first one the device has a matrix-unit figure for.
    """
    cls = device_class(device)
    if weights in _FLOAT_FORMATS:
        return (weights, "fp16", "bf16") if weights != "fp32" else ("fp32", "tf32")
    if uses_mmq(engine, device, weights):
        return ("int8", "fp16", "bf16")
    if engine == "llama.cpp":
        return ("fp16", "bf16")  # Metal, SYCL, Vulkan: dequantised to 16 bits
    if engine in ("mlx",) or cls == "apple":
        return ("fp16", "bf16")
    if weights in ("fp8", "fp8_block"):
        return ("fp8", "bf16", "fp16")
    if weights in ("mxfp4", "nvfp4"):
        return ("fp4", "fp8", "bf16", "fp16")
    if weights == "int8":
        return ("int8", "bf16", "fp16")
    return ("bf16", "fp16")  # weight-only int4 (GPTQ/AWQ/Marlin), nf4, GGUF in vLLM: 16-bit matrix products


def accumulate(engine: str, device: dict, weights: str) -> str | None:
    """The accumulator whose rate the engine's matrix products are measured against: llama.cpp runs F16 weights
    through cuBLAS with FP16 compute on NVIDIA GPUs, which GeForce cards execute at twice their FP32-accumulate
    rate; quantised weights that fall back to the FP16 figure (no INT8 matrix unit) are dequantised onto the same
    cuBLAS path. BF16 weights accumulate in FP32 (None: the stated figure)."""
    if engine == "llama.cpp" and (weights == "fp16" or is_gguf(weights) or weights == "mxfp4") \
            and device_class(device).startswith("nvidia"):
        return "fp16"
    return None


def link_class(device: dict) -> str:
    """How several of ``device`` talk to each other: nvlink, xgmi (AMD Infinity Fabric), network (Ethernet or
    InfiniBand between machines), thunderbolt (Macs, which have no peer link of their own), pcie or other."""
    name = str(device.get("interconnect", {}).get("name", "")).lower()
    if "nvlink" in name and "bridge" not in name:
        return "nvlink"
    if "infinity fabric" in name or "xgmi" in name:
        return "xgmi"
    if any(word in name for word in ("ethernet", "infiniband", "connectx")):
        return "network"
    if device_class(device) == "apple":
        return "thunderbolt"
    if device_class(device) in ("accelerator",):
        return "other"
    return "pcie"

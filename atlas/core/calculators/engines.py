"""Inference engines: which one a device runs by default, which device class it falls in, which peak its kernels use.

The speed model (``atlas.core.calculators.speed_model``) fits one set of efficiencies
per engine and per engine and device class, so two things must be decided the
same way everywhere — in the fit, the CLI, the build and the browser:

- ``device_class(device)``: a coarse group of devices whose kernels behave
  alike (GeForce/workstation NVIDIA cards, NVIDIA data-centre GPUs, Radeon,
  Instinct, Apple GPUs, Intel GPUs, unified-memory PCs, other accelerators);
- ``compute_precisions(engine, device, weights)``: the precisions whose peak
  the engine's matrix products are measured against, most likely first. For
  llama.cpp that is the 16-bit rate for every weight format, with FP16
  accumulate on NVIDIA GPUs (``accumulate``): its FP16 path runs cuBLAS with
  FP16 compute, and its quantised MMQ kernels (INT8 dot products of quantised
  weights and activations on recent builds, DP4A on older ones) reach a
  fraction of that rate that the fit learns per weight family and device
  class — the INT8 peak, which a data-centre GPU doubles, predicted their
  speed worse in cross-validation. vLLM, SGLang and TensorRT-LLM run FP8 and
  FP4 checkpoints on FP8/FP4 tensor cores where the GPU has them and 16-bit
  matrix products for weight-only formats (GPTQ/AWQ Marlin kernels); MLX and
  Metal use the GPU's 16-bit units.

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


def default_engine(device: dict, weights: str | None = None) -> str:
    """The engine a reader of this device most likely runs with ``weights``: the engine whose files the format is
    (a GGUF type: llama.cpp; an MLX format on a Mac: MLX), else llama.cpp on desktops, Macs and edge boxes and vLLM
    in data centres."""
    cls = device_class(device)
    if weights is not None and is_gguf(weights):
        return "llama.cpp"
    if weights is not None and weights.startswith("mlx_") and cls == "apple":
        return "mlx"
    if cls in ("nvidia-datacenter", "amd-instinct", "accelerator"):
        return "vllm"
    return "llama.cpp"


def runs_on(engine: str, device: dict) -> bool:
    """Whether ``engine`` runs on ``device`` at all: MLX only on Apple silicon (its Metal backend); the others on
    every device class the speed model knows."""
    return engine != "mlx" or device_class(device) == "apple"


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


def compute_precisions(engine: str, device: dict, weights: str) -> tuple[str, ...]:
    """Precisions the engine's matrix products run in for ``weights``, preferred first.

    The caller takes the first one the device has a matrix-unit figure for.
    """
    cls = device_class(device)
    if weights in _FLOAT_FORMATS:
        return (weights, "fp16", "bf16") if weights != "fp32" else ("fp32", "tf32")
    if engine == "llama.cpp":
        return ("fp16", "bf16")
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
    """The accumulator whose rate the engine's matrix products are measured against: llama.cpp runs FP16 weights
    through cuBLAS with FP16 compute on NVIDIA GPUs, which GeForce cards execute at twice their FP32-accumulate
    rate, and its quantised kernels are referred to the same rate."""
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

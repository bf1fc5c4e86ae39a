"""Every assumption the estimators make, with its value, unit and source.

This module is the one place for figures that are not device or model data:
bytes per weight of each storage format, optimiser state sizes, the activation
formula, efficiencies, the runtime overhead. Each ``Default`` names the
source it comes from and what that source says, so the in-page "How is this
calculated?" section can render this table as it is, and a reader can check
every figure with a pencil.

Units are in the names: ``_gib`` = 2^30 bytes, ``_bytes`` = bytes, ``bits``
= bits per stored weight, efficiencies are fractions of a device's peak
(0 < e <= 1).
"""

from __future__ import annotations

from dataclasses import dataclass

GIB = 2**30  # bytes
GB = 10**9  # bytes


@dataclass(frozen=True)
class Source:
    """Where a default comes from: a URL, a title and what it says (quoted or paraphrased closely)."""

    url: str
    title: str
    says: str


@dataclass(frozen=True)
class Default:
    """One assumption: its value, the unit of that value and its source."""

    key: str
    value: object
    unit: str
    source: Source
    note: str = ""


# --- Sources -----------------------------------------------------------------

LLAMA_CPP_QUANTIZE = Source(
    "https://github.com/ggml-org/llama.cpp/blob/master/tools/quantize/quantize.cpp",
    "llama.cpp, tools/quantize/quantize.cpp (QUANT_OPTIONS)",
    "File sizes of Llama-3-8B per quantisation type: Q2_K 2.96G, Q3_K_M 3.74G, Q4_0 4.34G, Q4_K_M 4.58G, "
    "Q5_K_M 5.33G, Q6_K 6.14G, Q8_0 7.96G (G = GiB, 8,030,261,248 parameters).",
)
LLAMA_CPP_BLOCKS = Source(
    "https://github.com/ggml-org/llama.cpp/blob/master/ggml/src/ggml-common.h",
    "ggml, ggml-common.h (block_q8_0, block_q4_0)",
    "block_q8_0 holds 32 int8 values and one fp16 scale (34 bytes per 32 values); block_q4_0 holds 32 4-bit "
    "values and one fp16 scale (18 bytes per 32 values).",
)
QLORA = Source(
    "https://arxiv.org/abs/2305.14314",
    "Dettmers et al., QLoRA: Efficient Finetuning of Quantized LLMs (arXiv:2305.14314), section 3",
    "NF4 stores 4 bits per weight with one 32-bit absmax per block of 64; double quantisation stores that "
    "constant in 8 bits with a 32-bit second-level constant per 256 blocks, reducing the overhead from "
    "32/64 = 0.5 to 8/64 + 32/(64*256) = 0.127 bits per parameter. LoRA on all linear layers is needed to "
    "match full finetuning.",
)
GPTQ_AWQ = Source(
    "https://arxiv.org/abs/2306.00978",
    "Lin et al., AWQ: Activation-aware Weight Quantization (arXiv:2306.00978); GPTQ (arXiv:2210.17323)",
    "4-bit weights quantised in groups (group size 128 by default) with one fp16 scale and one 4-bit zero "
    "point per group; embeddings and the output head stay in fp16.",
)
TRANSFORMER_MATH = Source(
    "https://blog.eleuther.ai/transformer-math/",
    "Anthony, Biderman, Schoelkopf: Transformer Math 101 (EleutherAI blog, 2023)",
    "AdamW keeps 12 bytes/param (fp32 copy 4, momentum 4, variance 4); 8-bit optimisers such as bitsandbytes "
    "keep 6 bytes/param (fp32 copy 4, momentum 1, variance 1); mixed-precision weights and gradients take 2 "
    "bytes/param each. Training compute C = 6PD FLOPs (2PD forward, 4PD backward).",
)
ZERO = Source(
    "https://arxiv.org/abs/1910.02054",
    "Rajbhandari et al., ZeRO: Memory Optimizations Toward Training Trillion Parameter Models (arXiv:1910.02054)",
    "Mixed-precision Adam needs 2Ψ + 2Ψ + KΨ bytes with K = 12; stage 1 partitions the optimiser states, "
    "stage 2 also the gradients, stage 3 also the parameters over Nd data-parallel devices.",
)
KORTHIKANTI = Source(
    "https://arxiv.org/abs/2205.05198",
    "Korthikanti et al., Reducing Activation Recomputation in Large Transformer Models (arXiv:2205.05198)",
    "Activations per layer with 16-bit values: s*b*h*(34 + 5*a*s/h) bytes; with tensor and sequence "
    "parallelism over t devices everything divides by t; selective recomputation drops the 5*a*s/h attention "
    "term (as memory-efficient attention does); full recomputation keeps only 2*s*b*h bytes per layer. The "
    "cross-entropy loss keeps the logits in fp32, 4*s*b*v bytes.",
)
LLAMA3_PAPER = Source(
    "https://arxiv.org/abs/2407.21783",
    "Llama Team, The Llama 3 Herd of Models (arXiv:2407.21783), table 4",
    "Training Llama 3 405B on up to 16,384 H100 GPUs reached 38-43 % BF16 model FLOPs utilisation (MFU).",
)
LLAMA_CPP_BENCH_3090 = Source(
    "https://github.com/ggml-org/llama.cpp/pull/4766",
    "llama.cpp pull request 4766, benchmark table by J. Gäßler (RTX 3090)",
    "llama 7B F16 (12.55 GiB) tg128: 48.52 tokens/s on an RTX 3090, i.e. 48.52 x 13.48 GB = 654 GB/s "
    "read, 70 % of the card's 936 GB/s.",
)
LLAMA_CPP_UBATCH = Source(
    "https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md",
    "llama.cpp server README, option -ub/--ubatch-size",
    "physical maximum batch size (default: 512)",
)
PYTORCH_CONTEXT = Source(
    "https://vram.asmirnov.xyz",
    "A. Smirnov, VRAM calculator for transformers (notes on the CUDA context)",
    "When PyTorch uses CUDA for the first time, it allocates between 300 MiB and 2 GiB of VRAM.",
)
PEFT_LORA = Source(
    "https://huggingface.co/docs/peft/package_reference/lora",
    "Hugging Face PEFT, LoraConfig",
    "r (int) - LoRA attention dimension (the rank); default 8.",
)
VASWANI = Source(
    "https://arxiv.org/abs/1706.03762",
    "Vaswani et al., Attention Is All You Need (arXiv:1706.03762), section 3.3",
    "d_model = 512 and inner-layer dimensionality d_ff = 2048, i.e. 4 x d_model.",
)
ROOFLINE = Source(
    "https://jax-ml.github.io/scaling-book/roofline/",
    "Austin et al., How to Scale Your Model, part 1 (Rooflines)",
    "Time is bounded below by max(FLOPs / peak FLOP/s, bytes / bandwidth); the critical arithmetic intensity "
    "is peak FLOP/s divided by bandwidth.",
)
MOE_ROUTING = Source(
    "https://arxiv.org/abs/2401.04088",
    "Jiang et al., Mixtral of Experts (arXiv:2401.04088), section 2",
    "Each token is routed to the top 2 of 8 experts, so it uses 13B active of 47B parameters.",
)
DEEPSEEK_V2 = Source(
    "https://arxiv.org/abs/2405.04434",
    "DeepSeek-AI, DeepSeek-V2 (arXiv:2405.04434), section 2.1 and table 1",
    "MLA caches (d_c + d_h^R) * l elements per token: one compressed latent (d_c = 512 in DeepSeek-V3) and one "
    "shared RoPE key (d_h^R = 64) per layer, about what GQA with 2.25 groups would cache.",
)

# --- Weight storage formats ---------------------------------------------------

# Llama-3-8B, the reference model of llama.cpp's published GGUF sizes.
GGUF_REFERENCE_PARAMS = 8_030_261_248
# Published file sizes in GiB (LLAMA_CPP_QUANTIZE); bits per weight follow from them.
GGUF_REFERENCE_GIB = {
    "q8_0": 7.96,
    "q6_k": 6.14,
    "q5_k_m": 5.33,
    "q4_k_m": 4.58,
    "q4_0": 4.34,
    "q3_k_m": 3.74,
    "q2_k": 2.96,
}


def gguf_bits_per_weight(name: str) -> float:
    """Average bits per weight of a GGUF type, from llama.cpp's published Llama-3-8B file size."""
    return GGUF_REFERENCE_GIB[name] * GIB * 8 / GGUF_REFERENCE_PARAMS


@dataclass(frozen=True)
class WeightFormat:
    """How a weight format stores parameters.

    ``bits``: bits per quantised weight (before group/block overhead for int4
    and nf4, which depend on options); ``kind``: float, int, int4, nf4 or gguf;
    ``compute``: the precision the matrix units run for it (weight-only
    formats are dequantised to 16 bit); ``trainable``: full training can
    update weights stored this way; ``keeps_embeddings_16bit``: embeddings
    and output head stay at 16 bit (GGUF sizes already include them).
    """

    name: str
    bits: float
    kind: str
    compute: str
    trainable: bool
    keeps_embeddings_16bit: bool
    source: Source


_FLOAT_SOURCE = Source(
    "https://blog.eleuther.ai/transformer-math/",
    "Transformer Math 101 (EleutherAI), section Model Weights",
    "fp32: 4 bytes/param; fp16/bf16: 2 bytes/param; int8: 1 byte/param.",
)
_FP8_SOURCE = Source(
    "https://docs.nvidia.com/deeplearning/transformer-engine/user-guide/examples/fp8_primer.html",
    "NVIDIA Transformer Engine, Using FP8",
    "FP8 (E4M3/E5M2) stores one byte per value with a per-tensor scaling factor.",
)
_INT8_SOURCE = Source(
    "https://arxiv.org/abs/2208.07339",
    "Dettmers et al., LLM.int8() (arXiv:2208.07339)",
    "8-bit weights with vector-wise scaling constants; the output layer and embeddings are kept in 16 bit.",
)

WEIGHT_FORMATS: dict[str, WeightFormat] = {
    "fp32": WeightFormat("fp32", 32, "float", "fp32", True, False, _FLOAT_SOURCE),
    "bf16": WeightFormat("bf16", 16, "float", "bf16", True, False, _FLOAT_SOURCE),
    "fp16": WeightFormat("fp16", 16, "float", "fp16", True, False, _FLOAT_SOURCE),
    "fp8": WeightFormat("fp8", 8, "float", "fp8", False, True, _FP8_SOURCE),
    "int8": WeightFormat("int8", 8, "int", "int8", False, True, _INT8_SOURCE),
    "int4": WeightFormat("int4", 4, "int4", "fp16", False, True, GPTQ_AWQ),
    "nf4": WeightFormat("nf4", 4, "nf4", "bf16", False, True, QLORA),
    **{
        name: WeightFormat(name, gguf_bits_per_weight(name), "gguf", "fp16", False, False, LLAMA_CPP_QUANTIZE)
        for name in GGUF_REFERENCE_GIB
    },
}

INT4_SCALE_BITS = 16  # one fp16 scale per group (GPTQ_AWQ)
INT4_ZERO_BITS = 4  # one packed 4-bit zero point per group (GPTQ_AWQ)
NF4_BLOCK = 64  # weights per absmax block (QLORA)
NF4_ABSMAX_BITS = 32  # absmax without double quantisation
NF4_DQ_ABSMAX_BITS = 8  # absmax with double quantisation
NF4_DQ_BLOCK2 = 256  # first-level blocks per second-level fp32 constant


def int4_bits(group_size: int) -> float:
    """Bits per weight of GPTQ/AWQ int4 with one fp16 scale and one 4-bit zero per ``group_size`` weights."""
    return 4 + (INT4_SCALE_BITS + INT4_ZERO_BITS) / group_size


def nf4_bits(double_quant: bool) -> float:
    """Bits per weight of bitsandbytes NF4, with or without double quantisation (QLoRA, section 3)."""
    if double_quant:
        return 4 + NF4_DQ_ABSMAX_BITS / NF4_BLOCK + 32 / (NF4_BLOCK * NF4_DQ_BLOCK2)
    return 4 + NF4_ABSMAX_BITS / NF4_BLOCK


# --- KV-cache formats (bytes per cached element) ------------------------------

KV_FORMATS: dict[str, float] = {
    "fp16": 2.0,
    "bf16": 2.0,
    "fp8": 1.0,
    "q8_0": 34 / 32,
    "q4_0": 18 / 32,
}

# --- Training -----------------------------------------------------------------

GRADIENT_BYTES_16BIT = 2  # mixed precision keeps gradients in 16 bit (ZERO)
OPTIMIZERS = {
    # name: (bytes per trainable parameter for optimiser states, fp32 master copy included when weights are 16-bit)
    "adamw": Default("optimizer.adamw", 12, "bytes per trainable parameter", TRANSFORMER_MATH,
                     "fp32 master copy 4 + momentum 4 + variance 4; without a master copy (fp32 weights) 8"),
    "adamw_8bit": Default("optimizer.adamw_8bit", 6, "bytes per trainable parameter", TRANSFORMER_MATH,
                          "fp32 master copy 4 + 8-bit momentum 1 + 8-bit variance 1; without a master copy 2"),
}
MASTER_COPY_BYTES = 4

ACTIVATION_BYTES_PER_SBH = Default(
    "activations.per_layer", 34, "bytes per token and hidden unit per layer", KORTHIKANTI,
    "34 = 10 + 24 with 16-bit activations, without the 5*a*s/h attention-score term because memory-efficient "
    "(flash) attention does not store the score matrix; divided by t under tensor + sequence parallelism",
)
CHECKPOINT_BYTES_PER_SBH = Default(
    "activations.checkpointed", 2, "bytes per token and hidden unit per layer", KORTHIKANTI,
    "full recomputation keeps each layer's 16-bit input; one layer's full activations live during its recompute",
)
LOGITS_BYTES = Default("activations.logits", 4, "bytes per token and vocabulary entry", KORTHIKANTI,
                       "fp32 logits for the cross-entropy loss")
TRAINING_FLOPS_PER_TOKEN = Default("training.flops", 6, "FLOPs per active parameter and token", TRANSFORMER_MATH)
TRAINING_FLOPS_RECOMPUTE = Default(
    "training.flops_recompute", 8, "FLOPs per active parameter and token", KORTHIKANTI,
    "full recomputation repeats the forward pass (2PD) once more",
)
LORA_RANK = Default("lora.rank", 8, "rank", PEFT_LORA, "adapters on every linear layer of attention and MLP (QLoRA)")

# --- Inference ----------------------------------------------------------------

RUNTIME_OVERHEAD_GIB = Default(
    "overhead.runtime", 1.0, "GiB per device", PYTORCH_CONTEXT,
    "CUDA context, cuBLAS/cuDNN workspaces and allocator reserve; the middle of the quoted 0.3-2 GiB range",
)
PREFILL_CHUNK_TOKENS = Default(
    "workspace.chunk", 512, "tokens per forward pass", LLAMA_CPP_UBATCH,
    "the inference workspace holds fp32 hidden states and MLP activations for one chunk, plus the logits of the "
    "last token of each sequence",
)
WORKSPACE_BYTES = 4  # fp32 temporaries
DEFAULT_INTERMEDIATE_RATIO = Default("custom.intermediate", 4, "x hidden", VASWANI,
                                     "used for a custom model that gives no feed-forward width")

# --- Speed --------------------------------------------------------------------

EFFICIENCIES: dict[str, dict[str, Default]] = {
    "decode": {
        "memory": Default("efficiency.decode.memory", 0.70, "fraction of peak bandwidth", LLAMA_CPP_BENCH_3090),
        "compute": Default("efficiency.decode.compute", 0.40, "fraction of peak FLOP/s", LLAMA3_PAPER),
    },
    "prefill": {
        "memory": Default("efficiency.prefill.memory", 0.70, "fraction of peak bandwidth", LLAMA_CPP_BENCH_3090),
        "compute": Default("efficiency.prefill.compute", 0.40, "fraction of peak FLOP/s", LLAMA3_PAPER,
                           "prefill runs the same large matrix products as a training forward pass"),
    },
    "training": {
        "memory": Default("efficiency.training.memory", 0.70, "fraction of peak bandwidth", LLAMA_CPP_BENCH_3090),
        "compute": Default("efficiency.training.compute", 0.40, "fraction of peak FLOP/s", LLAMA3_PAPER),
    },
    "kernel": {
        "memory": Default("efficiency.kernel.memory", 1.0, "fraction of peak bandwidth", ROOFLINE,
                          "the plain roofline; enter your kernel's measured efficiency to de-rate it"),
        "compute": Default("efficiency.kernel.compute", 1.0, "fraction of peak FLOP/s", ROOFLINE),
    },
}

AMPERE_SPARSITY = Source(
    "https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf",
    "NVIDIA A100 Tensor Core GPU Architecture (whitepaper), section 'Fine-Grained Structured Sparsity'",
    "2:4 structured sparsity lets the tensor cores skip the zero half of the weights, doubling math throughput: "
    "the sparse peak of a tensor-core precision is twice its dense peak.",
)
SPARSE_TO_DENSE = Default(
    "peak.sparse_to_dense",
    0.5,
    "dense peak / sparse peak",
    AMPERE_SPARSITY,
    "used only when a vendor publishes nothing but the sparse figure (e.g. H200); the result says so",
)

# Precisions tried, in order, when a device lacks the requested one (dense figures only).
PRECISION_FALLBACKS: dict[str, tuple[str, ...]] = {
    "fp64": ("fp64",),
    "fp32": ("fp32", "tf32"),
    "tf32": ("tf32", "fp32"),
    "bf16": ("bf16", "fp16", "fp32"),
    "fp16": ("fp16", "bf16", "fp32"),
    "fp8": ("fp8", "bf16", "fp16", "fp32"),
    "fp6": ("fp6", "fp8", "bf16", "fp16", "fp32"),
    "fp4": ("fp4", "fp6", "fp8", "bf16", "fp16", "fp32"),
    "int8": ("int8", "fp8", "fp16", "bf16", "fp32"),
    "int4": ("int4", "int8", "fp8", "fp16", "bf16", "fp32"),
}

MATRIX_RATE_RATIO = Default(
    "peak.matrix_rate_ratio",
    {"tf32": 0.5, "bf16": 1.0, "fp16": 1.0, "fp8": 2.0, "int8": 2.0, "fp6": 2.0, "fp4": 4.0, "int4": 4.0},
    "matrix rate relative to BF16",
    Source(
        "https://resources.nvidia.com/en-us-blackwell-architecture",
        "NVIDIA Blackwell Architecture Technical Brief; NVIDIA H100 Tensor Core GPU datasheet",
        "H100 SXM dense: TF32 494.5, BF16/FP16 989.5, FP8/INT8 1,979 TFLOP/s; B200 dense: FP4 9, FP8/FP6 4.5, "
        "BF16 2.25 PFLOP/s — each halving of the operand width doubles the tensor-core rate.",
    ),
    "used only to estimate a precision a device does not state from one it does (the result says so)",
)

DEFAULT_HOST_BANDWIDTH = Default(
    "host.bandwidth_gb_s",
    89.6,
    "GB/s",
    Source(
        "https://www.jedec.org/standards-documents/docs/jesd79-5c01",
        "JEDEC JESD79-5 DDR5 SDRAM standard (data rates); two 64-bit channels",
        "DDR5-5600 transfers 5,600 MT/s on a 64-bit channel: 5,600 x 8 bytes = 44.8 GB/s per channel, 89.6 GB/s "
        "for a dual-channel desktop.",
    ),
    "system memory of a typical current desktop (dual-channel DDR5-5600) for layers offloaded from the GPU",
)

MAX_DEVICES_FOR_FIT = 4096  # the "fits" list stops counting here


def all_defaults() -> list[Default]:
    """Every default in one list, for the "How is this calculated?" section."""
    out = [
        RUNTIME_OVERHEAD_GIB,
        PREFILL_CHUNK_TOKENS,
        ACTIVATION_BYTES_PER_SBH,
        CHECKPOINT_BYTES_PER_SBH,
        LOGITS_BYTES,
        TRAINING_FLOPS_PER_TOKEN,
        TRAINING_FLOPS_RECOMPUTE,
        LORA_RANK,
        DEFAULT_INTERMEDIATE_RATIO,
        SPARSE_TO_DENSE,
        *OPTIMIZERS.values(),
    ]
    for workload in EFFICIENCIES.values():
        out += list(workload.values())
    out += [
        Default(f"weights.{f.name}", f.bits, "bits per weight", f.source)
        for f in WEIGHT_FORMATS.values()
    ]
    out += [Default(f"kv_cache.{name}", size, "bytes per element", LLAMA_CPP_BLOCKS) for name, size in KV_FORMATS.items()]
    out += [
        Default("mla.cache", "kv_lora_rank + rope_head_dim", "elements per token and layer", DEEPSEEK_V2),
        Default("moe.routing", "1 - (1 - k/E)^B", "share of experts one decode step reads", MOE_ROUTING,
                "B sequences each pick k of E experts; routing assumed uniform and independent"),
    ]
    return out


def describe() -> list[dict]:
    """Every default as a JSON-able dict (key, value, unit, note, source URL, title and what it says)."""
    return [
        {"key": item.key, "value": item.value, "unit": item.unit, "note": item.note,
         "source": {"url": item.source.url, "title": item.source.title, "says": item.source.says}}
        for item in all_defaults()
    ]

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
    "ggml, ggml-common.h (block_q4_0 ... block_iq4_xs, block_mxfp4, block_nvfp4)",
    "Block structs, values per block and bytes: q4_0 32 values in 18 bytes (fp16 delta + 16 bytes of nibbles), "
    "q4_1 32/20 (delta and min), q5_0 32/22, q5_1 32/24, q8_0 32/34 (fp16 delta + 32 int8); super-blocks of "
    "QK_K = 256: q2_K 84 bytes ('effectively 2.625 bits per weight'), q3_K 110 (3.4375), q4_K 144 (4.5), q5_K 176 "
    "(5.5), q6_K 210 (6.5625), iq2_xxs 66 (2.0625 bpw), iq2_xs 74 (2.3125), iq2_s 82 (2.5625), iq3_xxs 98 "
    "(3.0625), iq3_s 110 (3.4375), iq1_s 50 (1.5625), iq1_m 56 (1.75), iq4_xs 136; iq4_nl 32 values in 18 bytes; "
    "block_mxfp4: one E8M0 byte + 16 bytes for 32 values; block_nvfp4: 4 UE4M3 scale bytes (one per 16-value "
    "sub-block) + 32 bytes for 64 values.",
)
LLAMA_CPP_RECIPE = Source(
    "https://github.com/ggml-org/llama.cpp/blob/master/src/llama-quant.cpp",
    "llama.cpp, src/llama-quant.cpp (llama_tensor_get_type_impl, llama_ftype_get_default_type, "
    "tensor_allows_quantization, tensor_type_fallback)",
    "Each file type has a default tensor type (Q4_K_M, Q4_K_S: Q4_K; Q3_K_*: Q3_K; Q5_K_*: Q5_K; IQ3_M: IQ3_S) "
    "that per-tensor rules override: the output head (and tied token embeddings) becomes Q6_K (Q5_K for the "
    "IQ1/IQ2/IQ3_XXS types, Q8_0 for Q8_0); Q4_K_M and Q5_K_M store attn_v and ffn_down in Q6_K in the layers "
    "use_more_bits picks (the first and last eighth and every third layer between); Q4_K_S uses Q5_K for the "
    "first 4 attn_v and the first eighth of ffn_down; Q3_K_M uses Q5_K/Q4_K for attn_v, Q4_K for attn_output "
    "and Q5_K (first 1/16) or Q4_K for ffn_down; Q3_K_L uses Q5_K for attn_v, attn_output and ffn_down; Q2_K "
    "uses Q4_K (GQA >= 4) or Q3_K for attn_v and Q3_K for ffn_down and attn_output; 8-expert models keep "
    "attn_v and attn_k in Q8_0; norms (1-D tensors) and the expert router (ffn_gate_inp) are not quantised; a "
    "row length the block size does not divide falls back (Q4_K to Q5_0, Q5_K to Q5_1, Q6_K to Q8_0, Q2_K/Q3_K "
    "to Q4_0, IQ types to IQ4_NL).",
)
LLAMA_CPP_RECURRENT = Source(
    "https://github.com/ggml-org/llama.cpp/blob/master/src/llama-model.cpp",
    "llama.cpp, src/llama-model.cpp (create_memory: llama_memory_recurrent, llama_memory_hybrid)",
    "Recurrent and hybrid architectures get their recurrent state memory as llama_memory_recurrent(*this, "
    "GGML_TYPE_F32, GGML_TYPE_F32, ...): the r and s states are F32 whatever type the KV cache uses.",
)
GPT_OSS_CARD = Source(
    "https://arxiv.org/abs/2508.10925",
    "OpenAI, gpt-oss-120b & gpt-oss-20b Model Card (arXiv:2508.10925), section 2.1 and table 1",
    "We post-trained the models with quantization of the MoE weights to MXFP4 format, where weights are "
    "quantized to 4.25 bits per parameter. The MoE weights are responsible for 90+% of the total parameter "
    "count. Table 1: gpt-oss-120b MLP 114.71B, attention 0.96B, embed + unembed 1.16B, total 116.83B, "
    "checkpoint size 60.8GiB.",
)
MLX_QUANTIZE = Source(
    "https://ml-explore.github.io/mlx/build/html/python/_autosummary/mlx.core.quantize.html",
    "MLX documentation, mlx.core.quantize (table of quantization modes)",
    "Every group_size elements in a row of w are quantized together; mode affine: group size 32, 64 (default) "
    "or 128, bits 2, 3, 4 (default), 5, 6, 8, scale type same as input, with a bias; mode mxfp4: group size 32, "
    "4 bits, e8 scale.",
)
NVFP4_FORMAT = Source(
    "https://modal.com/llm-almanac/block-quants",
    "Modal, LLM Almanac: block quants ('What is NVFP4?')",
    "NVFP4 departs from the OCP MX standard in two ways: blocks are 16 elements (vs. 32 for MXFP4), and the "
    "block scale uses full FP8 E4M3 rather than a power-of-two E8M0. A second per-tensor FP32 scale bridges "
    "the dynamic range gap.",
)
DEEPSEEK_FP8 = Source(
    "https://github.com/deepseek-ai/DeepSeek-V3/blob/main/README_WEIGHTS.md",
    "DeepSeek-V3 Weight File Documentation (README_WEIGHTS.md)",
    "DeepSeek-V3 natively supports FP8 weight format with 128x128 block scaling: quantization_config fmt e4m3, "
    "weight_block_size [128, 128]; the weight_scale_inv field stores the dequantization scale for each weight "
    "block, a float32 tensor stored alongside the weight data.",
)
EXL2_CONVERT = Source(
    "https://github.com/turboderp-org/exllamav2/blob/master/doc/convert.md",
    "ExLlamaV2, doc/convert.md (arguments of convert.py)",
    "-b / --bits: target average number of bits per weight. -hb / --head_bits: number of bits for the lm_head "
    "(output) layer of the model. Default is 6, although that value actually results in a mixed-precision "
    "quantization of about 6.3 bits. Examples quantize at 3.0, 4.0 and 4.5 bpw.",
)
EXL3_CONVERT = Source(
    "https://github.com/turboderp-org/exllamav3/blob/master/doc/convert.md",
    "ExLlamaV3, doc/convert.md (EXL3 conversion script)",
    "-b / --bits: target average number of bits per weight. -hb / --head_bits: number of bits per weight for "
    "the lm_head (output) layer of the model. Must be an integer from 1 to 8, default is 6.",
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
    "A. Smirnov, VRAM calculator for transformers",
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
DEEPSEEK_V3_MTP = Source(
    "https://arxiv.org/abs/2412.19437",
    "DeepSeek-AI, DeepSeek-V3 Technical Report (arXiv:2412.19437), section 5.4.3",
    "'the acceptance rate of the second token prediction ranges between 85% and 90% across various generation "
    "topics' ... 'delivering 1.8 times TPS'; DeepSeek-V3 predicts one token ahead with its one MTP module.",
)
VLLM_SPEC_DECODE = Source(
    "https://docs.vllm.ai/en/latest/features/spec_decode.html",
    "vLLM documentation, Speculative Decoding",
    "Speculating with a draft model: speculative_config with the draft model and 'num_speculative_tokens': 5 in "
    "the example; MTP and EAGLE drafters are configured the same way.",
)
LEVIATHAN_SPEC = Source(
    "https://arxiv.org/abs/2211.17192",
    "Leviathan, Kalman, Matias: Fast Inference from Transformers via Speculative Decoding (ICML 2023), section 3",
    "With acceptance rate alpha and gamma drafted tokens the expected number of tokens per target-model run is "
    "(1 - alpha^(gamma+1)) / (1 - alpha), acceptances assumed independent.",
)
SPEC_BENCH = Source(
    "https://github.com/hemingkx/Spec-Bench/blob/main/Leaderboard.md",
    "Xia et al., Spec-Bench leaderboard (arXiv:2401.07851), 'Leaderboard on A100', Vicuna-7B-v1.3",
    "One A100 80GB, greedy decoding, FP16, batch size 1; SpS (a draft model, Vicuna-68M, through Hugging Face "
    "assisted generation, evaluation/inference_sps.py): Multi-turn Conversation 1.66x, Translation 1.13x, "
    "Summarization 1.62x, Question Answering 1.49x, Mathematical Reasoning 1.47x, Retrieval-aug. Generation 1.55x, "
    "#Mean Accepted Tokens 2.28 (tokens per decoding step), Overall 1.49x.",
)
DEEPSEEK_V2 = Source(
    "https://arxiv.org/abs/2405.04434",
    "DeepSeek-AI, DeepSeek-V2 (arXiv:2405.04434), section 2.1 and table 1",
    "MLA caches (d_c + d_h^R) * l elements per token: one compressed latent (d_c = 512 in DeepSeek-V3) and one "
    "shared RoPE key (d_h^R = 64) per layer, about what GQA with 2.25 groups would cache.",
)

# --- Weight storage formats ---------------------------------------------------

# Llama-3-8B, the reference model of llama.cpp's published GGUF sizes. Its architecture (the Llama 3.1 8B
# preset's: 32 layers, width 4096, 32 heads, 8 KV heads, MLP 14336, vocabulary 128256, untied) counts exactly
# these 8,030,261,248 parameters.
GGUF_REFERENCE_PARAMS = 8_030_261_248
GGUF_REFERENCE_ARCH = {"layers": 32, "hidden": 4096, "intermediate": 14336, "heads": 32, "kv_heads": 8,
                       "head_dim": 128, "vocab": 128256}
# Published file sizes in GiB (LLAMA_CPP_QUANTIZE), the check on the per-tensor recipe below.
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
class GgmlType:
    """A ggml tensor type: ``block`` values stored in ``block_bytes`` bytes (LLAMA_CPP_BLOCKS)."""

    name: str
    block: int
    block_bytes: int

    @property
    def bits(self) -> float:
        return 8 * self.block_bytes / self.block


GGML_TYPES: dict[str, GgmlType] = {t.name: t for t in (
    GgmlType("f32", 1, 4), GgmlType("f16", 1, 2), GgmlType("bf16", 1, 2),
    GgmlType("q4_0", 32, 18), GgmlType("q4_1", 32, 20), GgmlType("q5_0", 32, 22), GgmlType("q5_1", 32, 24),
    GgmlType("q8_0", 32, 34),
    GgmlType("q2_k", 256, 84), GgmlType("q3_k", 256, 110), GgmlType("q4_k", 256, 144), GgmlType("q5_k", 256, 176),
    GgmlType("q6_k", 256, 210),
    GgmlType("iq2_xxs", 256, 66), GgmlType("iq2_xs", 256, 74), GgmlType("iq2_s", 256, 82),
    GgmlType("iq3_xxs", 256, 98), GgmlType("iq3_s", 256, 110), GgmlType("iq1_s", 256, 50), GgmlType("iq1_m", 256, 56),
    GgmlType("iq4_nl", 32, 18), GgmlType("iq4_xs", 256, 136),
    GgmlType("mxfp4", 32, 17), GgmlType("nvfp4", 64, 36),
)}
# Where llama.cpp falls back when a row length is not a multiple of the type's block (tensor_type_fallback).
GGML_FALLBACK = {
    "iq1_s": "iq4_nl", "iq1_m": "iq4_nl", "iq2_xxs": "iq4_nl", "iq2_xs": "iq4_nl", "iq2_s": "iq4_nl",
    "iq3_xxs": "iq4_nl", "iq3_s": "iq4_nl", "iq4_xs": "iq4_nl",
    "q2_k": "q4_0", "q3_k": "q4_0", "q4_k": "q5_0", "q5_k": "q5_1", "q6_k": "q8_0",
}
# GGUF file types (llama.cpp's ftype, as quantize names them) and their default tensor type
# (llama_ftype_get_default_type); the per-tensor rules are calculators.memory.gguf_tensor_type.
GGUF_FILE_TYPES: dict[str, str] = {
    "q8_0": "q8_0", "q6_k": "q6_k", "q5_k_m": "q5_k", "q5_k_s": "q5_k", "q5_0": "q5_0", "q4_k_m": "q4_k",
    "q4_k_s": "q4_k", "q4_0": "q4_0", "q4_1": "q4_1", "q3_k_l": "q3_k", "q3_k_m": "q3_k", "q3_k_s": "q3_k",
    "q2_k": "q2_k", "iq4_xs": "iq4_xs", "iq4_nl": "iq4_nl", "iq3_m": "iq3_s", "iq3_xxs": "iq3_xxs",
    "iq2_xs": "iq2_xs", "iq2_xxs": "iq2_xxs", "iq1_s": "iq1_s",
}
# Average bits per weight of each GGUF type over the reference Llama-3-8B, as the per-tensor recipe gives them
# (atlas.core.calculators.memory.bits_per_weight; tests/test_formats.py recomputes them). WeightFormat.bits carries them
# so that code sorting formats by bits sees real figures; the estimates use the recipe on the actual model.
GGUF_REFERENCE_BITS = {
    "q8_0": 8.5008, "q6_k": 6.5633, "q5_k_m": 5.7036, "q5_k_s": 5.5704, "q5_0": 5.5704, "q4_k_m": 4.8944,
    "q4_k_s": 4.6672, "q4_0": 4.6358, "q4_1": 5.1031, "q3_k_l": 4.2979, "q3_k_m": 3.9960, "q3_k_s": 3.6429,
    "q2_k": 3.1593, "iq4_xs": 4.4597, "iq4_nl": 4.6818, "iq3_m": 3.7628, "iq3_xxs": 3.2548, "iq2_xs": 2.5882,
    "iq2_xxs": 2.3824, "iq1_s": 2.0042,
}
# Tensors llama.cpp leaves unquantised, at the type the converter wrote. Assumption: norms and the small
# linear-attention tensors (conv1d, A_log, dt_bias) in F32, the router and the encoders (mmproj) in F16.
GGUF_UNQUANTISED_BITS = {"norm": 32, "ssm_small": 32, "router": 16, "encoder": 16}


@dataclass(frozen=True)
class WeightFormat:
    """How a weight format stores parameters.

    ``bits``: bits per quantised weight (before group/block overhead for int4
    and nf4, which depend on options; for gguf the recipe's average over the
    reference Llama-3-8B, ``GGUF_REFERENCE_BITS``); ``kind``: float, int, int4, nf4, gguf, mx, nvfp4, fp8_block,
    exl or mlx; ``compute``: the precision the matrix units run for it
    (weight-only formats are dequantised to 16 bit); ``trainable``: full
    training can update weights stored this way; ``keeps_embeddings_16bit``:
    embeddings and output head stay at 16 bit (GGUF and MLX quantise them too).
    ``scope`` says which tensors take ``bits``: ``all``; ``linear`` (every
    tensor but embeddings and output head); ``experts`` (on a mixture of
    experts only the routed experts, as gpt-oss ships MXFP4; on a dense model
    ``linear``); ``recipe`` (llama.cpp's per-tensor rules). ``small_bits``:
    bits of norms, routers and other small tensors when they are not
    quantised (None: counted with the linear layers, as the original formula
    did; they are < 0.1 %). ``head_bits``: the output head's bits when the
    format sets them apart (ExLlama). ``tensor_scale_bytes``: bytes of one
    per-tensor scale (NVFP4's FP32 second-level scale).
    """

    name: str
    bits: float
    kind: str
    compute: str
    trainable: bool
    keeps_embeddings_16bit: bool
    source: Source
    scope: str = "all"
    small_bits: float | None = None
    head_bits: float | None = None
    tensor_scale_bytes: float = 0.0
    note: str = ""


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

MXFP4_BLOCK = 32  # values per E8M0 scale (LLAMA_CPP_BLOCKS block_mxfp4, MLX_QUANTIZE)
MXFP4_BITS = 4 + 8 / MXFP4_BLOCK  # 4.25, the figure GPT_OSS_CARD states
NVFP4_BLOCK = 16  # values per E4M3 scale (NVFP4_FORMAT, LLAMA_CPP_BLOCKS block_nvfp4)
NVFP4_BITS = 4 + 8 / NVFP4_BLOCK  # 4.5
FP8_BLOCK = 128 * 128  # weights per fp32 scale (DEEPSEEK_FP8)
FP8_BLOCK_BITS = 8 + 32 / FP8_BLOCK
MLX_GROUP = 64  # default affine group (MLX_QUANTIZE); scale and bias in the weights' 16-bit type
EXL2_HEAD_BITS = 6.3  # "about 6.3 bits" for the default -hb 6 (EXL2_CONVERT)
EXL3_HEAD_BITS = 6.0  # default -hb 6 (EXL3_CONVERT)


MLX_BITS = (2, 3, 4, 5, 6, 8)  # the affine mode's bit widths (MLX_QUANTIZE); each is a weight format mlx_<bits>bit


def mlx_bits(bits: int, group: int = MLX_GROUP) -> float:
    """Bits per weight of MLX affine quantisation: ``bits`` plus a 16-bit scale and a 16-bit bias per group."""
    return bits + 32 / group


EXL_BPW = Default(
    "exl.bpw", 4.0, "bits per weight", EXL2_CONVERT,
    "ExLlamaV2/V3 quantise to the average bits per weight the reader chooses (-b, option bpw); 4.0 as in the "
    "documentation's examples. The output head takes the -hb 6 default; the embeddings are assumed to stay 16-bit",
)
LINEAR_STATE_BYTES = Default(
    "linear_attention.state", 4, "bytes per element", LLAMA_CPP_RECURRENT,
    "recurrent state of linear-attention (Gated DeltaNet, Mamba2) layers in fp32, whatever the KV-cache format",
)


def _gguf(name: str) -> WeightFormat:
    return WeightFormat(name, GGUF_REFERENCE_BITS[name], "gguf", "fp16", False, False, LLAMA_CPP_RECIPE, scope="recipe")


WEIGHT_FORMATS: dict[str, WeightFormat] = {
    "fp32": WeightFormat("fp32", 32, "float", "fp32", True, False, _FLOAT_SOURCE),
    "bf16": WeightFormat("bf16", 16, "float", "bf16", True, False, _FLOAT_SOURCE),
    "fp16": WeightFormat("fp16", 16, "float", "fp16", True, False, _FLOAT_SOURCE),
    "fp8": WeightFormat("fp8", 8, "float", "fp8", False, True, _FP8_SOURCE, scope="linear"),
    "int8": WeightFormat("int8", 8, "int", "int8", False, True, _INT8_SOURCE, scope="linear"),
    "int4": WeightFormat("int4", 4, "int4", "fp16", False, True, GPTQ_AWQ, scope="linear"),
    "nf4": WeightFormat("nf4", 4, "nf4", "bf16", False, True, QLORA, scope="linear"),
    **{name: _gguf(name) for name in GGUF_FILE_TYPES},
    "gptq": WeightFormat("gptq", 4, "int4", "fp16", False, True, GPTQ_AWQ, scope="linear",
                         note="4-bit GPTQ with one fp16 scale and one 4-bit zero per group (option group_size)"),
    "awq": WeightFormat("awq", 4, "int4", "fp16", False, True, GPTQ_AWQ, scope="linear",
                        note="4-bit AWQ, stored as GPTQ is (option group_size)"),
    "mxfp4": WeightFormat("mxfp4", MXFP4_BITS, "mx", "fp4", False, True, GPT_OSS_CARD, scope="experts",
                          small_bits=16,
                          note="E2M1 values with one E8M0 scale per 32; on a mixture of experts only the routed "
                               "experts (gpt-oss), attention, router and embeddings in BF16"),
    "nvfp4": WeightFormat("nvfp4", NVFP4_BITS, "nvfp4", "fp4", False, True, NVFP4_FORMAT, scope="linear",
                          small_bits=16, tensor_scale_bytes=4,
                          note="E2M1 values with one E4M3 scale per 16 and one fp32 scale per tensor"),
    "fp8_block": WeightFormat("fp8_block", FP8_BLOCK_BITS, "fp8_block", "fp8", False, True, DEEPSEEK_FP8,
                              scope="linear", small_bits=16,
                              note="E4M3 values with one fp32 scale per 128 x 128 block (DeepSeek-V3's checkpoint)"),
    "exl2": WeightFormat("exl2", EXL_BPW.value, "exl", "fp16", False, True, EXL2_CONVERT, scope="linear",
                         small_bits=16, head_bits=EXL2_HEAD_BITS),
    "exl3": WeightFormat("exl3", EXL_BPW.value, "exl", "fp16", False, True, EXL3_CONVERT, scope="linear",
                         small_bits=16, head_bits=EXL3_HEAD_BITS),
    # MLX affine quantisation at each bit width mlx.core.quantize offers (2, 3, 4, 5, 6, 8), group 64 (its default)
    **{f"mlx_{bits}bit": WeightFormat(f"mlx_{bits}bit", mlx_bits(bits), "mlx", "fp16", False, False, MLX_QUANTIZE,
                                      scope="all", small_bits=16, note="every Linear and Embedding in groups of 64")
       for bits in MLX_BITS},
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

# llama.cpp's cache types store the ggml blocks above (LLAMA_CPP_BLOCKS): bytes per block / values per block.
KV_FORMATS: dict[str, float] = {
    "fp16": 2.0,
    "bf16": 2.0,
    "fp8": 1.0,
    **{name: GGML_TYPES[name].block_bytes / GGML_TYPES[name].block
       for name in ("q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "iq4_nl")},
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
# LoRA and QLoRA train adapters on frozen weights: the backward pass still carries the activations' gradients through
# every weight (2PD of its 4PD) but computes no weight gradient for the frozen ones; the adapters' own FLOPs, rank x
# (in + out) per linear layer, are well under 1 % at the ranks used and are left out.
TRAINING_FLOPS_ADAPTERS = Default(
    "training.flops_adapters", 4, "FLOPs per active parameter and token", TRANSFORMER_MATH,
    "derived from 6PD = forward 2PD + backward 4PD, of which the frozen weights need only the activations' "
    "gradients (2PD); 6 with full recomputation",
)

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

READING_WORDS_PER_MINUTE = Default(
    "reading.words_per_minute",
    238,
    "words per minute",
    Source(
        "https://doi.org/10.1016/j.jml.2019.104047",
        "M. Brysbaert, How many words do we read per minute? A review and meta-analysis of reading rate, "
        "Journal of Memory and Language 109 (2019) 104047",
        "The average silent reading rate for adults in English is 238 words per minute for non-fiction and "
        "260 words per minute for fiction.",
    ),
    "non-fiction; only to say a decode speed in words a reader can picture",
)
WORDS_PER_TOKEN = Default(
    "reading.words_per_token",
    0.75,
    "words per token",
    Source(
        "https://help.openai.com/en/articles/4936856-what-are-tokens-and-how-to-count-them",
        "OpenAI Help Center, What are tokens and how to count them?",
        "1 token ~= 3/4 words; 100 tokens ~= 75 words (English text).",
    ),
    "English text and a GPT-style tokenizer; other languages need more tokens per word",
)


def reading_tokens_per_s() -> float:
    """Tokens per second a reader reads silently (238 words per minute at 0.75 words per token: 5.3)."""
    return READING_WORDS_PER_MINUTE.value / 60 / WORDS_PER_TOKEN.value


MAX_DEVICES_FOR_FIT = 4096  # the "fits" list stops counting here

# --- Speculative decoding (atlas.core.calculators.speculative) -----------------------------

SPEC_MTP_ACCEPTANCE = Default(
    "speculative.mtp_acceptance", 0.85, "share of drafted tokens accepted", DEEPSEEK_V3_MTP,
    "the lower end of the 85-90 % DeepSeek reports for its MTP module; other models' modules are assumed alike")
SPEC_DRAFT_TOKENS = Default(
    "speculative.draft_tokens", 5, "tokens drafted per target-model run", VLLM_SPEC_DECODE,
    "draft model: the example's num_speculative_tokens; MTP drafts as many tokens as the model has MTP modules")
SPEC_EXPECTED_TOKENS = Default(
    "speculative.tokens_per_step", "(1 - a^(k+1)) / (1 - a)", "tokens per target-model run", LEVIATHAN_SPEC,
    "a = acceptance rate, k = drafted tokens")

# Draft-model acceptance by task type: Spec-Bench's SpS row (SPEC_BENCH), the one measurement of one draft model over
# several tasks under the same device and settings. It gives the speed-up per task and the mean accepted tokens
# (tau = 2.28 tokens per run of the model) over all tasks. Derivation (speculative.task_acceptance): the same pair on
# the same device spends about the same time per run whatever the text, so tokens per run scale with the speed-up:
# tau_task = 2.28 * speedup_task / 1.49; then a solves (1 - a^(k+1)) / (1 - a) = tau_task with k = 5 drafted tokens
# (Hugging Face assisted generation's num_assistant_tokens, which its heuristic schedule moves up and down), e.g.
# chat: tau = 2.28 * 1.66 / 1.49 = 2.54, a = 0.63. Tasks with long prompts (summarisation, RAG) verify slightly
# dearer runs, so their rates are if anything a little low. Spec-Bench has no code task, so none is offered.
SPEC_TASK_TYPES = ("chat", "translation", "summarisation", "qa", "maths", "rag")
SPEC_TASK_DEFAULT = "chat"
# Plain figures, not ``Default``s (the explanation table shows one number per row); their source is SPEC_BENCH.
SPEC_TASK_SPEEDUP = {"chat": 1.66, "translation": 1.13, "summarisation": 1.62, "qa": 1.49, "maths": 1.47, "rag": 1.55}
SPEC_TASK_MEAN_ACCEPTED = 2.28  # #Mean Accepted Tokens of the SpS row over all tasks (SPEC_BENCH)
SPEC_TASK_OVERALL_SPEEDUP = 1.49  # Spec-Bench's Overall column for the same row (SPEC_BENCH)
SPEC_TASK_DRAFTED = 5  # num_assistant_tokens of Hugging Face assisted generation, the SpS baseline's drafter

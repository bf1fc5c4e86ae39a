"""The estimators against published figures, each cited with its URL, the quoted figure and a tolerance.

Each test runs the public entry point (atlas.core.calculators.api.handle) with the
setting the source describes and compares with the number the source
publishes. Sizes the sources give in GB are 10^9 bytes unless the source
shows otherwise (noted where it does).
"""

import pytest

from atlas.core.calculators.memory import bits_per_weight, kv_cache_bytes
from atlas.core.calculators.models import ModelSpec
from calculators_support import GB, GIB, catalog, ok

# LLaMA 2 7B and 13B from their config.json (meta-llama/Llama-2-7b-hf, -13b-hf); not presets on the site.
LLAMA2_7B = dict(model="custom", params_b=6.738415616, layers=32, hidden=4096, heads=32, kv_heads=32, vocab=32000,
                 intermediate=11008)
LLAMA2_13B = dict(model="custom", params_b=13.015864320, layers=40, hidden=5120, heads=40, kv_heads=40, vocab=32000,
                  intermediate=13824)
LLAMA1_65B = dict(model="custom", params_b=65.2, layers=80, hidden=8192, heads=64, kv_heads=64, vocab=32000,
                  intermediate=22016)


def test_kv_cache_llama2_13b_scaling_book():
    """https://jax-ml.github.io/scaling-book/inference/ ("What about memory?"): "For LLaMA-13B, a KV cache for a
    single 8192 sequence at bf16 is 8192 (T) x 40 (K) x 128 (H) x 40 (L) x 2 (bytes) x 2 = 6.7GB". Tolerance 1 %."""
    r = ok("vram", **LLAMA2_13B, context=8192, batch=1, kv_cache="bf16")
    assert r["breakdown"]["kv_cache_gib"] * GIB / GB == pytest.approx(6.7, rel=0.01)


def test_kv_cache_llama2_7b_nvidia_blog():
    """https://developer.nvidia.com/blog/mastering-llm-techniques-inference-optimization/ : "with a Llama 2 7B
    model in 16-bit precision and a batch size of 1, the size of the KV cache will be 1 * 4096 * 2 * 32 * 4096 * 2
    bytes, which is ~2 GB" (the product is exactly 2 GiB)."""
    r = ok("vram", **LLAMA2_7B, context=4096, batch=1, kv_cache="fp16")
    assert r["breakdown"]["kv_cache_gib"] == pytest.approx(2.0, rel=1e-9)


@pytest.mark.parametrize(
    "model, tokens, published_gib",
    [("llama-3.1-8b", 16_000, 1.95), ("llama-3.1-8b", 128_000, 15.62),
     ("llama-3.1-70b", 16_000, 4.88), ("llama-3.1-70b", 128_000, 39.06)],
)
def test_kv_cache_llama31_huggingface_blog(model, tokens, published_gib):
    """https://huggingface.co/blog/llama31 ("Inference Memory Requirements"), KV cache in FP16: 8B 1.95 GB at 16k
    and 15.62 GB at 128k tokens; 70B 4.88 GB and 39.06 GB. The table's "GB" are GiB and "k" is 1,000 (as
    huggingface/blog issue 2345 works out); its 405B row assumes 16 KV heads where the config has 8, so it is
    left out. Tolerance 0.5 % (the table rounds to two decimals)."""
    r = ok("vram", model=model, context=tokens, batch=1, kv_cache="fp16")
    assert r["breakdown"]["kv_cache_gib"] == pytest.approx(published_gib, rel=0.005)


@pytest.mark.parametrize(
    "model, weights, published_gb, tolerance",
    [("llama-3.1-8b", "bf16", 16, 0.01), ("llama-3.1-70b", "bf16", 140, 0.01), ("llama-3.1-405b", "bf16", 810, 0.01),
     ("llama-3.1-405b", "fp8", 405, 0.02)],
)
def test_weights_llama31_huggingface_blog(model, weights, published_gb, tolerance):
    """https://huggingface.co/blog/llama31 ("Inference Memory Requirements"): model weights 8B FP16 16 GB,
    70B FP16 140 GB, 405B FP16 810 GB and FP8 405 GB. FP8 keeps embeddings and output head in 16 bit, hence
    2 % there (the blog multiplies all parameters by one byte)."""
    r = ok("vram", model=model, weights=weights)
    assert r["breakdown"]["weights_gib"] * GIB / GB == pytest.approx(published_gb, rel=tolerance)


@pytest.mark.parametrize(
    "model, weights, file_bytes",
    [
        (LLAMA2_7B, "q4_k_m", 4_081_004_224),
        (LLAMA2_7B, "q5_k_m", 4_783_156_928),
        (LLAMA2_7B, "q8_0", 7_161_229_504),
        (LLAMA2_13B, "q4_k_m", 7_866_070_016),
        (LLAMA2_13B, "q8_0", 13_831_494_016),
    ],
)
def test_gguf_file_sizes_of_7b_and_13b_models(model, weights, file_bytes):
    """GGUF files as published on Hugging Face, quantised with llama.cpp (file sizes in bytes from the repositories'
    file lists): https://huggingface.co/TheBloke/Llama-2-7B-GGUF llama-2-7b.Q4_K_M.gguf 4.08 GB, Q5_K_M 4.78 GB;
    https://huggingface.co/TheBloke/CodeLlama-7B-Instruct-GGUF Q8_0 7.16 GB (same architecture);
    https://huggingface.co/TheBloke/CodeLlama-13B-Instruct-GGUF Q4_K_M 7.87 GB, Q8_0 13.83 GB.
    Our bits per weight come from llama.cpp's Llama-3-8B sizes, so this checks them on other models.
    Tolerance 3 %."""
    r = ok("vram", **model, weights=weights)
    assert r["breakdown"]["weights_gib"] * GIB == pytest.approx(file_bytes, rel=0.03)


@pytest.mark.parametrize("optimizer, bytes_per_param", [("adamw", 16), ("adamw_8bit", 10)])
def test_training_bytes_per_parameter_transformer_math(optimizer, bytes_per_param):
    """https://blog.eleuther.ai/transformer-math/ : mixed-precision weights 2 bytes/param, gradients 2 bytes/param,
    "vanilla AdamW: 12 bytes/param" (fp32 copy, momentum, variance) -- 16 bytes/param in all; "8-bit optimizers
    (bitsandbytes): 6 bytes/param" -- 10 in all. Exact."""
    r = ok("vram", model="llama-3.1-8b", mode="full", weights="bf16", optimizer=optimizer)
    state = sum(r["breakdown"][k] for k in ("weights_gib", "gradients_gib", "optimizer_gib")) * GIB
    assert state / (r["params_b"] * 1e9) == pytest.approx(bytes_per_param, rel=1e-9)


@pytest.mark.parametrize("stage, published_gb", [(0, 120), (1, 31.4), (2, 16.6), (3, 1.9)])
def test_zero_stages_zero_paper_figure_1(stage, published_gb):
    """https://arxiv.org/abs/1910.02054 (ZeRO), figure 1: a 7.5B-parameter model with mixed-precision Adam (K = 12)
    on Nd = 64 devices needs per device 120 GB (baseline), 31.4 GB (Pos), 16.6 GB (Pos+g) and 1.9 GB (Pos+g+p)
    for parameters, gradients and optimiser states. Tolerance 2 %."""
    r = ok("vram", model="custom", params_b=7.5, layers=32, hidden=4096, heads=32, kv_heads=32, vocab=32000,
           mode="full", num_devices=64, zero=stage)
    state = sum(r["per_device"][k] for k in ("weights_gib", "gradients_gib", "optimizer_gib")) * GIB
    assert state / GB == pytest.approx(published_gb, rel=0.02)


def test_nf4_double_quantisation_qlora_paper():
    """https://arxiv.org/abs/2305.14314 (QLoRA), section 3: double quantisation "reduces the memory footprint from
    32/64 = 0.5 bits, to 8/64 + 32/(64 * 256) = 0.127 bits, a reduction of 0.373 bits per parameter"."""
    assert bits_per_weight("nf4", double_quant=False) - 4 == pytest.approx(0.5)
    assert bits_per_weight("nf4", double_quant=True) - 4 == pytest.approx(0.127, abs=0.0005)


def test_qlora_65b_on_one_48gb_gpu_qlora_paper():
    """https://arxiv.org/abs/2305.14314 (QLoRA), abstract and introduction: QLoRA finetunes "a 65B parameter model
    on a single 48GB GPU", while "regular 16-bit finetuning of a LLaMA 65B parameter model requires more than
    780 GB of GPU memory". LLaMA 65B figures from its params.json (80 layers, width 8192, 64 heads)."""
    qlora = ok("vram", **LLAMA1_65B, mode="qlora", gradient_checkpointing=True, context=512, batch=1)
    assert qlora["per_device_gib"] < 48
    full = ok("vram", **LLAMA1_65B, mode="full", weights="bf16", context=512, batch=1)
    assert full["total_gib"] * GIB / GB > 780


def test_sliding_window_cache_mistral_paper():
    """https://arxiv.org/abs/2310.06825 (Mistral 7B), section 2, rolling buffer cache: "On a sequence length of 32k
    tokens, this reduces the cache memory usage by 8x, without impacting the model quality." Exact."""
    mistral = ModelSpec.from_preset("mistral-7b", catalog().models["mistral-7b"])
    full_attention = ModelSpec(**{**mistral.__dict__, "window": None, "window_layers": 0})
    ratio = kv_cache_bytes(full_attention, "fp16", 32_768, 1) / kv_cache_bytes(mistral, "fp16", 32_768, 1)
    assert ratio == pytest.approx(8)


def test_mla_cache_deepseek_v2_paper():
    """https://arxiv.org/abs/2405.04434 (DeepSeek-V2), table 1: MLA caches (d_c + d_h^R) l elements per token,
    "equal to GQA with only 2.25 groups" (d_c = 4 d_h, d_h^R = d_h / 2). With DeepSeek-V3's config
    (kv_lora_rank 512, qk_rope_head_dim 64, head width 128, 61 layers) that is 2 x 2.25 x 128 = 576 elements per
    layer, 70,272 bytes per token in bf16. Exact."""
    r = ok("vram", model="deepseek-v3", context=1, batch=1, kv_cache="bf16")
    assert r["breakdown"]["kv_cache_gib"] * GIB == 2 * 2.25 * 128 * 61 * 2


def test_training_compute_llama3_405b():
    """https://arxiv.org/abs/2407.21783 (The Llama 3 Herd of Models), section 1: Llama 3 405B was "pre-trained ...
    on 15.6T text tokens" using "3.8 x 10^25 FLOPs". Tolerance 2 %."""
    r = ok("speed", model="llama-3.1-405b", workload="training", tokens=15.6e12, device="h100-sxm")
    assert r["flops"] == pytest.approx(3.8e25, rel=0.02)


@pytest.mark.parametrize("batch, published_ms, tolerance", [(4, 2.5, 0.05), (256, 21, 0.15)])
def test_decode_step_time_scaling_book_pop_quiz(batch, published_ms, tolerance):
    """https://jax-ml.github.io/scaling-book/inference/ , pop quiz: a 30B dense model in int8 on a TPU v5e 4x4 slice
    (16 chips of 8.1e11 bytes/s and 1.97e14 bf16 FLOP/s), 8192 context, 100 kB/token KV cache: at least 2.5 ms per
    step for batch 4, about 21 ms for batch 256. The book adds the KV-cache time to the MLP roofline; ours takes the
    maximum of one roofline, hence 15 % at batch 256 and 5 % at batch 4. A custom model with 100 kB of bf16 KV per
    token: 25 layers x 8 KV heads x 125 wide x 2 x 2 bytes."""
    model = dict(model="custom", params_b=30, layers=25, hidden=8000, heads=64, kv_heads=8, head_dim=125, vocab=32000)
    r = ok("speed", **model, weights="int8", precision="bf16", context=8192, batch=batch, device="tpu-v5e",
           num_devices=16, compute_efficiency=1, memory_efficiency=1)
    assert r["device"]["time_s"] * 1e3 == pytest.approx(published_ms, rel=tolerance)


@pytest.mark.parametrize("weights, measured_tokens_s", [("fp16", 61.03), ("q8_0", 98.13)])
def test_decode_speed_rtx_4090_llama_cpp(weights, measured_tokens_s):
    """https://github.com/ggml-org/llama.cpp/pull/4766 (comment by G. Gerganov, 2024-01-10): llama-bench on an
    RTX 4090, codellama-7b: tg 128 F16 61.03 t/s, Q8_0 98.13 t/s. Measured decode within 25 % of the estimate
    at the default decode efficiencies (which come from a different card's measurement, see defaults)."""
    r = ok("speed", **LLAMA2_7B, weights=weights, workload="decode", context=128, batch=1, device="rtx-4090")
    assert r["device"]["tokens_per_s"] == pytest.approx(measured_tokens_s, rel=0.25)


def test_at_least_ten_references_are_cited():
    """The issue asks for ten or more published reference figures; count the distinct sources above."""
    import inspect
    import re
    import sys

    text = inspect.getsource(sys.modules[__name__])
    urls = set(re.findall(r"https://[^\s\"')]+", text))
    assert len(urls) >= 10, urls

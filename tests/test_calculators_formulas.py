"""The formulas, worked by hand for named models and devices from the data set."""

import math

import pytest

from atlas.core.calculators import assumptions, devices
from atlas.core.calculators.inputs import Options
from atlas.core.calculators.memory import bits_per_weight, fits, weight_bytes
from atlas.core.calculators.models import ModelSpec
from calculators_support import GIB, catalog, ok


def spec(model_id: str) -> ModelSpec:
    return ModelSpec.from_preset(model_id, catalog().models[model_id])


def keys(result) -> set:
    return {n["key"] for n in result["notes"]}


# --- memory -------------------------------------------------------------------


def test_kv_cache_counts_kv_heads_not_attention_heads():
    # Llama 3.1 8B: 32 layers x 8 KV heads x 128 x (K and V) x 2 bytes = 131,072 bytes per token.
    r = ok("vram", model="llama-3.1-8b", context=1000, batch=3, kv_cache="fp16")
    assert r["breakdown"]["kv_cache_gib"] * GIB == 3 * 1000 * 131_072


def test_sliding_window_layers_cap_their_cache():
    # Gemma 2 9B at 8,192 tokens: 21 local layers hold 4,096 tokens, 21 global layers 8,192; 8 KV heads x 256.
    r = ok("vram", model="gemma-2-9b", context=8192, kv_cache="bf16")
    assert r["breakdown"]["kv_cache_gib"] * GIB == (21 * 4096 + 21 * 8192) * 2 * 8 * 256 * 2
    assert "note.sliding_window" in keys(r)


@pytest.mark.parametrize("fmt, bytes_per_element", [("fp8", 1), ("q8_0", 34 / 32), ("q4_0", 18 / 32)])
def test_kv_cache_formats(fmt, bytes_per_element):
    fp16 = ok("vram", model="qwen2.5-7b", context=4096, kv_cache="fp16")["breakdown"]["kv_cache_gib"]
    other = ok("vram", model="qwen2.5-7b", context=4096, kv_cache=fmt)["breakdown"]["kv_cache_gib"]
    assert other / fp16 == pytest.approx(bytes_per_element / 2)


def test_int4_group_overhead():
    assert bits_per_weight("int4", group_size=128) == 4 + 20 / 128
    assert bits_per_weight("int4", group_size=32) == 4 + 20 / 32


def test_quantised_formats_keep_embeddings_in_16_bit():
    # Llama 3.2 1B has tied embeddings: 128,256 x 2,048 parameters stay at 2 bytes, the rest at int4.
    model = spec("llama-3.2-1b")
    embeddings = 128_256 * 2048
    expected = (1.24e9 - embeddings) * (4 + 20 / 128) / 8 + embeddings * 2
    assert weight_bytes(model, "int4", 128) == pytest.approx(expected)
    assert "note.embeddings_16bit" in keys(ok("vram", model="llama-3.2-1b", weights="int4"))


def test_tensor_parallel_splits_weights_and_kv_but_not_overhead():
    one = ok("vram", model="llama-3.1-70b", context=8192)
    four = ok("vram", model="llama-3.1-70b", context=8192, tp=4)
    assert four["num_devices"] == 4
    assert four["per_device"]["weights_gib"] == pytest.approx(one["per_device"]["weights_gib"] / 4)
    assert four["per_device"]["kv_cache_gib"] == pytest.approx(one["per_device"]["kv_cache_gib"] / 4)
    assert four["per_device"]["overhead_gib"] == one["per_device"]["overhead_gib"]


def test_tensor_parallel_beyond_kv_heads_replicates_them():
    # Llama 3.1 8B has 8 KV heads; over 16 devices each keeps one head: KV per device = total / 8.
    r = ok("vram", model="llama-3.1-8b", context=8192, tp=16)
    total_kv = ok("vram", model="llama-3.1-8b", context=8192)["breakdown"]["kv_cache_gib"]
    assert r["per_device"]["kv_cache_gib"] == pytest.approx(total_kv / 8)
    assert "note.kv_replicated" in keys(r)


@pytest.mark.parametrize("stage, sharded", [(0, set()), (1, {"optimizer"}), (2, {"optimizer", "gradients"}),
                                            (3, {"optimizer", "gradients", "weights"})])
def test_zero_stages_shard_what_they_say(stage, sharded):
    single = ok("vram", model="llama-3.1-8b", mode="full")["per_device"]
    eight = ok("vram", model="llama-3.1-8b", mode="full", num_devices=8, zero=stage)["per_device"]
    for part in ("weights", "gradients", "optimizer"):
        expected = single[f"{part}_gib"] / (8 if part in sharded else 1)
        assert eight[f"{part}_gib"] == pytest.approx(expected)


def test_zero_does_not_change_inference():
    r = ok("vram", model="llama-3.1-8b", num_devices=4, tp=1, zero=3)
    assert r["per_device"]["weights_gib"] == ok("vram", model="llama-3.1-8b")["per_device"]["weights_gib"]
    assert "note.zero_ignored" in keys(r)


def test_activation_formula_and_checkpointing():
    # Korthikanti et al.: 34 s b h per layer + 4 s b v logits; with checkpointing 2 s b h per layer + one layer.
    s, b, h, v, layers = 2048, 2, 4096, 128_256, 32
    plain = ok("vram", model="llama-3.1-8b", mode="full", context=s, batch=b)["breakdown"]["activations_gib"] * GIB
    assert plain == layers * 34 * s * b * h + 4 * s * b * v
    ckpt = ok("vram", model="llama-3.1-8b", mode="full", context=s, batch=b, gradient_checkpointing=True)
    assert ckpt["breakdown"]["activations_gib"] * GIB == layers * 2 * s * b * h + 34 * s * b * h + 4 * s * b * v


def test_lora_trains_only_the_adapters():
    # Rank 8 on q, k, v, o and the three MLP matrices of Llama 3.1 8B's 32 layers.
    h, q, kv, i = 4096, 4096, 1024, 14336
    per_layer = 8 * (2 * (h + q) + 2 * (h + kv) + 3 * (h + i))
    r = ok("vram", model="llama-3.1-8b", mode="lora", lora_rank=8)
    assert r["trainable_params_b"] * 1e9 == 32 * per_layer
    assert r["breakdown"]["gradients_gib"] * GIB == 32 * per_layer * 2
    assert r["breakdown"]["optimizer_gib"] * GIB == 32 * per_layer * 12
    qlora = ok("vram", model="llama-3.1-8b", mode="qlora")
    assert qlora["weights"] == "nf4" and qlora["breakdown"]["weights_gib"] < r["breakdown"]["weights_gib"] / 2.5


def test_fp32_full_training_has_no_separate_master_copy():
    r = ok("vram", model="llama-3.2-1b", mode="full", weights="fp32")
    per_param = {k: r["breakdown"][f"{k}_gib"] * GIB / 1.24e9 for k in ("weights", "gradients", "optimizer")}
    assert per_param == pytest.approx({"weights": 4, "gradients": 4, "optimizer": 8})


def test_fits_answers_70b_at_4_bit_on_two_rtx_4090():
    # "Llama 3.1 70B at 4-bit on two RTX 4090s?" -- yes: two 24 GiB cards, about 22.5 GiB each at 8K context.
    r = ok("vram", model="llama-3.1-70b", weights="q4_k_m", context=8192)
    fits = {f["device"]: f for f in r["fits"]}
    assert fits["rtx-4090"]["count"] == 2 and fits["rtx-4090"]["per_device_gib"] <= 24
    assert fits["l4"]["count"] == 2
    assert fits["a100-sxm-80gb"]["count"] == 1
    counts = [f["count"] for f in r["fits"] if f["count"]]
    assert counts == sorted(counts)


def test_fits_is_none_beyond_the_largest_cluster():
    r = ok("vram", model="deepseek-v3", mode="full", context=131072, batch=64)
    assert any(f["count"] is None for f in r["fits"]) or all(f["count"] > 1 for f in r["fits"])
    tiny = ok("vram", model="llama-3.2-1b", overhead_gib=100)
    # A device smaller than its own runtime overhead never fits; SRAM-only chips carry none.
    sram = {i for i, d in catalog().devices.items() if d["memory"]["type"].upper().startswith("SRAM")}
    assert all(f["count"] is None for f in tiny["fits"] if f["capacity_gib"] <= 100 and f["device"] not in sram)


def test_fits_rounds_up_and_an_exactly_full_device_is_enough():
    # Llama 3.1 70B in INT8 at 4,096 tokens on SRAM-only chips (no runtime overhead per chip):
    # chips of exactly half the replica's memory hold it in two, a byte less each needs three.
    r = ok("vram", model="llama-3.1-70b", weights="int8")
    replica_gib = r["total_gib"] - r["breakdown"]["overhead_gib"]
    sram = dict(catalog().devices["groq-lpu"])
    half = {**sram, "memory": {**sram["memory"], "capacity_gib": replica_gib / 2}}
    short = {**sram, "memory": {**sram["memory"], "capacity_gib": replica_gib / 2 - 1 / GIB}}
    counts = {f["device"]: f["count"] for f in fits(spec("llama-3.1-70b"), Options.of(weights="int8"),
                                                    {"half": half, "short": short})}
    assert counts == {"half": 2, "short": 3}
    # The Groq LPU's 230 MB (0.215 GiB) of SRAM: 69.1 GiB of weights, KV cache and workspace need 322 chips.
    assert {f["device"]: f["count"] for f in r["fits"]}["groq-lpu"] == 322 == math.ceil(replica_gib / 0.215)


def test_moe_keeps_all_experts_in_memory():
    r = ok("vram", model="mixtral-8x7b", weights="bf16")
    assert r["breakdown"]["weights_gib"] * GIB == pytest.approx(46.7e9 * 2)
    assert "note.moe_all_experts" in keys(r)


def test_mla_cache_is_not_split_by_tensor_parallelism():
    one = ok("vram", model="deepseek-v3", context=8192, weights="fp8")
    eight = ok("vram", model="deepseek-v3", context=8192, weights="fp8", tp=8)
    assert eight["per_device"]["kv_cache_gib"] == one["per_device"]["kv_cache_gib"]
    assert {"note.mla", "note.mla_replicated"} <= keys(eight)


# --- devices and speed -----------------------------------------------------------


def test_peak_lookup_uses_dense_matrix_figures_and_falls_back_explicitly():
    a100, h100 = catalog().devices["a100-sxm-80gb"], catalog().devices["h100-sxm"]
    assert devices.peak(h100, "bf16").tflops == 989.4  # the dense figure, not the 1,978.9 sparse one
    fp8 = devices.peak(a100, "fp8")
    assert (fp8.precision, fp8.fell_back, fp8.tflops) == ("bf16", True, 312)
    fp32 = devices.peak(h100, "fp32")
    assert (fp32.unit, fp32.tflops) == ("vector", 66.9)
    sparse_only = {"compute": [{"precision": "fp16", "unit": "matrix", "sparsity": "sparse", "tflops": 100}]}
    # Only a sparse figure: dense work gets half of it, and the peak records where it came from.
    assert devices.peak(sparse_only, "fp16") == devices.Peak(50.0, "fp16", "matrix", "fp16", from_sparse=100, origin="derived")
    assert devices.peak({"compute": []}, "fp16") is None


def test_fallback_and_matrix_unit_are_said_in_the_result():
    r = ok("speed", model="llama-3.1-8b", weights="fp8", device="a100-sxm-80gb", workload="prefill")
    assert r["device"]["precision"] == "bf16" and "note.fallback" in keys(r)
    # FP32 weights run on the TF32 tensor cores, never on the vector unit while a matrix figure exists.
    r = ok("speed", model="llama-3.1-8b", weights="fp32", device="h100-sxm", workload="prefill")
    assert (r["device"]["unit"], r["device"]["precision"]) == ("matrix", "tf32") and "note.fallback" in keys(r)


def _terms(model_id, device_id, case):
    from atlas.core.calculators import speed_model as sm
    from atlas.core.calculators.models import ModelSpec

    cat = catalog()
    return sm.terms(ModelSpec.from_preset(model_id, cat.models[model_id]), cat.devices[device_id], case)


def test_h100_vs_a100_decode_is_at_most_the_bandwidth_ratio():
    r = ok("speed", model="llama-3.1-8b", weights="bf16", workload="decode", device="h100-sxm",
           baseline="a100-sxm-80gb", engine="vllm")
    assert r["device"]["bound"] == r["baseline"]["bound"] == "memory"
    # The fixed per-step cost is the same on both, so the speed-up is below the bandwidth ratio, never above.
    assert 1.2 < r["speedup"] < 3350 / 2039 + 1e-9
    assert r["reason"]["key"] == "reason.memory_bound"
    assert r["reason"]["params"]["ratio"] == pytest.approx(1.643, abs=0.001)
    assert r["comparison"] == {"direction": "faster", "factor": r["speedup"], "both_fit": True}


def test_decode_time_is_the_sum_of_its_fitted_terms():
    from atlas.core.calculators import fitted
    from atlas.core.calculators import speed_model as sm

    r = ok("speed", model="llama-3.1-8b", weights="bf16", kv_cache="fp16", context=4096, batch=4, device="h100-sxm",
           engine="vllm")
    expected_bytes = 8.03e9 * 2 + 4 * 4096 * 131_072
    assert r["bytes"] == pytest.approx(expected_bytes)
    t = _terms("llama-3.1-8b", "h100-sxm", sm.Case("decode", "bf16", context=4096, batch=4, engine="vllm"))
    # The input embedding table (128,256 x 4,096 at 2 bytes) is looked up, not read, per step.
    assert t.bytes_read == pytest.approx(expected_bytes - 128_256 * 4096 * 2, rel=1e-6)
    eta = sm.efficiencies(t, fitted.PARAMS)
    kv = 4 * 4096 * 131_072
    assert r["device"]["time_parts_s"]["mem"] == pytest.approx((t.bytes_read - kv) / (3350e9 * eta["mem"]))
    assert r["device"]["time_parts_s"]["kv_mem"] == pytest.approx(kv / (3350e9 * eta["kv_mem"]))
    assert r["device"]["time_s"] == pytest.approx(sum(r["device"]["time_parts_s"].values()))
    assert r["device"]["tokens_per_s"] == pytest.approx(4 / r["device"]["time_s"])
    assert 0 < eta["mem"] < 1


def test_moe_decode_reads_active_experts_for_one_token():
    r = ok("speed", model="mixtral-8x7b", weights="bf16", context=1, batch=1, device="h100-sxm")
    assert r["bytes"] == pytest.approx(12.9e9 * 2, rel=1e-3)


def test_prefill_is_compute_bound_on_a_long_prompt():
    r = ok("speed", model="llama-3.1-70b", weights="bf16", workload="prefill", context=8192, device="h100-sxm",
           baseline="a100-sxm-80gb", engine="vllm")
    assert r["device"]["bound"] == r["baseline"]["bound"] == "compute"
    # Same engine, same device class: the compute terms scale with the peaks; fixed costs pull the ratio below them.
    assert 0.8 * 989.4 / 312 < r["speedup"] <= 989.4 / 312 + 1e-9
    assert r["arithmetic_intensity"] > r["device"]["critical_intensity"]


def test_training_time_hours_energy_and_cost():
    r = ok("speed", model="llama-3.1-8b", workload="training", tokens=1e12, device="h100-sxm", num_devices=64,
           price_per_hour=2.5)
    flops = 6 * 8.03e9 * 1e12
    time = flops / (64 * 989.4e12 * 0.40)
    d = r["device"]
    assert d["time_s"] == pytest.approx(time)
    assert d["device_hours"] == pytest.approx(time * 64 / 3600)
    assert d["energy_kwh"] == pytest.approx(time * 64 / 3600 * 700 / 1000)
    assert d["cost_usd"] == pytest.approx(time * 64 / 3600 * 2.5)
    assert r["arithmetic_intensity"] is None and d["bound"] == "compute"
    recompute = ok("speed", model="llama-3.1-8b", workload="training", tokens=1e12, device="h100-sxm",
                   gradient_checkpointing=True)
    assert recompute["flops"] == pytest.approx(8 * 8.03e9 * 1e12)


def test_kernel_roofline_and_efficiency_overrides():
    r = ok("speed", workload="kernel", flops=1e12, bytes=1e9, device="h100-sxm", precision="bf16")
    assert r["device"]["time_s"] == pytest.approx(max(1e12 / 989.4e12, 1e9 / 3350e9))
    assert r["device"]["critical_intensity"] == pytest.approx(989.4e12 / 3350e9)
    slow = ok("speed", workload="kernel", flops=1e12, bytes=1e9, device="h100-sxm", precision="bf16",
              compute_efficiency=0.5, memory_efficiency="0,5")
    assert slow["device"]["time_s"] == pytest.approx(2 * r["device"]["time_s"])


def test_every_default_names_its_source():
    for item in assumptions.all_defaults():
        assert item.source.url.startswith("https://") and item.source.says, item.key


def test_inference_on_n_devices_splits_the_model_unless_tp_says_otherwise():
    # "Llama 3.1 70B at 4-bit on two 24 GiB cards?": each holds half the weights and KV cache plus its overhead.
    one = ok("vram", model="llama-3.1-70b", weights="q4_k_m", context=8192)
    two = ok("vram", model="llama-3.1-70b", weights="q4_k_m", context=8192, num_devices=2)
    assert two["tp"] == 2 and two["per_device_gib"] < 24
    assert two["per_device"]["weights_gib"] == pytest.approx(one["per_device"]["weights_gib"] / 2)
    replicas = ok("vram", model="llama-3.1-70b", weights="q4_k_m", num_devices=2, tp=1)
    assert replicas["per_device"]["weights_gib"] == one["per_device"]["weights_gib"]
    training = ok("vram", model="llama-3.1-8b", mode="full", num_devices=4)
    assert training["tp"] == 1  # data parallel; ZeRO decides what is sharded

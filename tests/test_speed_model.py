"""The fitted speed model: its physics, its fit, its cross-validated accuracy.

Figures printed here are the ones the accuracy page shows (``atlas/data/fit_report.json``).
"""

from __future__ import annotations

import math

import pytest

from atlas.core.calculators import fitted
from atlas.core.calculators import speed_model as sm
from atlas.core.calculators.models import ModelSpec
from atlas.data import accuracy, fit_speed
from calculators_support import catalog, ok
from conftest import shared_dataset


def terms(model_id, device_id, case):
    cat = catalog()
    return sm.terms(ModelSpec.from_preset(model_id, cat.models[model_id]), cat.devices[device_id], case)


def test_fitted_parameters_cover_every_feature_of_the_model():
    assert set(fitted.PARAMS) == set(sm.FEATURES)
    for feature, entry in fitted.PARAMS.items():
        assert math.isfinite(entry["global"])
        levels = set(entry) - {"global"}
        assert levels <= set(sm.FEATURES[feature][1]), feature


def test_efficiencies_are_fractions_and_fixed_costs_plausible():
    t = terms("llama-3.1-8b", "rtx-4090", sm.Case("decode", "q4_k_m", context=512))
    eta = sm.efficiencies(t, fitted.PARAMS)
    for feature, (kind, _) in sm.FEATURES.items():
        if kind == "efficiency":
            assert 0 < eta[feature] < 1, feature
        else:
            assert 1e-8 < eta[feature] < 0.05, feature  # seconds: between 10 ns and 50 ms


def test_layer_split_at_batch_one_is_not_faster_than_one_device():
    one = ok("speed", model="llama-3.1-8b", weights="q4_k_m", device="rtx-3090")
    two = ok("speed", model="llama-3.1-8b", weights="q4_k_m", device="rtx-3090", num_devices=2, split="layer")
    assert two["device"]["tokens_per_s"] <= one["device"]["tokens_per_s"]
    assert two["device"]["time_parts_s"]["hop"] > 0


def test_tensor_parallel_over_nvlink_speeds_up_a_large_model():
    one = ok("speed", model="llama-3.1-70b", weights="fp8", device="h100-sxm", engine="vllm")
    four = ok("speed", model="llama-3.1-70b", weights="fp8", device="h100-sxm", engine="vllm", num_devices=4,
              split="tensor")
    assert 1.5 < four["device"]["tokens_per_s"] / one["device"]["tokens_per_s"] < 4
    assert four["device"]["time_parts_s"]["allreduce"] > 0


def test_offloading_layers_to_system_memory_slows_generation_and_says_so():
    full = ok("speed", model="llama-3.1-70b", weights="q4_k_m", device="rtx-4090")
    half = ok("speed", model="llama-3.1-70b", weights="q4_k_m", device="rtx-4090", gpu_layers=40)
    assert half["device"]["tokens_per_s"] < full["device"]["tokens_per_s"] / 3
    assert "note.offload" in {n["key"] for n in half["notes"]}
    # Twice the host bandwidth: the CPU part halves.
    fast = ok("speed", model="llama-3.1-70b", weights="q4_k_m", device="rtx-4090", gpu_layers=40,
              host_bandwidth_gb_s=179.2)
    assert fast["device"]["time_parts_s"]["host_mem"] == pytest.approx(half["device"]["time_parts_s"]["host_mem"] / 2)


def test_a_model_that_does_not_fit_says_so_first_with_what_would_fit():
    r = ok("speed", model="llama-3.1-70b", weights="bf16", device="rtx-4090")
    verdict = r["device"]["memory"]
    assert verdict["fits"] is False and verdict["margin_gib"] < -100
    assert r["notes"][0]["key"] == "note.does_not_fit"
    tips = verdict["suggestions"]
    assert tips["num_devices"] >= 6 and 0 < tips["gpu_layers"] < 80
    assert "note.fit_gpu_layers" in {n["key"] for n in r["notes"]}


def test_unified_memory_share_applies_to_the_fit_verdict():
    r = ok("speed", model="gpt-oss-120b", weights="q4_k_m", device="apple-m4-max")
    verdict = r["device"]["memory"]
    assert verdict["gpu_share"] < 1
    assert verdict["usable_gib"] == pytest.approx(128 * verdict["gpu_share"])


def test_device_without_a_compute_peak_still_gets_a_decode_estimate():
    r = ok("speed", model="llama-3.1-8b", weights="q4_k_m", device="alveo-v80")
    assert r["device"]["peak_tflops"] is None and r["device"]["tokens_per_s"] > 0
    assert "note.no_compute_peak" in {n["key"] for n in r["notes"]}


def test_apple_m4_max_prefill_answers_from_its_estimated_gpu_peak():
    """Issue 33: the M4 family states a GPU figure (estimated from cores, ALUs and clock), so prefill is answered."""
    r = ok("speed", model="qwen3-30b-a3b", weights="mlx_4bit", device="apple-m4-max", workload="prefill")
    device = r["device"]
    assert device["unit"] == "vector" and device["precision"] == "fp16" and device["tokens_per_s"] > 0
    assert device["peak_tflops"] == next(c["tflops"] for c in catalog().devices["apple-m4-max"]["compute"]
                                         if c["precision"] == "fp16" and c["unit"] == "vector")
    assert "note.vector_unit" in {n["key"] for n in r["notes"]}


def test_decode_on_a_vector_unit_charges_the_compute_of_all_sequences_but_one():
    """One sequence's matrix-vector products on a vector unit overlap the weight reads; each further one adds its
    FLOPs, so batch 2 costs one sequence's compute and the step from batch 1 to 2 is smooth. Matrix units keep all."""
    def compute(device, batch):
        return terms("llama-3.1-8b", device, sm.Case("decode", "q4_k_m", context=1, batch=batch)).x["compute_decode"]
    assert terms("llama-3.1-8b", "apple-m4-max", sm.Case("decode", "q4_k_m", context=1)).peak_unit == "vector"
    assert compute("apple-m4-max", 1) == 0
    assert compute("apple-m4-max", 8) == pytest.approx(7 * compute("apple-m4-max", 2))
    assert compute("rtx-4090", 8) == pytest.approx(8 * compute("rtx-4090", 1)) and compute("rtx-4090", 1) > 0


def test_rubin_against_b200_uses_a_matrix_estimate_never_the_vector_unit():
    r = ok("speed", model="llama-3.1-70b", weights="bf16", workload="prefill", device="rubin", baseline="b200",
           engine="vllm")
    assert r["device"]["unit"] == "matrix" and r["comparison"]["direction"] == "faster"
    assert r["comparison"]["factor"] > 1
    assert "note.peak_scaled" in {n["key"] for n in r["notes"]}


def test_moe_decode_reads_only_the_experts_a_token_routes_to():
    dense = terms("qwen3-32b", "rtx-5090", sm.Case("decode", "q4_k_m", context=1))
    moe = terms("qwen3-30b-a3b", "rtx-5090", sm.Case("decode", "q4_k_m", context=1))
    assert moe.bytes_read < dense.bytes_read / 5


def test_moe_routed_experts_are_read_at_their_own_efficiency_and_grow_with_the_batch():
    """The routed experts a step touches (expected distinct experts, 1 - (1 - k/E)^batch per layer) are their own
    memory term; with the rest of the weights they add up to the bytes read. A dense model has none."""
    cat = catalog()
    bandwidth = sm.dev.bandwidth_bytes_s(cat.devices["rtx-5090"])
    one = terms("qwen3-30b-a3b", "rtx-5090", sm.Case("decode", "q4_k_m", context=1))
    many = terms("qwen3-30b-a3b", "rtx-5090", sm.Case("decode", "q4_k_m", context=1, batch=64))
    kv = one.x["kv_mem"] * bandwidth
    assert (one.x["mem"] + one.x["expert_mem"]) * bandwidth + kv == pytest.approx(one.bytes_read)
    assert one.x["expert_mem"] > one.x["mem"]  # 128 experts hold most of the weights
    assert many.x["mem"] == pytest.approx(one.x["mem"])
    # 8 of 128 experts: one token touches 6.25 % of them, 64 tokens 1 - (120/128)^64 = 98.4 %
    assert many.x["expert_mem"] / one.x["expert_mem"] == pytest.approx((1 - (120 / 128) ** 64) / (8 / 128))
    assert terms("qwen3-32b", "rtx-5090", sm.Case("decode", "q4_k_m", context=1)).x["expert_mem"] == 0


def test_comparison_wording_uses_a_factor_above_one():
    r = ok("speed", model="llama-3.1-8b", weights="q4_k_m", device="rtx-4060", baseline="rtx-4090")
    assert r["comparison"]["direction"] == "slower" and r["comparison"]["factor"] > 1
    assert r["comparison"]["factor"] == pytest.approx(1 / r["speedup"])


def _small_problem():
    dataset = shared_dataset()
    cases, _ = fit_speed.build_cases(dataset)
    keep = sorted({c.source for c in cases})[:4]
    return dataset, [c for c in cases if c.source in keep]


def test_cross_validation_never_sees_the_measurement_it_predicts():
    dataset, cases = _small_problem()
    source = cases[0].source
    # Only the held-out source's fold is computed: each fold is its own fit, independent of the others.
    before = {(r["source"], r["phase"], i): r["predicted_tokens_per_s"]
              for i, r in enumerate(fit_speed.cross_validate(cases, dataset, {source}))}
    assert before and {key[0] for key in before} == {source}
    for c in cases:
        if c.source == source:
            c.measured_s *= 10  # a wildly different measurement of the held-out source
    after = {(r["source"], r["phase"], i): r["predicted_tokens_per_s"]
             for i, r in enumerate(fit_speed.cross_validate(cases, dataset, {source}))}
    assert before == after



def test_accuracy_targets_printed_and_the_ones_met_kept():
    report = accuracy.load_report()
    summary = report["summary"]["cross_validated"]
    print()
    for group, figures in summary.items():
        print(f"{group:26s} n={figures['cases']:4d} within x0.8-1.25 {figures['within_0.8_1.25']:.0%} "
              f"within x0.67-1.5 {figures['within_0.67_1.5']:.0%} median {figures['median_ratio']:.2f} "
              f"worst {figures['worst_ratio']:.2f}")
    assert summary["all"]["cases"] >= 200 and len(report["summary"]["sources"]) >= 15
    # Issue 33's targets: single-device decode 90 % within x0.8-1.25 (missed), multi-device or concurrent 80 % within
    # x0.67-1.5 (missed), prefill 75 % within x0.67-1.5 (met). The floors keep each where the last fit put it, so a
    # change that makes one worse fails here. That fit (2026-12-06, evening) admitted 270 MLX cases (135 runs) at 2, 3, 5 and
    # 6 bits the data set held but could not use before the calculators had those formats: decode at batch 1 rose
    # 78.1 -> 78.5 %, prefill 75.2 -> 78.6 %, while multi-device decode fell 81.7 -> 75.6 %, because 41 of the new
    # cases are tensor parallel over Thunderbolt between Macs, one source only: left out, its link latency falls back
    # to the pooled one of PCIe and NVLink, and the prediction is 2-3 times too slow (a second source would fix it).
    # The refit with a second Thunderbolt source (Jeff Geerling's Exo runs, 2026-12-06 late) lowered multi-device
    # decode to 75.2 %: the two sources disagree (Exo's tensor-parallel decode implies ~4x less time per all-reduce),
    # so each left out is predicted about 2x off (Exo's cases measured/predicted 2.0, guruswami's 0.53 as before).
    # Then 11 RTX 5090 runs with measured power (tg512) joined decode at batch 1: 78.5 -> 78.9 %; NVIDIA NIM and
    # InferenceX concurrency sweeps took it to 80.0 %. Fitting the runs whose throughput includes their prompts over
    # their serving terms (fit_speed.FIT_SERVING_RUNS, with the figures that decided it) traded decode at batch 1
    # (80.0 -> 77.9 %), multi-device (74.6 -> 74.4 %) and prefill (78.8 -> 77.9 %) for the held-out
    # maximum-throughput runs (76 -> 85 % within x0.67-1.5), asserted below.
    # The refit of 2026-12-07 with six serving sources (LMDeploy's static batches on A100, the ROCm vLLM latency
    # table on 8x MI300X, TensorRT-LLM's perf overviews v0.9.0/v0.17/v0.20, an H100 vLLM/SGLang concurrency sweep):
    # multi-device or batched decode 74.4 -> 78.2 %, maximum-throughput runs 85.3 -> 88.5 %, decode at batch 1
    # 77.9 -> 78.5 %, while prefill fell 77.9 -> 77.2 % (the batched serving runs move the shared prompt-processing
    # efficiencies of the data-centre engines; still above the target of 75 %).
    assert summary["decode-single-batch1"]["within_0.8_1.25"] >= 0.784
    assert summary["decode-multi-or-batched"]["within_0.67_1.5"] >= 0.781
    assert summary["prefill"]["within_0.67_1.5"] >= 0.772
    assert summary["serving-max-throughput"]["within_0.67_1.5"] >= 0.885
    # Every case the data holds is answered or refused with a reason, counted per reason and source.
    refused = report["summary"]["refused"]
    assert refused and all(reason and by_source and all(n > 0 for n in by_source.values())
                           for reason, by_source in refused.items())
    assert not any("ud_q" in reason for reason in refused)  # Unsloth's dynamic K-quants are fitted as K-quants


def test_prompt_attention_streams_kv_by_kv_heads_and_quantised_weights_are_unpacked_on_the_vector_units():
    # Llama 2 7B keeps 32 KV heads of 128, Llama 3.1 8B 8 of 128, both 32 layers: after the same context a prompt
    # attends to the same pairs, and streams four times the K and V bytes on the former.
    case = sm.Case("prefill", "q4_k_m", context=16384, prompt=2048)
    mha, gqa = terms("llama-2-7b", "rtx-4090", case), terms("llama-3.1-8b", "rtx-4090", case)
    assert mha.x["attention_kv"] == pytest.approx(4 * gqa.x["attention_kv"], rel=1e-9)
    assert terms("llama-3.1-8b", "rtx-4090", sm.Case("prefill", "q4_k_m", prompt=2048)).x["attention_kv"] \
        < gqa.x["attention_kv"] / 5  # without the cached context it attends to far fewer pairs
    assert terms("llama-3.1-8b", "rtx-4090", sm.Case("decode", "q4_k_m", context=16384)).x["attention_kv"] == 0
    # Unpacking: active parameters x tokens / tile over the FP32 vector rate (RTX 4090: 82.6 TFLOP/s), for formats
    # multiplied in 16 bits only: none for BF16 weights, none for FP8 products on an H100 in vLLM.
    q4 = terms("llama-3.1-8b", "rtx-4090", sm.Case("prefill", "q4_k_m", prompt=512))
    model = ModelSpec.from_preset("llama-3.1-8b", catalog().models["llama-3.1-8b"])
    assert q4.x["dequant"] == pytest.approx(model.active * 512 / sm.DEQUANT_TILE / 82.6e12, rel=1e-9)
    assert terms("llama-3.1-8b", "rtx-4090", sm.Case("prefill", "bf16", prompt=512)).x["dequant"] == 0
    assert terms("llama-3.1-8b", "h100-sxm", sm.Case("prefill", "fp8", prompt=512, engine="vllm")).x["dequant"] == 0
    assert terms("llama-3.1-8b", "h100-sxm", sm.Case("prefill", "gptq", prompt=512, engine="vllm")).x["dequant"] > 0


def test_refused_measurements_are_counted_per_reason_and_source(dataset):
    _, refused = fit_speed.build_cases(dataset)
    counts = fit_speed.refused_counts(refused)
    assert sum(n for by_source in counts.values() for n in by_source.values()) == len(refused)
    assert counts == accuracy.load_report()["summary"]["refused"]  # the committed report is this data's
    unmodelled = {reason for reason in counts if reason.startswith("weight format ")}
    assert "weight format mlx_q5_g32 is not modelled" in unmodelled  # MLX at group 32: not a format of the calculators
    assert not any(f"mlx_{bits}bit" in reason for reason in unmodelled for bits in (2, 3, 4, 5, 6, 8))
    # The project's own eager-transformers run is the only source of its engine: not fitted, and said so.
    assert counts["engine transformers is measured by one source only"] == {
        "atlas-h200-transformers-eager-2026-12-04": 10}


def test_the_fit_is_dated_by_its_data_not_by_the_day_it_ran(dataset):
    newest = max(e["source"]["accessed"] for e in dataset.inference.values())
    assert fit_speed.data_date(dataset) == newest == fitted.PROVENANCE["date"]


@pytest.mark.parametrize("weights, low, high", [("q4_k_m", 0.8, 1.25), ("q8_0", 0.8, 1.25), ("bf16", 1.6, 2.6)])
def test_same_chip_prefill_differs_only_where_the_hardware_does(weights, low, high):
    """RTX PRO 6000 Blackwell and RTX 5090 are both GB202: with quantised weights (llama.cpp) their prefill differs
    by the clocks and the FP16 rate only; with BF16 weights llama.cpp multiplies through cuBLAS with FP32
    accumulation, which GeForce cards run at half rate (209.5 against 500 TFLOP/s), so about 2x is the hardware's
    own gap, not a modelling error (issue 33 reported it as one). The weight reads and the attention scores take
    the same time on both (1.79 TB/s each), which keeps the gap below the 2.4x of the matrix rates."""
    r = ok("speed", model="llama-3.1-8b", workload="prefill", weights=weights, device="rtx-pro-6000-blackwell",
           baseline="rtx-5090")
    assert r["comparison"]["direction"] == "faster"
    assert low <= r["speedup"] <= high


def _llama_8b_h100():
    cat = catalog()
    return ModelSpec.from_preset("llama-3.1-8b", cat.models["llama-3.1-8b"]), cat.devices["h100-sxm"]


def test_serving_run_with_one_request_and_no_prompt_is_plain_decode():
    model, device = _llama_8b_h100()
    case = sm.Case("decode", "fp8", engine="vllm")
    run = sm.serving_run(model, device, case, concurrency=1, input_tokens=0, output_tokens=1, params=fitted.PARAMS)
    plain = sm.predict(sm.terms(model, device, case), fitted.PARAMS)["time_s"]
    assert run["time_s"] == pytest.approx(plain, rel=1e-12)
    assert run["prefill_s"] == 0.0
    assert run["output_tokens_per_s"] == pytest.approx(1 / plain) == pytest.approx(run["per_user_tokens_per_s"])
    # 1,024 steps summed in stretches of the growing cache: within 0.1 % of summing every step
    steps = sum(sm.predict(sm.terms(model, device, sm.Case("decode", "fp8", engine="vllm", context=k, batch=4)),
                           fitted.PARAMS)["time_s"] for k in range(512, 512 + 1024))
    stretched = sm.serving_terms(model, device, case, 4, 512, 1024)
    prompts = sm.terms(model, device, sm.Case("prefill", "fp8", engine="vllm", prompt=512, batch=4))
    decode_only = sm.predict(stretched, fitted.PARAMS)["time_s"] - sm.predict(prompts, fitted.PARAMS)["time_s"]
    assert decode_only == pytest.approx(steps, rel=1e-3)
    assert stretched.tokens == 4 * 1024


def test_serving_run_more_input_tokens_means_lower_output_throughput():
    model, device = _llama_8b_h100()
    case = sm.Case("decode", "fp8", engine="vllm")
    figures = []
    for isl in (0, 128, 1024, 8192):
        run = sm.serving_run(model, device, case, 64, isl, 1024, fitted.PARAMS)
        figures.append(run["output_tokens_per_s"])
        assert run["per_user_tokens_per_s"] == pytest.approx(run["output_tokens_per_s"] / 64)
        assert (run["prefill_s"] > 0) == (isl > 0)
        print(f"llama-3.1-8b fp8 on H100, vLLM, 64 requests, ISL {isl}/OSL 1024: "
              f"{run['output_tokens_per_s']:.0f} output tokens/s, {run['per_user_tokens_per_s']:.1f} per user")
    assert figures == sorted(figures, reverse=True) and figures[0] > 1.5 * figures[-1]
    # more requests at once: more output in all, less for each user
    one, many = (sm.serving_run(model, device, case, c, 1024, 1024, fitted.PARAMS) for c in (1, 64))
    assert many["output_tokens_per_s"] > 10 * one["output_tokens_per_s"]
    assert many["per_user_tokens_per_s"] < one["per_user_tokens_per_s"]


def test_max_throughput_concurrency_is_what_the_kv_cache_holds_up_to_the_engines_cap():
    cat = catalog()
    model = ModelSpec.from_preset("llama-3.1-70b", cat.models["llama-3.1-70b"])
    device = cat.devices["h100-sxm"]
    case = sm.Case("decode", "fp8", kv_cache="fp8", engine="tensorrt-llm")
    short, long_ = (sm.max_throughput_concurrency(model, device, case, isl, osl) for isl, osl in ((128, 128),
                                                                                                 (20000, 2000)))
    # 0.95 × (80 GiB less 72.7 GB of FP8 weights) = 12.5 GB; 160 KiB a token of FP8 KV: ~76,000 tokens, so 298
    # requests of 256 tokens and 3 of 22,000
    assert short == 298 and long_ == 3
    small = ModelSpec.from_preset("llama-3.1-8b", cat.models["llama-3.1-8b"])
    assert sm.max_throughput_concurrency(small, cat.devices["b200"], case, 128, 128) == 4096  # trtllm-bench's cap


def test_maximum_throughput_runs_are_a_cross_validated_group_of_their_own():
    summary = accuracy.load_report()["summary"]
    group = summary["cross_validated"][fit_speed.MAX_THROUGHPUT_GROUP]
    print(f"\nserving-max-throughput n={group['cases']} within x0.67-1.5 {group['within_0.67_1.5']:.0%} "
          f"median {group['median_ratio']:.2f} (admitted to the fit: {fit_speed.ADMIT_MAX_THROUGHPUT})")
    # 1,340 since the TensorRT-LLM perf overviews of v0.17 and v0.20 (2026-12-07; 787 before)
    assert group["cases"] == 1340
    assert group["within_0.67_1.5"] >= 0.885  # 88.5 % (2026-12-07 fit); median ratio 1.03
    refused = summary["refused"].get("maximum-throughput run whose concurrency the source does not state", {})
    assert not any(source.startswith("tensorrt-llm-perf-overview") for source in refused)

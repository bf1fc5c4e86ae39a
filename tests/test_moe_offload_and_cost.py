"""Issue 31, items 3, 5 and 6: mixture-of-experts models with their experts in system RAM (llama.cpp
``--n-cpu-moe`` / ``-ot exps=CPU``), the cost per million tokens in the answer, and the engine per device.

Hand-derived ranges for Qwen3-30B-A3B at Q4_K_M, 32k context, on an RTX 4060 Ti 16GB (288 GB/s) with
system RAM at 89.6 GB/s (dual-channel DDR5-5600, the speed calculator's default):

- weights 17.2 GiB, of which the routed experts (128 per layer, 8 per token, 48 MoE layers) are 16.3 GiB;
  an fp16 KV cache of 32,768 tokens is 48 layers x 4 KV heads x 128 x 2 x 2 bytes x 32,768 = 3.0 GiB, Q8_0 1.6 GiB.
  With every expert in RAM the GPU holds 17.2 - 16.3 = 0.9 GiB of weights + 1.6 GiB cache + 1 GiB runtime:
  3-4 GiB, and RAM 16.3 GiB.
- Decode, all experts in RAM, Q8_0 cache: per token the CPU reads 16.3 GiB x 8/128 = 1.10 GB (12.2 ms at
  89.6 GB/s); the GPU reads about 0.6 GiB of other weights and 1.6 GiB of cache, 2.4 GB (8.3 ms at 288 GB/s).
  At full bandwidth on both: 1 / 20.5 ms = 49 tokens/s at most; at half of it, plus ~3 ms of fixed costs per
  step: 1 / 44 ms = 23 tokens/s. So 22-49 tokens/s.
- The fewest MoE layers that make it fit with a Q8_0 cache: 21.3 - 1.4 = 19.8 GiB against 16 GiB, 3.8 GiB of
  experts must leave, 3.8 / (16.3 / 48) = 11.2, so 12 layers (4.1 GiB in RAM). Per token: RAM 0.27 GB (3.1 ms),
  GPU 0.6 GiB + 12.2 GiB x 8/128 + 1.6 GiB = 3.0 GiB, 3.2 GB (11.2 ms): at most 70 tokens/s, at least
  1 / (28.6 + 3) ms = 31 tokens/s.
"""

import json

import pytest

from atlas.cli import main as cli_main
from atlas.core import l10n
from calculators_support import catalog, rendered, result

QWEN_16GB = {"model": "qwen3-30b-a3b", "weights": "q4_k_m", "context": 32768, "device": "rtx-4060-ti-16gb"}


call, view = result, rendered  # the shared helpers of calculators_support, by this file's names


def test_memory_verdict_suggests_experts_in_system_ram_with_their_speed():
    result = call("vram", QWEN_16GB)
    verdict = result["verdict"]
    assert not verdict["fits"] and 20 <= verdict["need_gib"] <= 22.5
    tip = verdict["suggestions"]["moe_offload"]
    assert tip["moe_layers"] == 48 and 14 <= tip["cpu_moe_layers"] <= 18  # 5.3 GiB of 16.3 GiB of experts must go
    assert tip["gpu_gib"] <= 16 and 4.5 <= tip["ram_gib"] <= 6.5
    assert tip["gpu_gib"] + tip["ram_gib"] == pytest.approx(verdict["need_gib"], abs=0.01)
    assert 20 <= tip["tokens_per_s"] <= 60


@pytest.mark.parametrize("lang, words", [
    ("en", ("It runs with the experts of 16 of 48 MoE layers", "llama.cpp --n-cpu-moe 16", "GiB on the GPU",
            "tokens/s")),
    ("de", ("Es läuft, wenn die Experten von 16 der 48 MoE-Schichten", "llama.cpp --n-cpu-moe 16", "GiB auf der GPU",
            "Tokens/s")),
])
def test_memory_answer_names_the_expert_offload_in_both_languages(lang, words):
    out = view("vram", QWEN_16GB, lang)
    assert out["summary"].startswith("✗")
    for word in words:
        assert word in out["summary"], out["summary"]
    assert "\u00a0GiB" in out["summary"]
    assert 'data-result="verdict.suggestions.moe_offload.tokens_per_s"' in out["html"]


def test_option_experts_in_ram_with_a_q8_cache_fits_16_gb():
    params = {**QWEN_16GB, "kv_cache": "q8_0", "moe_offload": "experts", "ram_gib": 64}
    verdict = call("vram", params)["verdict"]
    moe = verdict["moe_offload"]
    assert verdict["fits"] and moe["cpu_moe_layers"] == 48
    assert 3.0 <= moe["gpu_gib"] <= 4.0 and 15.8 <= moe["ram_gib"] <= 16.8 and moe["ram_fits"]
    assert verdict["need_gib"] == pytest.approx(moe["gpu_gib"])
    short = call("vram", {**params, "ram_gib": 8})["verdict"]["moe_offload"]
    assert short["ram_fits"] is False
    de = view("vram", {**params, "ram_gib": 8}, "de")["summary"]
    assert "Die 8\u00a0GiB Arbeitsspeicher fassen sie nicht." in de


def test_speed_with_all_experts_in_ram_reads_both_memories():
    result = call("speed", {**QWEN_16GB, "kv_cache": "q8_0", "moe_offload": "experts"})
    device = result["device"]
    assert result["fits"] is True and device["memory"]["moe_offload"]["cpu_moe_layers"] == 48
    assert 22 <= device["tokens_per_s"] <= 49
    assert device["time_parts_s"]["host_mem"] > device["time_parts_s"]["mem"]  # RAM reads dominate
    assert "note.moe_offload" in [n["key"] for n in result["notes"]]


def test_speed_with_the_fewest_expert_layers_in_ram_is_faster_than_all():
    fit = call("speed", {**QWEN_16GB, "kv_cache": "q8_0", "moe_offload": "fit"})
    every = call("speed", {**QWEN_16GB, "kv_cache": "q8_0", "moe_offload": "experts"})
    assert fit["device"]["memory"]["moe_offload"]["cpu_moe_layers"] == 12
    assert 31 <= fit["device"]["tokens_per_s"] <= 70
    assert fit["device"]["tokens_per_s"] > every["device"]["tokens_per_s"]


@pytest.mark.parametrize("lang, first, words", [
    ("en", "Does not fit on RTX 4060 Ti 16GB", "Nearest configuration that runs: the experts of 16 of 48 MoE layers"),
    ("de", "Passt nicht auf RTX 4060 Ti 16GB", "Nächstliegende lauffähige Konfiguration: die Experten von 16 der 48"),
])
def test_speed_nearest_configuration_is_the_expert_offload(lang, first, words):
    out = view("speed", QWEN_16GB, lang)
    assert out["summary"].startswith(first) and words in out["summary"]
    alt = out["result"]["device"]["memory"]["runs_instead"]
    assert alt["change"] == "moe_offload" and alt["cpu_moe_layers"] == 16 and alt["gpu_gib"] <= 16
    assert 20 <= alt["tokens_per_s"] <= 60


def test_no_expert_offload_on_unified_memory():
    # Qwen3-235B-A22B at Q4_K_M does not fit a 128 GB Mac's GPU share; system RAM is the same memory there.
    params = {"model": "qwen3-235b-a22b", "weights": "q4_k_m", "device": "apple-m3-max"}
    verdict = call("vram", params)["verdict"]
    assert not verdict["fits"] and verdict["suggestions"]["moe_offload"] is None
    assert call("vram", {**params, "moe_offload": "experts"})["verdict"]["moe_offload"] is None
    speed = call("speed", params)["device"]["memory"]
    assert speed["suggestions"]["moe_offload"] is None and speed["moe_offload"] is None
    assert (speed["runs_instead"] or {}).get("change") != "moe_offload"


def test_dense_model_has_no_expert_offload():
    result = call("speed", {"model": "llama-3.1-70b", "weights": "bf16", "device": "rtx-4090", "moe_offload": "experts"})
    assert result["device"]["memory"]["moe_offload"] is None and result["fits"] is False
    assert "note.moe_offload_dense" in [n["key"] for n in result["notes"]]
    assert call("vram", {"model": "llama-3.1-70b", "device": "rtx-4090"})["verdict"]["suggestions"]["moe_offload"] \
        is None


def test_cli_option_and_json(capsys, monkeypatch):
    import atlas.cli as cli_module

    monkeypatch.setattr(cli_module, "load_catalog", lambda data_json: catalog())
    args = ["speed", "--model", "qwen3-30b-a3b", "--weights", "q4_k_m", "--context", "32768", "--kv-cache", "q8_0",
            "--device", "rtx-4060-ti-16gb", "--moe-offload", "experts", "--json"]
    assert cli_main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["moe_offload"] == "experts" and result["fits"] is True
    assert 22 <= result["device"]["tokens_per_s"] <= 49
    assert cli_main(["vram", "--model", "qwen3-30b-a3b", "--weights", "q4_k_m", "--context", "32768",
                     "--device", "rtx-4060-ti-16gb", "--json"]) == 0
    tip = json.loads(capsys.readouterr().out)["verdict"]["suggestions"]["moe_offload"]
    assert tip["cpu_moe_layers"] == 16 and 20 <= tip["tokens_per_s"] <= 60
    assert cli_main(args[:-1] + ["--lang", "de"]) == 0
    assert "Experten von 48 der 48 MoE-Schichten im Arbeitsspeicher" in capsys.readouterr().out
    assert cli_main(args[:-3] + ["--moe-offload", "all"]) == 2


# --- item 5: cost per million tokens in the answer, each device with its own price ---------------------------


def test_typed_price_applies_to_the_device_only_and_the_answer_gives_both_costs():
    params = {"model": "llama-3.1-8b", "device": "rtx-4090", "baseline": "a100-sxm-80gb", "price_per_hour": 0.7}
    out = view("speed", params)
    result = out["result"]
    device, base = result["device"]["cost"], result["baseline"]["cost"]
    assert device["basis"] == "given" and device["usd_per_device_hour"] == 0.7
    assert base["basis"] == "cloud" and base["usd_per_device_hour"] != 0.7 and base["as_of"]
    assert f"as of {l10n_month(base['as_of'])})." in out["summary"]  # a month in words, not ISO
    # US$ 0.70 per hour over tokens/s x 3,600 s, per million
    expected = 0.7 / (result["device"]["tokens_per_s"] * 3600) * 1e6
    assert device["usd_per_million_tokens"] == pytest.approx(expected)
    assert 2 <= device["usd_per_million_tokens"] <= 8  # 8B BF16 on a 4090: ~50 tokens/s
    shown = l10n_number(device["usd_per_million_tokens"])
    assert f"Cost on RTX 4090: ≈ US$ {shown} per million tokens (at your US$ 0.7 per device-hour)." in out["summary"]
    assert "Cost on A100 SXM 80GB: ≈ US$" in out["summary"] and "cloud providers" in out["summary"]
    own = call("speed", {**params, "baseline_price_per_hour": 1.5})["baseline"]["cost"]
    assert own["basis"] == "given" and own["usd_per_device_hour"] == 1.5


def l10n_number(value):
    from atlas.core import l10n
    return l10n.format_number(value, "en", 3 if value < 1 else 2)


def test_purchase_price_amortised_in_the_answer_in_german():
    out = view("speed", {"model": "llama-3.1-8b", "device": "rtx-4090", "purchase_usd": 2000}, "de")
    cost = out["result"]["device"]["cost"]
    assert cost["basis"] == "purchase"
    assert cost["usd_per_device_hour"] == pytest.approx(2000 / (3 * 8760))  # three years round the clock
    assert "dein Kaufpreis 2.000\u00a0US-$, verteilt auf 3 Jahre Dauerbetrieb: 0,08\u00a0US-$ je Gerätestunde" \
        in out["summary"]
    per_million = cost["usd_per_device_hour"] / (out["result"]["device"]["tokens_per_s"] * 3600) * 1e6
    assert cost["usd_per_million_tokens"] == pytest.approx(per_million)  # the hour's price over its tokens
    shown = l10n.format_number(per_million, "de", 3 if per_million < 1 else 2)  # as the answer rounds it
    assert 0.3 < per_million < 0.6 and f"Kosten auf RTX 4090: ≈ {shown}\u00a0US-$ je Million Tokens" in out["summary"]


def test_no_cost_for_a_device_that_does_not_hold_the_model():
    out = view("speed", {"model": "llama-3.1-70b", "weights": "bf16", "device": "rtx-4090", "price_per_hour": 1})
    assert out["result"]["fits"] is False and "Cost on RTX 4090" not in out["summary"]


# --- item 6: the engine assumed per device, in the answer and the comparison ---------------------------------


@pytest.mark.parametrize("lang, answer, compare", [
    ("en", "tokens/s on H100 SXM with vLLM (about", "H100 SXM is {factor}× faster than RTX 3090. Both estimated with vLLM."),
    ("de", "Tokens/s auf H100 SXM mit vLLM (etwa", "H100 SXM ist {factor}× schneller als RTX 3090. Beide mit vLLM geschätzt."),
])
def test_answer_and_comparison_name_the_engine(lang, answer, compare):
    out = view("speed", {"model": "llama-3.1-8b", "device": "h100-sxm", "baseline": "rtx-3090"}, lang)
    assert out["result"]["device"]["engine"] == out["result"]["baseline"]["engine"] == "vllm"
    # The factor is the fitted model's (it moves with each refit); the sentence must carry it, formatted per language.
    factor = l10n.format_number(out["result"]["speedup"], lang, 2, trim=False)
    assert 1.5 < out["result"]["speedup"] < 4  # memory-bound: about the bandwidth ratio 3.35 / 0.94 with the engines' efficiencies
    assert answer in out["summary"] and compare.format(factor=factor) in out["summary"]
    local = view("speed", {"model": "llama-3.1-8b", "device": "rtx-4090"}, lang)
    assert local["result"]["device"]["engine"] == "llama.cpp"
    assert ("with llama.cpp" if lang == "en" else "mit llama.cpp") in local["summary"]


def test_cli_comparison_names_the_engine(capsys, monkeypatch):
    import atlas.cli as cli_module

    monkeypatch.setattr(cli_module, "load_catalog", lambda data_json: catalog())
    assert cli_main(["speed", "--model", "llama-3.1-8b", "--device", "h100-sxm", "--baseline", "rtx-3090",
                     "--engine", "llama.cpp"]) == 0
    assert "Both estimated with llama.cpp." in capsys.readouterr().out


def l10n_month(as_of):
    from atlas.core import l10n
    return l10n.format_month(as_of[:7], "en")


@pytest.mark.parametrize("lang, one, many", [
    ("en", "on-demand price of one cloud provider, US$", "median on-demand price of 6 cloud providers"),
    ("de", "On-Demand-Preis eines Cloud-Anbieters, ", "Median der On-Demand-Preise von 6 Cloud-Anbietern"),
])
def test_a_price_from_one_provider_is_not_called_a_median_of_providers(lang, one, many):
    out = view("speed", {"model": "llama-3.1-8b", "device": "rtx-4090", "baseline": "a100-sxm-80gb"}, lang)
    device, base = out["result"]["device"]["cost"], out["result"]["baseline"]["cost"]
    assert (device["basis"], device["providers"]) == ("cloud", 1) and (base["basis"], base["providers"]) == ("cloud", 6)
    assert one in out["summary"] and many in out["summary"]
    assert "1 cloud providers" not in out["summary"] and "1 Cloud-Anbietern" not in out["summary"]


@pytest.mark.parametrize("lang, headline", [("en", "tokens/s on 2 × RTX 4090 with llama.cpp"),
                                            ("de", "Tokens/s auf 2 × RTX 4090 mit llama.cpp")])
def test_the_headline_names_every_device_the_model_is_split_over(lang, headline):
    two = view("speed", {"model": "llama-3.1-70b", "weights": "q4_k_m", "device": "rtx-4090", "num_devices": 2}, lang)
    assert two["result"]["num_devices"] == 2 and headline in two["summary"]
    one = view("speed", {"model": "llama-3.1-8b", "weights": "q4_k_m", "device": "rtx-4090"}, lang)
    assert "× RTX 4090" not in one["summary"].split(".")[0]


@pytest.mark.parametrize("lang, sentence", [
    ("en", "2 × RTX 4090 is {factor}× slower than 2 × A100 SXM 80GB."),
    ("de", "2 × RTX 4090 ist {factor}× langsamer als 2 × A100 SXM 80GB."),
])
def test_the_comparison_names_the_device_count_of_both(lang, sentence, capsys):
    """Two of each: the comparison sentence (page and command line) says so, as the headline does."""
    from atlas import cli
    from atlas.core import l10n

    params = {"model": "llama-3.1-70b", "weights": "q4_k_m", "device": "rtx-4090", "baseline": "a100-sxm-80gb",
              "num_devices": 2}
    two = view("speed", params, lang)
    factor = l10n.format_number(two["result"]["comparison"]["factor"], lang, 2)
    assert two["result"]["comparison"]["direction"] == "slower"
    assert sentence.format(factor=factor) in two["summary"]
    assert cli.main(["speed", "--lang", lang] + [f"--{k.replace('_', '-')}={v}" for k, v in params.items()]) == 0
    assert sentence.format(factor=factor) in capsys.readouterr().out
    one = view("speed", {**params, "num_devices": 1}, lang)
    assert "2 × " not in one["summary"]


@pytest.mark.parametrize("device, weights, engine", [
    ("apple-m3-max", "mlx_4bit", "mlx"),  # an MLX file on a Mac runs in MLX
    ("apple-m3-max", "mlx_6bit", "mlx"),
    ("apple-m3-max", "q4_k_m", "llama.cpp"),  # a GGUF file in llama.cpp
    ("h100-sxm", "q4_k_m", "llama.cpp"),  # ... in the data centre too, where vLLM is the default otherwise
    ("h100-sxm", "fp8", "vllm"),
    ("rtx-4090", "bf16", "llama.cpp"),
])
def test_the_default_engine_is_the_weight_formats_own(device, weights, engine):
    """Automatic engine: the one whose files the weight format is, else the device's usual one; a chosen engine wins."""
    answer = result("speed", {"model": "qwen3-30b-a3b", "device": device, "weights": weights})
    assert answer["device"]["engine"] == engine
    chosen = result("speed", {"model": "qwen3-30b-a3b", "device": device, "weights": weights, "engine": "llama.cpp"})
    assert chosen["device"]["engine"] == "llama.cpp"


def test_a_baseline_the_devices_engine_does_not_run_on_gets_its_own():
    """MLX on a Mac against an A100: the A100 is estimated with vLLM (MLX runs only on Apple silicon), and the
    comparison says which engine each used; two Macs share MLX."""
    mixed = result("speed", {"model": "qwen3-30b-a3b", "weights": "mlx_6bit", "device": "apple-m3-max",
                             "baseline": "a100-sxm-80gb"})
    assert (mixed["device"]["engine"], mixed["baseline"]["engine"]) == ("mlx", "vllm")
    summary = rendered("speed", {"model": "qwen3-30b-a3b", "weights": "mlx_6bit", "device": "apple-m3-max",
                                 "baseline": "a100-sxm-80gb"})["summary"]
    assert "Estimated with MLX on Apple M3 Max and vLLM on A100 SXM 80GB." in summary
    macs = result("speed", {"model": "qwen3-30b-a3b", "weights": "mlx_6bit", "device": "apple-m3-max",
                            "baseline": "apple-m4-max"})
    assert (macs["device"]["engine"], macs["baseline"]["engine"]) == ("mlx", "mlx")

"""Issue 31, items 1 and 2: the weight format left on Automatic is the one the model is published in, and a
speed answer for a setup that cannot hold the model says "does not fit" first, with the shortfall and the
speed of the nearest configuration that runs.

Ranges: gpt-oss-120b's published checkpoint (MXFP4 experts at 4.25 bits, everything else BF16) is 60.8 GiB of
tensors (defaults' checkpoint note); with a 4,096-token KV cache, workspace and the 1 GiB runtime overhead the
total must lie in 61-65 GiB. gpt-oss-20b's checkpoint is about 12.8 GiB, so 12-15 GiB in all. Charging every
tensor at 4 bit would give under 58 GiB for the 120b; BF16 would give over 210 GiB.
"""

import json
import re

import pytest

from atlas.cli import main as cli_main
from calculators_support import catalog, rendered, result

call, view = result, rendered  # the shared helpers of calculators_support, by this file's names


@pytest.mark.parametrize("device", ["apple-m3-max", "apple-m4-max", "ryzen-ai-max-395"])
def test_gpt_oss_120b_automatic_is_mxfp4_and_fits_128_gb_unified_memory(device):
    result = call("vram", {"model": "gpt-oss-120b", "device": device})
    assert result["weights"] == "mxfp4" and result["weights_source"] == "published"
    assert 61 <= result["total_gib"] <= 65
    groups = result["weights_by_group"]
    assert groups["experts"]["bits"] == pytest.approx(4.25, abs=0.01)  # MXFP4: 4 bits + one E8M0 scale per 32
    assert groups["attention"]["bits"] == pytest.approx(16) and groups["embeddings"]["bits"] == pytest.approx(16)
    verdict = result["verdict"]
    assert verdict["capacity_gib"] == 128 and verdict["fits"], verdict
    # Strix Halo: the GPU's default share (GTT, 50 %) of 128 GiB is 64 GiB, and the model still fits in it.
    assert verdict["need_gib"] <= verdict["usable_gib"]


def test_gpt_oss_20b_automatic_fits_a_16_gb_card():
    result = call("vram", {"model": "gpt-oss-20b", "device": "rtx-4060-ti-16gb"})
    assert result["weights"] == "mxfp4" and 12 <= result["total_gib"] <= 15
    assert result["verdict"]["fits"]


def test_answer_names_the_published_format_in_both_languages():
    en = view("vram", {"model": "gpt-oss-120b", "device": "ryzen-ai-max-395"})
    assert en["summary"].startswith("✓ Fits") and en["summary"].endswith("Weight format as published: MXFP4.")
    de = view("vram", {"model": "gpt-oss-120b", "device": "ryzen-ai-max-395"}, "de")
    assert de["summary"].endswith("Gewichtsformat wie veröffentlicht: MXFP4.")
    assert "Passt auf" in de["summary"]
    speed = view("speed", {"model": "gpt-oss-20b", "device": "rtx-4060-ti-16gb"}, "de")
    assert speed["result"]["weights"] == "mxfp4" and "wie veröffentlicht: MXFP4" in speed["summary"]
    assert speed["result"]["fits"] is True


def test_a_chosen_format_and_a_custom_model_keep_their_format():
    chosen = call("vram", {"model": "gpt-oss-120b", "weights": "bf16"})
    assert chosen["weights"] == "bf16" and chosen["weights_source"] == "chosen" and chosen["total_gib"] > 200
    assert "as published" not in view("vram", {"model": "gpt-oss-120b", "weights": "bf16"})["summary"]
    custom = call("vram", {"model": "custom", "params_b": 7, "layers": 32, "hidden": 4096, "heads": 32,
                           "kv_heads": 8, "vocab": 32000})
    assert custom["weights"] == "bf16" and custom["weights_source"] == "default"
    fp8 = call("vram", {"model": "deepseek-r1"})  # block-scaled FP8, one fp32 scale per 128 x 128
    assert fp8["weights"] == "fp8_block" and fp8["weights_source"] == "published"
    qlora = call("vram", {"model": "gpt-oss-20b", "mode": "qlora"})  # training keeps its own default
    assert qlora["weights"] == "nf4"


LLAMA_ON_4090 = {"model": "llama-3.1-70b", "weights": "bf16", "device": "rtx-4090", "baseline": "a100-sxm-80gb"}


def test_llama_70b_bf16_on_a_4090_starts_with_does_not_fit_in_both_languages():
    en = view("speed", LLAMA_ON_4090)
    result = en["result"]
    assert result["fits"] is False and result["reason"]["key"] == "reason.does_not_fit"
    short = result["reason"]["params"]["short"]
    assert 105 <= short <= 115  # ~134 GiB of weights and cache against the 4090's 24 GiB
    assert en["summary"].startswith("Does not fit on RTX 4090: needs 134\u00a0GiB per device, 24\u00a0GiB usable — "
                                    "110\u00a0GiB short.")
    assert "The baseline A100 SXM 80GB does not hold it either: 53.9\u00a0GiB short." in en["summary"]
    assert "Nearest configuration that runs: 13 of 80 layers on the GPU" in en["summary"]
    assert "If the model fitted on both, RTX 4090 would be" in en["summary"]
    assert "≈ 6.14" not in en["summary"]  # no bare tokens/s of the impossible setup
    assert 'data-verdict="does_not_fit"' in en["html"]
    de = view("speed", LLAMA_ON_4090, "de")
    assert de["summary"].startswith("Passt nicht auf RTX 4090: braucht 134\u00a0GiB je Gerät, nutzbar sind "
                                    "24\u00a0GiB – es fehlen 110\u00a0GiB.")
    assert "Auch auf das Vergleichsgerät A100 SXM 80GB passt es nicht: Es fehlen 53,9\u00a0GiB." in de["summary"]
    assert "Nächstliegende lauffähige Konfiguration: 13 von 80 Schichten auf der GPU" in de["summary"]


def test_nearest_configuration_that_runs_really_fits_and_is_slower_than_the_impossible_one():
    result = call("speed", LLAMA_ON_4090)
    memory = result["device"]["memory"]
    alt = memory["runs_instead"]
    assert alt["change"] == "gpu_layers" and alt["gpu_layers"] == memory["suggestions"]["gpu_layers"]
    assert alt["need_gib"] <= memory["usable_gib"]
    assert 0 < alt["tokens_per_s"] < result["device"]["tokens_per_s"]  # layers in system memory: slower
    assert result["baseline"]["memory"]["fits"] is False
    # The comparison's own reason stays, among the notes after the fit.
    assert "reason.memory_bound" in [n["key"] for n in result["notes"]]
    # A server engine cannot offload layers: the nearest is a smaller format that fits.
    h100 = call("speed", {"model": "llama-3.1-70b", "weights": "bf16", "device": "h100-sxm", "engine": "vllm"})
    alt = h100["device"]["memory"]["runs_instead"]
    assert alt["change"] == "weights" and alt["need_gib"] <= 80
    assert h100["reason"]["message"].startswith("Does not fit on H100 SXM")


def test_only_the_baseline_short_still_gives_the_device_speed_after_the_fit():
    out = view("speed", {"model": "gpt-oss-120b", "device": "ryzen-ai-max-395", "baseline": "rtx-4090"})
    result = out["result"]
    assert result["fits"] is True and result["reason"]["params"]["baseline_fits"] is False
    assert out["summary"].startswith("Does not fit on the baseline RTX 4090")
    assert "tokens/s on Ryzen AI Max+ 395" in out["summary"]


def test_a_fitting_setup_keeps_its_comparison_reason():
    result = call("speed", {"model": "llama-3.1-8b", "device": "h100-sxm", "baseline": "a100-sxm-80gb"})
    assert result["fits"] is True and result["reason"]["key"] == "reason.memory_bound"
    assert result["comparison"]["both_fit"] is True


@pytest.mark.parametrize("lang, first", [("en", "Does not fit on RTX 4090"), ("de", "Passt nicht auf RTX 4090")])
def test_cli_text_and_json_start_with_does_not_fit(capsys, monkeypatch, lang, first):
    import atlas.cli as cli_module

    monkeypatch.setattr(cli_module, "load_catalog", lambda data_json: catalog())  # the data set read once
    args = ["speed", "--model", "llama-3.1-70b", "--weights", "bf16", "--device", "rtx-4090", "--baseline",
            "a100-sxm-80gb", "--lang", lang]
    assert cli_main(args) == 0
    text = capsys.readouterr().out
    assert text.startswith(first)
    assert cli_main(args + ["--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["reason"] is not None and result["reason"]["message"].startswith(first)
    assert result["reason"]["params"]["short"] > 100 and result["fits"] is False


@pytest.mark.parametrize("lang, words", [("en", "does not fit"), ("de", "passt nicht")])
def test_no_time_speed_or_cost_of_a_setup_that_cannot_run(capsys, monkeypatch, lang, words):
    """The table keeps the devices' own figures (peak, bandwidth, power) and shows "does not fit" where a time, a
    speed or a cost of the impossible setup would stand; a device that holds the model keeps its figures."""
    from atlas.core.calculators.speed import RUN_FIGURES

    html = view("speed", LLAMA_ON_4090, lang)["html"]
    for which in ("device", "baseline"):
        for key in ("time_s", "tokens_per_s", "tokens_per_s_per_sequence", "cost.usd_per_million_tokens"):
            assert f'<td data-does-not-fit="{which}.{key}">{words}</td>' in html, (which, key)
            assert f'data-result="{which}.{key}"' not in html  # no value of it anywhere on the page
        assert f'data-result="{which}.peak_tflops" data-value=' in html
    shown = re.findall(r'data-does-not-fit="device\.([\w.]+)"', html)
    assert shown and set(shown) <= set(RUN_FIGURES)
    assert "atlas-calc-accuracy" not in html  # no error band for a speed that is not shown
    fits = view("speed", {**LLAMA_ON_4090, "model": "llama-3.1-8b", "baseline": "h200-sxm"}, lang)["html"]
    assert "data-does-not-fit" not in fits and 'data-result="device.tokens_per_s" data-value="' in fits
    assert '<p class="atlas-calc-accuracy">' in fits

    import atlas.cli as cli_module

    monkeypatch.setattr(cli_module, "load_catalog", lambda data_json: catalog())
    assert cli_main(["speed", "--model", "llama-3.1-70b", "--weights", "bf16", "--device", "rtx-4090",
                     "--baseline", "h200-sxm", "--lang", lang]) == 0
    text = capsys.readouterr().out
    row = next(line for line in text.splitlines() if line.startswith("Tokens/s"))  # the same label in German
    label, rtx_4090, h200 = re.split(r" {2,}", row)
    assert rtx_4090 == words  # 134 GiB in 24: no speed
    assert re.fullmatch(r"\d+([.,]\d+)?", h200)  # the H200 holds a 70B in BF16: its speed stays


def test_formats_suggested_are_ones_the_device_can_read():
    """A 70B in BF16 on an RTX 4090: the format that fits is a llama.cpp type, never an MLX one (Apple only);
    on a Mac the MLX formats stay candidates."""
    memory = call("speed", {"model": "llama-3.1-70b", "weights": "bf16", "device": "rtx-4090"})["device"]["memory"]
    formats = [tip["weights"] for tip in memory["suggestions"]["formats"]]
    assert formats and not any(f.startswith("mlx_") for f in formats)
    mac = call("vram", {"model": "llama-3.1-70b", "weights": "bf16", "device": "apple-m4-max@36"})
    assert any(tip["weights"].startswith("mlx_") for tip in mac["verdict"]["suggestions"]["formats"]), mac["verdict"]

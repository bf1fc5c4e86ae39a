"""The speed calculator's training time only for what the devices can hold: full training's memory (the memory
calculator's count, fully sharded over several devices) decides, as the fit verdict does for inference."""

from __future__ import annotations

import pytest

from atlas.core import calcview, l10n
from calculators_support import catalog, ok


def speed(lang: str = "en", **params) -> dict:
    return ok("speed", lang, workload="training", **params)


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_training_a_70b_on_one_4090_gets_no_training_time(lang):
    result = speed(lang, model="llama-3.1-70b", device="rtx-4090")
    verdict = result["device"]["memory"]
    assert result["fits"] is False and not verdict["fits"] and verdict["need_gib"] > 1000  # ~16 bytes a parameter
    # Without recomputation the activations of one 4,096-token sequence (~85 GiB) fit on no number of data-parallel
    # 4090s; with it, some seventy hold the sharded rest: the nearest configuration that runs.
    assert verdict["suggestions"]["num_devices"] is None and verdict["suggestions"]["gradient_checkpointing_gib"] is None
    alt = verdict["runs_instead"]
    assert alt["change"] == "num_devices_checkpointing" and alt["gradient_checkpointing"] is True
    sharded = speed(lang, model="llama-3.1-70b", device="rtx-4090", num_devices=alt["num_devices"],
                    gradient_checkpointing="true")
    fewer = speed(lang, model="llama-3.1-70b", device="rtx-4090", num_devices=alt["num_devices"] - 1,
                  gradient_checkpointing="true")
    assert sharded["fits"] and not fewer["fits"] and 40 < alt["num_devices"] < 100
    assert alt["tokens_per_s"] == pytest.approx(sharded["device"]["tokens_per_s"])
    h100 = speed(lang, model="llama-3.1-70b", device="h100-sxm")["device"]["memory"]["runs_instead"]
    assert (h100["change"], h100["num_devices"]) == ("num_devices_checkpointing", 15)  # FSDP on 16 H100s in practice
    out = calcview.render({"command": "speed", "params": {"model": "llama-3.1-70b", "device": "rtx-4090",
                                                          "workload": "training"}, "lang": lang}, catalog())
    assert out["summary"].startswith("Does not fit on RTX 4090" if lang == "en" else "Passt nicht auf RTX 4090")
    assert 'data-does-not-fit="device.device_hours"' in out["html"] and l10n.t(lang, "table.does_not_fit") in out["html"]


def test_what_fits_only_with_gradient_checkpointing_is_run_with_it():
    result = speed(model="llama-3.2-1b", device="rtx-4090")
    alt = result["device"]["memory"]["runs_instead"]
    assert result["fits"] is False and alt["change"] == "gradient_checkpointing"
    recomputed = speed(model="llama-3.2-1b", device="rtx-4090", gradient_checkpointing="true")
    assert recomputed["fits"] and alt["tokens_per_s"] == pytest.approx(recomputed["device"]["tokens_per_s"])
    assert alt["tokens_per_s"] < result["device"]["tokens_per_s"]  # the forward pass twice: 8 FLOPs, not 6
    assert "note.fit_gradient_checkpointing" in [n["key"] for n in result["notes"]]


def test_more_devices_are_counted_in_the_same_setting():
    """The devices suggested are those on which the same data-parallel, fully sharded training fits: each holds its
    own sequences' activations (not one replica split evenly, activations included)."""
    result = speed(model="llama-3.1-8b", device="h100-sxm")
    count = result["device"]["memory"]["suggestions"]["num_devices"]
    assert result["fits"] is False and result["device"]["memory"]["runs_instead"]["change"] == "num_devices"
    assert speed(model="llama-3.1-8b", device="h100-sxm", num_devices=count)["fits"]
    assert not speed(model="llama-3.1-8b", device="h100-sxm", num_devices=count - 1)["fits"]  # the fewest


def test_the_memory_is_the_memory_calculators_full_training_fully_sharded():
    result = speed(model="llama-3.1-8b", device="h100-sxm", num_devices=8, baseline="a100-sxm-80gb")
    memory = ok("vram", model="llama-3.1-8b", mode="full", device="h100-sxm", num_devices=8, zero=3)["verdict"]
    assert result["fits"] and result["device"]["memory"]["need_gib"] == pytest.approx(memory["need_gib"])
    assert result["baseline"]["memory"]["fits"] and result["comparison"]["both_fit"]
    keys = [n["key"] for n in result["notes"]]
    assert {"note.training_memory", "note.training_sharded", "note.fits"} <= set(keys)
    one = speed(model="llama-3.2-1b", device="h100-sxm")
    one_keys = [n["key"] for n in one["notes"]]
    assert "note.training_memory" in one_keys and "note.training_sharded" not in one_keys and one["fits"]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_the_page_speaks_of_the_whole_run_not_of_one_step(lang):
    from atlas.core.calcview import numbers

    params = {"model": "llama-3.1-8b", "device": "h100-sxm", "num_devices": 8, "workload": "training"}
    result = speed(lang, **{k: v for k, v in params.items() if k != "workload"})
    html = calcview.render({"command": "speed", "params": params, "lang": lang}, catalog())["html"]
    flops = numbers.si(result["flops"], lang, l10n.t(lang, "calc.unit.flop"))
    assert l10n.t(lang, "calc.speed.work_training", flops=flops,
                  tokens=numbers.significant(result["tokens"], lang)) in html
    assert l10n.t(lang, "calc.speed.work", flops="@", bytes="@").split("@")[0] not in html
    # its memory traffic is not modelled: no "memory time 0 µs" row, the compute time is the whole run's
    assert 'data-result="device.memory_time_s"' not in html and 'data-result="device.compute_time_s"' in html


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_qlora_on_a_24_gb_card_fits_with_recomputation_and_counts_four_flops_a_token_without_it(lang):
    """Fine-tuning an 8B model with QLoRA on an RTX 4090: its memory is the memory calculator's QLoRA count (NF4
    weights, adapters), its compute 4 FLOPs per parameter and token (no weight gradients for frozen weights), 6 with
    gradient checkpointing, which it needs at 4,096 tokens."""
    base = {"model": "llama-3.1-8b", "device": "rtx-4090", "training_mode": "qlora"}
    plain, recomputed = speed(lang, **base), speed(lang, **base, gradient_checkpointing="true")
    memory = ok("vram", lang, model="llama-3.1-8b", mode="qlora", device="rtx-4090",
                gradient_checkpointing="true")["verdict"]
    assert not plain["fits"] and plain["device"]["memory"]["runs_instead"]["change"] == "gradient_checkpointing"
    assert recomputed["fits"] and recomputed["device"]["memory"]["need_gib"] == pytest.approx(memory["need_gib"])
    active = 8.03e9
    assert plain["flops"] == pytest.approx(4 * active * 1e9, rel=0.01)
    assert recomputed["flops"] == pytest.approx(6 * active * 1e9, rel=0.01)
    full = speed(lang, model="llama-3.1-8b", device="h100-sxm", num_devices=8)
    lora = speed(lang, model="llama-3.1-8b", device="h100-sxm", num_devices=8, training_mode="lora")
    assert lora["device"]["time_s"] / full["device"]["time_s"] == pytest.approx(4 / 6)
    notes = {n["key"]: n["message"] for n in recomputed["notes"]}
    assert "QLoRA" in notes["note.training_memory_adapters"] and "6" in notes["note.training_compute_bound"]


def test_the_speed_form_asks_what_is_trained_with_the_training_fields():
    import re

    from atlas.core.calcview import form

    html = form.form_html("speed", form.initial_values("speed", {"model": "llama-3.1-8b"}, catalog()), "de", catalog())
    select = re.search(r'<select id="calc-speed-training-mode"[^>]*>(.*?)</select>', html, re.S)[1]
    assert re.findall(r">([^<]+)</option>", select) == ["volles Training", "LoRA", "QLoRA"]
    group = html[:html.index('id="calc-speed-training-mode"')].rsplit("<fieldset", 1)[1]
    assert 'data-when="workload=training"' in group


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_the_help_and_the_explanation_state_the_defaults_figures(lang, monkeypatch):
    """The FLOPs per parameter and token that the help and "How is this calculated?" state are the defaults' own:
    changed there, the texts follow."""
    from atlas.core.calcview import explain, form

    shown = form.help_text("speed", "training_mode", lang)
    assert "6\u00a0FLOPs" in shown and "(4:" in shown  # full training, adapters
    monkeypatch.setitem(form.HELP_FIGURES, "training_mode", {"full": 7, "adapters": 5})
    monkeypatch.setitem(explain.FIGURES, "training", {"full": 7, "adapters": 5, "recompute": 3})
    assert "7\u00a0FLOPs" in form.help_text("speed", "training_mode", lang)
    assert "FLOPs = 7 (LoRA, QLoRA: 5)" in explain.explain_html("speed", lang)

"""The answer a reader sees first: the memory verdict for their own hardware with its suggestions, the
speed answer in words, and input rules that cannot surprise (issue "Readers first").

Every suggestion is checked by asking the estimator the suggested question again: a suggested context,
format, device count or device must fit when the reader follows it, and one step more must not.
"""

import re

import pytest

from atlas.core import calcview, l10n
from atlas.core.calculators import defaults as d
from atlas.core.calculators.api import handle
from atlas.core.calculators.inputs import PARAMETERS, parse_number
from atlas.core.calcview import form, numbers
from calc_results import result_elements
from calculators_support import catalog

QWEN_ON_4070 = {"model": "qwen3-30b-a3b", "weights": "q4_k_m", "context": "32768", "device": "rtx-4070-ti-super"}


def vram(params, lang="en"):
    response = handle({"command": "vram", "params": params, "lang": lang}, catalog())
    assert response["ok"], response.get("errors")
    return response["result"]


def view(command, params, lang="en"):
    return calcview.render({"command": command, "params": params, "lang": lang}, catalog())


def shown(html):
    return {path: (raw, text) for path, raw, text in result_elements(html)}


def test_verdict_agrees_with_the_fits_table_for_the_same_device():
    result = vram({"model": "llama-3.1-8b", "device": "rtx-4090"})
    verdict = result["verdict"]
    row = next(f for f in result["fits"] if f["device"] == "rtx-4090")
    assert row["count"] == 1 and verdict["fits"]
    assert verdict["need_gib"] == pytest.approx(row["per_device_gib"])
    assert verdict["margin_gib"] == pytest.approx(24 - row["per_device_gib"])
    assert verdict["need_gib"] == pytest.approx(result["total_gib"])  # one device: the whole model


def test_verdict_short_and_every_suggestion_fits_when_followed():
    verdict = vram(QWEN_ON_4070)["verdict"]
    assert not verdict["fits"] and verdict["margin_gib"] < 0
    assert verdict["need_gib"] - verdict["usable_gib"] == pytest.approx(-verdict["margin_gib"])
    tips = verdict["suggestions"]
    assert tips["formats"], "a 16 GiB card holds some format of a 30B model"
    for fmt in tips["formats"]:
        assert vram({**QWEN_ON_4070, "weights": fmt["weights"]})["verdict"]["fits"]
    bits = [vram({**QWEN_ON_4070, "weights": f["weights"]})["bits_per_weight"] for f in tips["formats"]]
    assert bits == sorted(bits, reverse=True)  # most bits first
    count = tips["num_devices"]
    assert vram({**QWEN_ON_4070, "num_devices": str(count)})["verdict"]["fits"]
    assert not vram({**QWEN_ON_4070, "num_devices": str(count - 1)})["verdict"]["fits"]
    assert tips["devices"]
    for other in tips["devices"]:
        assert vram({**QWEN_ON_4070, "device": other["device"]})["verdict"]["fits"]
        assert catalog().devices[other["device"]]["kind"] == "gpu"  # a GPU owner is shown GPUs first


def test_longest_context_is_the_boundary():
    params = {"model": "llama-3.1-8b", "weights": "q8_0", "device": "rtx-4060-ti-16gb", "context": "131072"}
    verdict = vram(params)["verdict"]
    longest = verdict["suggestions"]["max_context"]
    assert not verdict["fits"] and 4096 < longest < 131072
    assert vram({**params, "context": str(longest)})["verdict"]["fits"]
    assert not vram({**params, "context": str(longest + 1)})["verdict"]["fits"]


def test_offloading_to_system_ram():
    verdict = vram({**QWEN_ON_4070, "ram_gib": "64"})["verdict"]
    offload = verdict["offload"]
    assert offload["fits"] and offload["ram_gib"] == 64
    assert offload["offload_gib"] == pytest.approx(verdict["need_gib"] - verdict["usable_gib"])
    assert offload["share_offloaded"] == pytest.approx(offload["offload_gib"] / verdict["need_gib"])
    too_little = vram({**QWEN_ON_4070, "ram_gib": "4"})["verdict"]["offload"]
    assert not too_little["fits"]
    html = view("vram", {**QWEN_ON_4070, "ram_gib": "64"}, "de")["html"]
    assert 'data-verdict="offload"' in html and "Arbeitsspeicher ausgelagert" in html


def test_ram_is_ignored_for_training_with_a_note():
    result = vram({**QWEN_ON_4070, "mode": "lora", "weights": "bf16", "ram_gib": "64"})
    assert result["verdict"]["offload"] is None
    assert "note.ram_ignored" in [n["key"] for n in result["notes"]]


def test_typed_memory_is_a_device_of_that_size():
    mine = vram({"model": "llama-3.1-8b", "memory_gib": "24"})["verdict"]
    card = vram({"model": "llama-3.1-8b", "device": "rtx-4090"})["verdict"]
    assert mine["device"] is None and mine["capacity_gib"] == 24
    assert mine["need_gib"] == pytest.approx(card["need_gib"]) and mine["margin_gib"] == pytest.approx(card["margin_gib"])
    smaller = vram({"model": "llama-3.1-8b", "device": "rtx-4090", "memory_gib": "12"})["verdict"]
    assert smaller["capacity_gib"] == 12 and not smaller["fits"]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_verdict_line_and_summary_say_the_same(lang):
    out = view("vram", QWEN_ON_4070, lang)
    values = shown(out["html"])
    need, margin = values["verdict.need_gib"], values["verdict.margin_gib"]
    assert need[1] == numbers.gib(need[0], lang) and margin[1] == numbers.gib(-margin[0], lang)
    assert need[1] in out["summary"] and margin[1] in out["summary"]
    word = {"en": "Does not fit", "de": "Passt nicht"}[lang]
    assert out["summary"].startswith("✗ " + word)
    first = out["html"].index('class="atlas-calc-verdict"')
    assert first < out["html"].index("atlas-calc-chart")  # the answer before the breakdown


def test_without_a_device_the_answer_names_the_smallest_device_that_holds_it():
    result = vram({"model": "llama-3.1-8b"})
    out = view("vram", {"model": "llama-3.1-8b"})
    single = [f for f in result["fits"] if f["count"] == 1]
    smallest = min(single, key=lambda f: (f["usable_gib"], f["name"]))
    assert result["verdict"] is None
    assert smallest["name"] in out["summary"] and numbers.gib(result["total_gib"], "en") in out["summary"]
    assert [p for p, _, _ in result_elements(out["html"])].count("total_gib") == 2  # answer line and table


def test_speed_answer_in_words():
    params = {"model": "llama-3.1-8b", "device": "rtx-4090", "baseline": "a100-sxm-80gb"}
    response = handle({"command": "speed", "params": params, "lang": "en"}, catalog())
    result = response["result"]
    device = result["device"]
    reading = d.READING_WORDS_PER_MINUTE.value / 60 / d.WORDS_PER_TOKEN.value
    assert device["reading_speed_factor"] == pytest.approx(device["tokens_per_s_per_sequence"] / reading)
    out = view("speed", params)
    assert result["speedup"] < 1  # the 4090 is the slower one here
    factor = l10n.format_number(1 / result["speedup"], "en", 2)
    assert f"RTX 4090 is {factor}× slower than A100 SXM 80GB." in out["summary"]
    assert "faster than A100" not in out["html"] and "0." + factor not in out["summary"]
    de = view("speed", params, "de")["summary"]
    assert f"RTX 4090 ist {l10n.format_number(1 / result['speedup'], 'de', 2)}× langsamer als A100 SXM 80GB." in de
    assert "begrenzt durch die Speicherbandbreite" in de


def test_training_time_is_labelled_as_the_whole_run():
    out = view("speed", {"model": "llama-3.1-8b", "device": "h100-sxm", "workload": "training"})
    assert "Time for the whole run" in out["html"] and "Time per step" not in out["html"]


@pytest.mark.parametrize("value,unit,expected", [(1.52e11, "FLOP", "152 GFLOP"), (1.61e10, "B", "16.1 GB"),
                                                 (999, "B", "999 B"), (2.5e15, "FLOP", "2.5 PFLOP")])
def test_big_numbers_get_an_si_prefix(value, unit, expected):
    assert numbers.si(value, "en", unit) == expected.replace(" ", "\u00a0")


def test_one_billion_is_singular_in_german():
    params = {"model": "custom", "params_b": "1", "layers": "16", "hidden": "2048", "heads": "16", "kv_heads": "8",
              "vocab": "32000"}
    html = view("vram", params, "de")["html"]
    assert "1 Milliarde Parameter" in html and "1 Milliarden" not in html


@pytest.mark.parametrize("typed,integer,expected", [
    ("1,234.5", False, 1234.5), ("1.234,5", False, 1234.5), ("1,000,000", False, 1e6), ("1.000.000", False, 1e6),
    ("2,5", False, 2.5), ("0.500", False, 0.5), ("4,096", True, 4096), ("4096", True, 4096),
])
def test_numbers_as_readers_type_them(typed, integer, expected):
    assert parse_number(typed, integer) == expected


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("typed", ["1,000", "1.000", "7.500"])
def test_ambiguous_separators_are_refused_in_the_readers_language(lang, typed):
    response = handle({"command": "vram", "params": {"model": "custom", "params_b": typed}, "lang": lang}, catalog())
    problem = next(e for e in response["errors"] if e["field"] == "params_b")
    assert problem["key"] == "error.ambiguous_number" and typed in problem["message"]
    assert ("ambiguous" if lang == "en" else "mehrdeutig") in problem["message"]


def test_a_decimal_in_a_whole_number_field_is_shown_as_typed():
    response = handle({"command": "vram", "params": {"model": "llama-3.1-8b", "context": "4096.5"}, "lang": "de"},
                      catalog())
    assert response["errors"][0]["message"] == "Kontextlänge muss eine ganze Zahl sein (angegeben: 4096.5)."


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_empty_fields_say_which_default_they_take(lang):
    out = view("vram", {"model": "llama-3.1-8b", "context": "", "batch": "2"}, lang)
    note = re.search(r'<p class="atlas-calc-defaults">(.*?)</p>', out["html"]).group(1)
    assert l10n.t(lang, "param.context") + " " + l10n.format_number(4096, lang, 0) in note
    assert l10n.t(lang, "param.batch") not in note  # given, so not a default
    assert vram({"model": "llama-3.1-8b", "context": ""})["context"] == 4096


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("command", ["vram", "speed"])
def test_every_field_has_a_help_line(command, lang):
    values = form.initial_values(command, {"model": "llama-3.1-8b"}, catalog())
    html = form.form_html(command, values, lang, catalog())
    for name in form.layout_names(command):
        fid = form.field_id(command, name)
        line = re.search(rf'<p id="{fid}-help" class="atlas-calc-help">(.*?)</p>', html)
        assert line, f"{name} has no help line"
        assert len(re.sub("<[^>]+>", "", line.group(1))) > 15
        assert f'aria-describedby="{fid}-help {fid}-error"' in html
    assert {p.name for p in PARAMETERS} <= {k[5:].split(".")[0] for k in l10n.labels(lang) if k.startswith("help.")}


def test_glossary_links_point_at_glossary_entries():
    from atlas.data.glossary import ENTRIES

    slugs = {e.slug for e in ENTRIES}
    assert set(form.GLOSSARY.values()) <= slugs


def test_device_options_show_their_memory():
    values = form.initial_values("vram", {"model": "llama-3.1-8b"}, catalog())
    html = form.form_html("vram", values, "de", catalog())
    assert '<option value="rtx-4090" data-gib="24">RTX 4090 · 24\u00a0GiB</option>' in html
    assert '<option value="">– Gerät auswählen –</option>' in html  # the verdict is optional


def test_two_cards_from_the_form_split_the_model_and_the_verdict_says_so():
    """The form leaves tensor parallelism empty: inference on two cards then splits the model over both,
    and the verdict uses the same per-device figure the page shows under it."""
    values = form.initial_values("vram", {"model": "llama-3.1-70b"}, catalog())
    assert values["tp"] is None
    params = {"model": "llama-3.1-70b", "weights": "q4_k_m", "device": "rtx-4090", "num_devices": "2", "tp": ""}
    result = vram(params)
    assert result["tp"] == 2
    assert result["per_device_gib"] < 0.6 * result["total_gib"]
    assert result["verdict"]["need_gib"] == pytest.approx(result["per_device_gib"]) and result["verdict"]["fits"]
    replicas = vram({**params, "tp": "1", "mode": "inference"})  # typed: one copy per card
    assert replicas["per_device_gib"] == pytest.approx(vram({**params, "num_devices": "1"})["per_device_gib"])
    assert not replicas["verdict"]["fits"]
    assert "atlas-calc-defaults" not in view("vram", params)["html"]  # its placeholder says what empty means


def test_fill_in_problems_are_marked_for_a_quiet_hint():
    """Python says which problems only ask to fill a field in; the page shows those as a hint until touched."""
    empty = view("speed", {"workload": "kernel", "device": "rtx-4090"})
    assert [(e["field"], e["key"], e["fill_in"]) for e in empty["errors"]] == [("flops", "error.kernel_empty", True)]
    wrong = view("speed", {"workload": "kernel", "device": "rtx-4090", "flops": "-1"})
    assert [(e["field"], e["fill_in"]) for e in wrong["errors"]] == [("flops", False)]


def test_speed_link_from_the_verdict_is_a_valid_query():
    from urllib.parse import parse_qs, urlsplit

    html = view("vram", {"model": "llama-3.1-8b", "device": "rtx-4090"})["html"]
    href = re.search(r'<a href="(\.\./speed/\?[^"]+)"', html).group(1).replace("&amp;", "&")
    query = {k: v[0] for k, v in parse_qs(urlsplit(href).query).items()}
    assert query["model"] == "llama-3.1-8b" and query["device"] == "rtx-4090" and query["weights"] == "bf16"
    assert handle({"command": "speed", "params": query, "lang": "en"}, catalog())["ok"]

"""The calculator views (calcview) and the in-page runtime's Python side (pyweb), on CPython.

The browser runs exactly this code under Pyodide; tests/test_browser_calculators.py
checks it there.
"""

import json
import math
import re

import pytest

from atlas.core import calcview, charts, l10n, pyweb
from atlas.core.calculators import assumptions
from atlas.core.calculators import defaults as d
from atlas.core.calculators import devices as dev
from atlas.core.calculators.api import handle
from atlas.core.calculators.inputs import params_for
from atlas.core.calcview import browser, explain, form, numbers
from atlas.core.calcview.page import DefaultsError, calculator_html, config_json
from atlas.core.charts import estimates
from calc_results import lookup, result_elements
from calculators_support import catalog
from conftest import shared_dataset

CASES = [
    ("vram", {"model": "llama-3.1-70b", "weights": "q4_k_m", "context": "8192"}),
    ("vram", {"model": "mixtral-8x7b", "mode": "qlora", "batch": "4", "num_devices": "2", "tp": "2"}),
    ("vram", {"model": "llama-3.1-8b", "mode": "full", "zero": "3", "num_devices": "8", "gradient_checkpointing": "true"}),
    ("vram", {"model": "custom", "params_b": "13", "layers": "40", "hidden": "5120", "heads": "40", "kv_heads": "40",
              "vocab": "32000", "context": "2048"}),
    ("speed", {"model": "llama-3.1-8b", "device": "h100-sxm", "baseline": "a100-sxm-80gb"}),
    ("speed", {"model": "llama-3.1-70b", "workload": "training", "device": "b200", "baseline": "h100-sxm",
               "tokens": "1e12", "num_devices": "1024", "price_per_hour": "3.5"}),
    ("speed", {"model": "llama-3.1-8b", "workload": "kernel", "flops": "1e12", "bytes": "4e9", "device": "rtx-4090"}),
]


def render(command, params, lang="en"):
    return calcview.render({"command": command, "params": params, "lang": lang}, catalog())


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("command,params", CASES)
def test_every_shown_value_is_the_estimators_value(command, params, lang):
    expected = handle({"command": command, "params": params, "lang": lang}, catalog())
    out = render(command, params, lang)
    assert out["ok"] and expected["ok"]
    assert out["result"] == expected["result"]
    shown = result_elements(out["html"])
    paths = {p for p, _, _ in shown}
    assert {p for p in paths if p.startswith("notes")} == {f"notes[{i}].message" for i in range(len(out["result"]["notes"]))}
    assert ("total_gib" in paths) if command == "vram" else ("device.time_s" in paths)
    for path, value, _text in shown:
        assert value == lookup(expected["result"], path), path


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_charts_are_drawn_from_the_result_by_charts_estimates(lang):
    """The result's charts come from ``atlas.core.charts.estimates``, the inputs the pages' chart macros use too."""
    params = {"model": "llama-3.1-8b", "device": "h100-sxm", "baseline": "a100-sxm-80gb"}
    out = render("speed", params, lang)
    assert charts.roofline_svg(lang=lang, **estimates.speed_roofline(out["result"], lang)) in out["html"]
    assert estimates.speed_marker(out["result"], lang)["label"] in out["html"]  # "Llama 3.1 8B decode, batch 1"
    out = render("vram", {"model": "llama-3.1-70b", "weights": "q4_k_m", "context": "8192"}, lang)
    bar = estimates.vram_bar(out["result"], lang)
    assert bar["label"] == estimates.case_label(out["result"], lang)  # "Llama 3.1 70B, Q4_K_M, 8,192 tokens"
    assert bar["label"] in out["html"]
    (total,) = re.findall(r'class="atlas-bar" data-total="([^"]+)"', out["html"])
    assert float(total) == pytest.approx(out["result"]["total_gib"], rel=1e-5)


def test_a_sharded_estimate_draws_one_devices_share_against_devices_that_hold_it():
    out = render("vram", {"model": "llama-3.1-70b", "weights": "bf16", "num_devices": "4", "tp": "4"})
    result = out["result"]
    assert estimates.vram_bar(result, "en")["parts"] == result["per_device"]
    svg = out["html"][out["html"].index('<svg'):out["html"].index('</svg>')]
    (total,) = re.findall(r'class="atlas-bar" data-total="([^"]+)"', svg)
    assert float(total) == pytest.approx(result["per_device_gib"], rel=1e-5)
    lines = [float(v) for v in re.findall(r'class="atlas-capacity" data-capacity="([^"]+)"', svg)]
    assert lines and all(c >= result["per_device_gib"] for c in lines)
    assert min(lines) < result["total_gib"]  # a device that holds a quarter, not only those that hold it all


def test_numbers_are_formatted_for_the_language():
    params = {"model": "llama-3.1-70b", "weights": "q4_k_m", "context": "8192"}
    result = handle({"command": "vram", "params": params, "lang": "de"}, catalog())["result"]
    for lang in l10n.LANGUAGES:
        shown = {p: t for p, _, t in result_elements(render("vram", params, lang)["html"])}
        assert shown["total_gib"] == l10n.format_number(result["total_gib"], lang, 2, trim=False)
    de = dict((p, t) for p, _, t in result_elements(render("vram", params, "de")["html"]))
    assert "," in de["total_gib"] and "." not in de["total_gib"]  # 43,91 — German decimal comma
    speed = {p: t for p, _, t in result_elements(render(*CASES[4])["html"])}
    computed = handle({"command": CASES[4][0], "params": CASES[4][1], "lang": "en"}, catalog())["result"]
    assert speed["speedup"] == l10n.format_number(computed["speedup"], "en", 2) and speed["device.bound"] == "memory-bound"


def test_speed_without_baseline_shows_the_time():
    out = render("speed", {"model": "llama-3.2-1b", "device": "l4"})
    paths = [p for p, _, _ in result_elements(out["html"])]
    assert "speedup" not in paths and not any(p.startswith("baseline.") for p in paths)
    assert paths[0] == "device.tokens_per_s_per_sequence" and "device.time_s" in paths  # the answer in words first


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("params, parts", [
    # one Apple GPU: its matrix-vector products overlap the weight reads at batch 1, so compute is 0 and the fixed
    # cost per step is the rest of the time
    ({"model": "qwen3-30b-a3b", "device": "apple-m4-max"}, ["compute", "memory", "overhead"]),
    # four H100s in tensor parallel: their all-reduces too
    ({"model": "llama-3.1-70b", "device": "h100-sxm", "num_devices": 4, "engine": "vllm"},
     ["compute", "memory", "overhead", "communication"]),
])
def test_the_time_table_shows_every_part_of_a_step_and_they_add_up(params, parts, lang):
    out = render("speed", params, lang)
    shown = {p: (raw, text) for p, raw, text in result_elements(out["html"])}
    keys = [f"device.{part}_time_s" for part in parts]
    assert [k for k in shown if k.endswith("_time_s") and k != "device.time_s"] == keys
    assert sum(shown[k][0] for k in keys) == pytest.approx(shown["device.time_s"][0], rel=1e-9)
    assert all(shown[k][1] == numbers.duration(shown[k][0], lang) for k in keys)
    label = l10n.t(lang, "calc.row.overhead_time")
    assert f'<th scope="row">{label}</th>' in out["html"]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize(
    "params,field,key",
    [
        ({"model": "llama-3.1-8b", "context": ""}, None, None),  # empty: the default applies
        ({"model": "llama-3.1-8b", "context": "-5"}, "context", "error.too_small"),
        ({"model": "llama-3.1-8b", "context": "0"}, "context", "error.too_small"),
        ({"model": "llama-3.1-8b", "context": "abc"}, "context", "error.not_a_number"),
        ({"model": "llama-3.1-8b", "context": "1e99"}, "context", "error.too_large"),
        ({"model": "llama-3.1-8b", "batch": "nan"}, "batch", "error.not_finite"),
        ({"model": "llama-3.1-8b", "overhead_gib": "inf"}, "overhead_gib", "error.not_finite"),
        ({"model": "gpt-9"}, "model", "error.unknown_value"),
        ({"model": "custom", "params_b": "7"}, "layers", "error.required_custom"),
    ],
)
def test_bad_input_gives_localized_field_errors(params, field, key, lang):
    out = render("vram", params, lang)
    if key is None:
        assert out["ok"]
        return
    assert not out["ok"] and "html" not in out
    problems = [e for e in out["errors"] if e["field"] == field and e["key"] == key]
    assert problems, out["errors"]
    assert problems[0]["message"] == l10n.t(lang, key, **{k: str(v) for k, v in problems[0]["params"].items()}) or \
        problems[0]["message"]
    text = json.dumps(out, ensure_ascii=False)
    for bad in ("NaN", "Infinity", "Traceback"):
        assert bad not in text


def test_german_error_message_is_german():
    out = render("vram", {"model": "llama-3.1-8b", "context": "abc"}, "de")
    assert out["errors"][0]["message"] == "Kontextlänge muss eine Zahl sein (angegeben: „abc“)."


def test_unknown_parameters_are_reported_and_left_out():
    out = render("vram", {"model": "llama-3.1-8b", "contxt": "8192"}, "de")
    assert out["ok"]
    assert [w["key"] for w in out["warnings"]] == ["error.unknown_param"]
    assert "context" in out["warnings"][0]["message"] and "„contxt“" in out["warnings"][0]["message"]
    assert out["result"]["context"] == 4096


def test_form_has_a_field_for_every_parameter_named_like_it():
    for command in ("vram", "speed"):
        names = form.layout_names(command)
        assert sorted(names) == sorted(p.name for p in params_for(command))
        assert len(names) == len(set(names))
        html = form.form_html(command, form.initial_values(command, {"model": "llama-3.1-8b"}, catalog()), "en",
                              catalog())
        for name in names:
            assert f'name="{name}"' in html
            assert f'data-error-for="{name}"' in html
        for model in catalog().model_ids():
            assert f'<option value="{model}"' in html
        if command == "speed":
            for device in catalog().device_ids():  # but those without memory of their own (Hailo-8)
                if dev.has_own_memory(catalog().devices[device]):
                    assert f'<option value="{device}"' in html
                else:
                    assert f'<option value="{device}"' not in html


def test_custom_model_fields_are_prefilled_from_the_page_model_and_hidden():
    values = form.initial_values("vram", {"model": "llama-3.1-70b"}, catalog())
    assert (values["layers"], values["hidden"], values["kv_heads"], values["params_b"]) == (80, 8192, 8, 70.6)
    html = form.form_html("vram", values, "de", catalog())
    assert 'data-group="custom" data-when="model=custom" data-always-in-url hidden disabled' in html
    assert 'name="params_b" value="70,6"' in html  # German decimal comma in the field


def test_explanation_translates_every_default_and_links_its_source():
    for lang in l10n.LANGUAGES:
        html = explain.explain_html("vram", lang) + explain.explain_html("speed", lang)
        for item in assumptions.all_defaults():
            assert f'data-default-key="{item.key}"' in html
            assert item.source.url in html
    assert "Wie wird das berechnet?" in explain.explain_html("vram", "de")
    assert explain.default_label("weights.q4_k_m", "de") == "Gewichtsformat Q4_K_M"
    assert explain.default_label("efficiency.decode.memory", "en") == "Memory efficiency, decode (token generation)"


def test_units_of_every_default_are_translated():
    assert {item.unit for item in assumptions.all_defaults()} <= set(explain.UNIT_KEYS)


@pytest.mark.parametrize(
    "seconds,lang,text",
    [(7.08e-3, "de", "7,08 ms"), (4.6e-5, "en", "46 µs"), (90, "en", "90 s"), (5400, "de", "90 min"),
     (36000, "en", "10 h"), (864000, "de", "10 Tage")],
)
def test_durations(seconds, lang, text):
    assert numbers.duration(seconds, lang) == text.replace(" ", "\u00a0")  # number and unit never split


def test_field_values_are_typed_as_a_reader_would():
    assert numbers.field_value(4096, "de") == "4096"
    assert numbers.field_value(0.7, "de") == "0,7"
    assert numbers.field_value(1.0, "en") == "1"
    assert numbers.field_value(None, "en") == ""
    assert numbers.field_value(True, "de") == "true"


def test_page_refuses_defaults_without_a_result():
    with pytest.raises(DefaultsError, match="gpt-9"):
        calculator_html("vram", {"model": "gpt-9"}, "en", catalog(), "x.mjs")


def test_page_config_cannot_close_its_script_element():
    assert "</script>" not in config_json({"x": "</script><script>alert(1)</script>"})
    assert json.loads(config_json({"x": "</b>"})) == {"x": "</b>"}


def test_model_names_from_data_are_escaped():
    from atlas.core.calculators.catalog import Catalog

    data = {"schema_version": 1, "devices": catalog().devices, "models": dict(catalog().models)}
    evil = dict(data["models"]["llama-3.1-8b"], name="<img src=x onerror=alert(1)>")
    data["models"]["llama-3.1-8b"] = evil
    cat = Catalog.from_dict(data)
    html = calculator_html("vram", {"model": "llama-3.1-8b"}, "en", cat, "x.mjs")
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


# --- pyweb: the bridge the worker calls --------------------------------------


def call(name, payload):
    return json.loads(pyweb.call(name, json.dumps(payload)))


def test_pyweb_refuses_unregistered_names_in_the_requested_language():
    out = call("os.system", {"lang": "de"})
    assert out["ok"] is False and out["errors"][0]["key"] == "runtime.internal_error"
    assert out["errors"][0]["message"] == l10n.t("de", "runtime.internal_error")
    assert "KeyError" in out["detail"]
    assert json.loads(pyweb.call("pyweb.ping", "not json"))["ok"] is False


def test_pyweb_never_returns_non_finite_numbers(monkeypatch):
    monkeypatch.setitem(pyweb.ENTRY_POINTS, "test.nan", "math:sqrt")
    monkeypatch.setattr(math, "sqrt", lambda payload: {"ok": True, "x": float("nan")}, raising=True)
    text = pyweb.call("test.nan", "{}")
    assert "NaN" not in text and json.loads(text)["ok"] is False


def test_browser_entry_reads_the_export_and_renders(tmp_path, monkeypatch):
    from atlas.data.export import export_json

    (tmp_path / "atlas-data.json").write_text(export_json(shared_dataset()), encoding="utf-8")
    monkeypatch.setattr(pyweb, "DATA_DIR", str(tmp_path))
    monkeypatch.setattr(browser, "_catalog", None)
    assert pyweb.warm(["calculators.render"]) == ["calculators.render"]
    params = {"model": "llama-3.1-70b", "weights": "q4_k_m", "context": "8192"}
    out = call("calculators.render", {"command": "vram", "params": params, "lang": "de"})
    assert out["ok"] and out["result"] == render("vram", params, "de")["result"]
    assert out["html"] == render("vram", params, "de")["html"]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("role", ["device", "baseline"])
def test_a_device_without_a_compute_peak_shows_a_dash_and_its_note(role, lang):
    """The Alveo V80 states no compute peak an LLM engine could use: its cells say "—", the note says why, the other
    device keeps its roofline."""
    params = {"model": "llama-3.1-8b", "device": "h100-sxm", "baseline": "a100-sxm-80gb", role: "alveo-v80"}
    out = render("speed", params, lang)
    assert out["ok"], out.get("errors")
    html = out["html"]
    assert out["result"][role]["peak_tflops"] is None
    cell = re.search(rf'<td data-result="{role}\.peak_tflops" data-value="null">([^<]*)</td>', html)
    assert cell and cell.group(1) == l10n.t(lang, "table.not_stated") == "—"
    assert "note.no_compute_peak" in [n["key"] for n in out["result"]["notes"]]
    assert l10n.t(lang, "note.no_compute_peak", device="Alveo V80") in html
    assert "<svg" in html and "atlas-calc-chart-missing" not in html  # the other device's roofline is drawn
    assert not re.search(r"\bNone\b|NaN|Infinity", html)


def test_a_roofline_without_any_drawable_device_is_a_sentence():
    result = handle({"command": "speed", "params": {"model": "llama-3.1-8b", "device": "alveo-v80"}, "lang": "de"},
                    catalog())["result"]
    from atlas.core.calcview.results import _roofline

    out = _roofline(result, "de")
    assert out == ('<p class="atlas-calc-chart-missing">'
                   + l10n.t("de", "calc.chart.no_roofline", device="Alveo V80") + "</p>")


NOT_A_VALUE = re.compile(r"\bNone\b|\bnan\b|\bNaN\b|\binf\b|Infinity")


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_no_help_text_says_none_nan_or_inf(lang):
    for command in ("vram", "speed"):
        for param in params_for(command):
            shown = form.help_text(command, param.name, lang)
            assert shown and not NOT_A_VALUE.search(shown), (command, param.name, shown)
    host = form.help_text("speed", "host_bandwidth_gb_s", lang)
    assert l10n.format_number(d.DEFAULT_HOST_BANDWIDTH.value, lang, 2) + "\u00a0GB/s" in host
    assert ("89,6\u00a0GB/s" if lang == "de" else "89.6\u00a0GB/s") in host


def test_a_help_text_without_a_default_to_show_stops_the_build(monkeypatch):
    monkeypatch.delitem(form.HELP_DEFAULTS, "host_bandwidth_gb_s")
    with pytest.raises(ValueError, match="host_bandwidth_gb_s"):
        form.help_text("speed", "host_bandwidth_gb_s", "en")


def test_a_field_value_is_never_ambiguous_to_the_field():
    assert numbers.field_value(12.188, "en") == "12.1880" and numbers.field_value(12.188, "de") == "12,1880"
    assert numbers.field_value(0.135, "de") == "0,135" and numbers.field_value(8.03, "en") == "8.03"
    assert numbers.field_value(1234.5, "en") == "1234.5"


@pytest.mark.parametrize("command", ["vram", "speed"])
def test_every_preset_prefills_a_form_that_computes(command):
    """A page may declare any preset as its model: the custom-model fields it prefills must all parse."""
    for model_id in catalog().model_ids():
        values = form.initial_values(command, {"model": model_id, "device": "h100-sxm"}, catalog())
        for lang in l10n.LANGUAGES:
            params = {k: numbers.field_value(v, lang) for k, v in values.items()}
            params["model"] = "custom"
            response = handle({"command": command, "params": params, "lang": lang}, catalog())
            assert response["ok"], (model_id, lang, response["errors"])
            if command == "vram":
                stated = catalog().models[model_id]["parameters"]["total_b"]
                assert response["result"]["params_b"] == pytest.approx(stated)


def test_command_line_options_in_a_result_are_code_that_never_breaks():
    """German sentences are long: on a phone "--gpu-layers 13" broke at its hyphens. An option is one piece of
    code (the stylesheet keeps it on one line); hyphenated names, ranges and negative numbers stay text."""
    from atlas.core.calcview.markup import prose

    assert prose("der Rest im Arbeitsspeicher (--gpu-layers 13), mit ≈ 0,45 Tokens/s.") == \
        'der Rest im Arbeitsspeicher <span class="atlas-option-run">(<code class="atlas-option">--gpu-layers 13</code>),' \
        '</span> mit ≈ 0,45 Tokens/s.'
    assert prose("llama.cpp -ngl 99 <b>") == 'llama.cpp <code class="atlas-option">-ngl 99</code> &lt;b&gt;'
    for plain in ("gpt-oss-120b auf Qwen3-30B-A3B", "×0,8–1,25", "-3 % und - 5", "MoE-Modelle, E-Mail"):
        assert prose(plain) == plain.replace("&", "&amp;")
    result = handle({"command": "speed", "lang": "de",
                     "params": {"model": "llama-3.1-70b", "weights": "bf16", "device": "rtx-4090"}}, catalog())
    assert result["ok"], result
    page = calcview.results.speed_html(result["result"], "de")
    # the verdict (its nearest configuration that runs) and the note both name the option, as code
    assert page.count('<code class="atlas-option">--gpu-layers 13</code>') == 2, page
    shown_elsewhere = re.sub(r"<[^>]+>", "", re.sub(r'<code class="atlas-option">[^<]*</code>', "", page))
    assert "--gpu-layers" not in shown_elsewhere  # (the raw message in data-value attributes stays as it is)
    # the one-line answer of the sticky bar on phones, as text and as HTML with the option as code
    rendered = calcview.render({"command": "speed", "lang": "de",
                                "params": {"model": "llama-3.1-70b", "weights": "bf16", "device": "rtx-4090"}}, catalog())
    assert "(--gpu-layers 13)" in rendered["summary"]
    assert rendered["summary_html"] == prose(rendered["summary"])
    assert '<code class="atlas-option">--gpu-layers 13</code>' in rendered["summary_html"]

"""The in-page kernel demos (kernelview) on CPython, through the entry points the
browser calls (``atlas.core.pyweb.call``): every value equals a direct call to
``atlas/core/kernels/systolic.py`` or ``atlas/core/kernels/roofline.py``; bad input gives localized
messages. tests/test_browser_kernel_demos.py runs the same code under Pyodide.
"""

import json
import math
import re

import pytest

from atlas.core import l10n, pyweb
from atlas.core.calculators.catalog import Catalog
from atlas.core.charts import ChartError
from atlas.core.charts.systolic import pe_grid_svg, utilisation_svg
from atlas.core.kernels import roofline, systolic
from atlas.core.kernelview import render, roofline_demo, systolic_demo
from atlas.core.kernelview.page import demo_html, page_config
from atlas.data import kernel_tables
from calc_results import lookup, result_elements
from calculators_support import catalog

BAD_TEXT = re.compile(r"\bNaN\b|\bInfinity\b|Traceback|\bnan\b|\binf\b")


def call(entry: str, params: dict, lang: str = "en") -> dict:
    """What the page gets from the worker for ``params`` (JSON in, JSON out, as in the browser)."""
    if entry == "kernels.roofline":  # the browser reads the catalog from the data export
        from atlas.core.calcview import browser

        browser._catalog = catalog()
    return json.loads(pyweb.call(entry, json.dumps({"command": "ignored", "params": params, "lang": lang})))


def shown(html: str) -> dict:
    return {path: (value, text) for path, value, text in result_elements(html)}


# --- systolic array ------------------------------------------------------------------------

SYSTOLIC = [
    ({}, (8, 8, 8, 8)),
    ({"size": "4", "m": "6", "k": "8", "n": "8"}, (4, 6, 8, 8)),
    ({"size": "4", "m": "6", "k": "9", "n": "5"}, (4, 6, 9, 5)),  # padded tiles, too many cycles to draw
    ({"size": "16", "m": "8", "k": "16", "n": "16"}, (16, 8, 16, 16)),
    ({"size": "128", "m": "1024", "k": "1024", "n": "1024"}, (128, 1024, 1024, 1024)),  # formula only
    ({"size": "32", "m": "100", "k": "64", "n": "64"}, (32, 100, 64, 64)),  # simulated, not drawn
]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("params, dims", SYSTOLIC)
def test_systolic_entry_equals_the_simulator(params, dims, lang):
    size, m, k, n = dims
    out = call("kernels.systolic", params, lang)
    assert out["ok"] and out["errors"] == [] and out["warnings"] == []
    result = out["result"]
    assert result["summary"] == systolic.summary(m, k, n, size)
    assert result["tile"] == {"load_cycles": size, "stream_cycles": systolic.tile_cycles(m, size) - size}
    assert result["pe_cycles"] == size * size * systolic.cycles(m, k, n, size)
    sweep = result["sweep"]
    assert m in sweep["sizes"] and sweep["sizes"][0] == 1 and sweep["sizes"][-1] >= 4096
    assert sweep["square"] == [systolic.utilisation(s, s, s, size) for s in sweep["sizes"]]
    assert sweep["rows"] == [systolic.utilisation(s, k, n, size) for s in sweep["sizes"]]
    simulated = result["pe_cycles"] <= systolic_demo.SIMULATE_LIMIT
    assert (result["simulation"] is not None) == simulated
    if simulated:
        x, w = systolic_demo.operands(m, k, n)
        run = systolic.simulate(x, w, size, trace=True)
        assert result["simulation"] == {"cycles": run["cycles"], "busy": run["busy"], "max_error": 0.0}
        assert run["cycles"] == result["summary"]["cycles"] and run["busy"] == m * k * n
    drawn = size <= 16 and result["trace_cells"] <= 2048 and result["trace_frames"] <= 64
    assert (result["trace"] is not None) == drawn
    if drawn:
        assert result["trace"]["frames"] == json.loads(json.dumps(run["frames"]))
        assert len(result["trace"]["frames"]) == result["trace_frames"]
    values = shown(out["html"])
    for path, (value, _text) in values.items():
        assert value == lookup(result, path), path
    assert values["summary.cycles"][1] == l10n.format_number(result["summary"]["cycles"], lang, 0)
    percent = l10n.format_significant(100 * result["summary"]["utilisation"], lang, 3)
    assert values["summary.utilisation"][1] == l10n.t(lang, "kernels.percent", value=percent)
    assert ("trace_frames" in values) == drawn
    assert ("simulation.max_error" in values) == simulated
    assert not BAD_TEXT.search(re.sub(r"<[^>]+>", " ", out["html"]))


def test_known_systolic_figures():
    """1,024^3 on a 128 x 128 array: 64 tiles of 128 + 1,024 + 254 cycles; 4 x 6 x 8 x 8 as on the page."""
    big = call("kernels.systolic", {"size": "128", "m": "1024", "k": "1024", "n": "1024"})["result"]["summary"]
    assert (big["tiles"], big["cycles"]) == (64, 64 * 1406)
    assert round(100 * big["utilisation"], 1) == 72.8
    small = call("kernels.systolic", {"size": "4", "m": "6", "k": "8", "n": "8"})["result"]
    assert (small["summary"]["tiles"], small["summary"]["cycles"]) == (4, 4 * (4 + 6 + 6))
    assert small["summary"]["utilisation"] == 6 * 8 * 8 / (16 * 64)
    assert small["trace_frames"] == 4 * 12


def test_step_through_shows_the_simulators_frames():
    out = call("kernels.systolic", {"size": "4", "m": "6", "k": "6", "n": "4"}, "de")
    frames = out["result"]["trace"]["frames"]
    html = out["html"]
    items = re.findall(r'<li class="atlas-frame" data-frame="(\d+)" data-cycle="(\d+)">(.*?)</li>', html, re.S)
    assert [(int(i), int(c)) for i, c, _ in items] == [(i, f["cycle"]) for i, f in enumerate(frames)]
    for (_, _, body), frame in zip(items, frames, strict=True):
        busy_rows = sorted({int(r) for r in re.findall(r'data-row="(\d+)"', body)})
        assert busy_rows == sorted({m for row in frame["active"] for m in row if m is not None})
        labels = sorted(int(t) for t in re.findall(r"<text x=\"[\d.]+\" y=\"[\d.]+\">(\d+)</text>", body))
        assert labels == sorted(m for row in frame["active"] for m in row if m is not None)
    # K = 6 on a 4-cell array: the second weight tile has two rows of padding, drawn as wasted work
    second_tile = [body for (_, _, body), f in zip(items, frames, strict=True) if f["tile"] == [1, 0]]
    assert second_tile and any("atlas-pe-pad" in body for body in second_tile)
    assert all("atlas-pe-pad" not in body for (_, _, body), f in zip(items, frames, strict=True) if f["tile"] == [0, 0])
    # the first streaming cycle: row 0 of X enters the top-left cell and nothing leaves yet
    first = re.sub(r"<[^>]+>", "|", items[0][2])
    assert "Links herein: X[0][0]" in first and "Unten heraus: nichts" in first
    assert "Takt 4, Gewichtskachel 1 von 2: 1 von 16 Zellen rechnen" in first
    # the controls exist (hidden until the script runs) with German labels
    assert 'data-stepper-controls="" hidden' not in html  # attrs() writes bare names
    assert re.search(r'<div class="atlas-stepper-controls" data-stepper-controls hidden>', html)
    assert ">Abspielen<" in html and 'data-label-pause="Anhalten"' in html


def test_products_too_large_for_the_page_say_so():
    out = call("kernels.systolic", {"size": "128", "m": "1024", "k": "1024", "n": "1024"}, "de")
    html = out["html"]
    assert l10n.t("de", "kdemo.systolic.not_simulated", pe_cycles="1.474.297.856",
                  limit="250.000") in html.replace("&#x27;", "'")
    assert "Den Ablauf Takt für Takt zeigt die Seite für Arrays bis 16 × 16 Zellen" in html


@pytest.mark.parametrize(
    "lang, params, expected",
    [
        ("de", {"m": "1.024"}, 1024),  # German thousands separator in a whole number
        ("en", {"m": "1,024"}, 1024),
        ("en", {"m": " 12 "}, 12),
        ("de", {"m": "12,0"}, 12),
    ],
)
def test_numbers_typed_either_way(lang, params, expected):
    out = call("kernels.systolic", params, lang)
    assert out["ok"] and out["result"]["summary"]["m"] == expected


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_bad_systolic_inputs_give_a_message_per_field(lang):
    params = {"size": "2000", "m": "2,5", "k": "abc", "n": "0"}
    out = call("kernels.systolic", params, lang)
    assert not out["ok"] and "html" not in out and out["result"] is None
    by_field = {e["field"]: e for e in out["errors"]}
    assert set(by_field) == {"size", "m", "k", "n"}
    expected = {
        "size": ("kernels.error.too_large", {"value": "2000", "high": l10n.format_number(1024, lang, 0)}),
        "m": ("kernels.error.not_whole", {"value": "2,5"}),
        "k": ("kernels.error.not_a_number", {"value": "abc"}),
        "n": ("kernels.error.too_small", {"value": "0", "low": 1}),
    }
    for field, (key, params_) in expected.items():
        assert by_field[field]["key"] == key
        assert by_field[field]["message"] == l10n.t(lang, key, **params_), field
    if lang == "de":
        assert by_field["m"]["message"] == "Bitte eine ganze Zahl eingeben (Eingabe: „2,5“)."


@pytest.mark.parametrize(
    "typed, key",
    [("nan", "not_whole"), ("inf", "not_whole"), ("-inf", "not_whole"), ("1e400", "not_whole"),
     ("9" * 40, "too_large"), ("-3", "too_small"), ("1e6", "too_large"), ("8.5", "not_whole"), ("acht", "not_a_number")],
)
def test_odd_numbers_never_break_the_demo(typed, key):
    out = call("kernels.systolic", {"size": typed}, "de")
    (problem,) = out["errors"]
    assert (problem["field"], problem["key"]) == ("size", f"kernels.error.{key}")
    params = {"value": typed[:40]} | ({"low": 1} if key == "too_small" else {}) | (
        {"high": "1.024"} if key == "too_large" else {})  # the limit is stated
    assert problem["message"] == l10n.t("de", f"kernels.error.{key}", **params)


@pytest.mark.parametrize("blank", ["", "  ", None])
def test_a_blank_field_takes_the_default(blank):
    out = call("kernels.systolic", {"size": blank, "m": "4"}, "de")
    assert out["ok"] and out["result"]["summary"]["size"] == 8 and out["result"]["summary"]["m"] == 4


def test_unknown_parameters_are_warnings_and_the_rest_still_runs():
    out = call("kernels.systolic", {"size": "4", "colour": "blue"}, "de")
    assert out["ok"] and out["result"]["summary"]["size"] == 4
    assert [w["field"] for w in out["warnings"]] == ["colour"]
    assert "„colour“" in out["warnings"][0]["message"]


def test_unknown_demo_and_broken_payloads():
    assert render({"command": "tetris", "params": {}, "lang": "de"})["errors"][0]["key"] == "error.unknown_value"
    assert json.loads(pyweb.call("kernels.systolic", "[1, 2]"))["ok"]  # not a dict: the defaults
    broken = json.loads(pyweb.call("kernels.systolic", "{not json"))
    assert broken["errors"][0]["key"] == "runtime.internal_error"


# --- roofline explorer ---------------------------------------------------------------------

ROOFLINE = [
    ({}, "h100-sxm", "bf16", 100.0),
    ({"device": "a100-sxm-80gb", "precision": "fp16", "intensity": "1000"}, "a100-sxm-80gb", "fp16", 1000.0),
    ({"device": "h200-sxm", "precision": "bf16", "intensity": "2,5"}, "h200-sxm", "bf16", 2.5),  # half the sparse
    ({"device": "versal-ai-core-vc1902", "precision": "int8"}, "versal-ai-core-vc1902", "int8", 100.0),
    ({"device": "tpu-v5e", "intensity": "0.125"}, "tpu-v5e", "bf16", 0.125),
    ({"device": "rtx-4090", "precision": "fp32", "intensity": "1e4"}, "rtx-4090", "fp32", 1e4),  # vector unit
]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("params, device_id, precision, intensity", ROOFLINE)
def test_roofline_entry_equals_the_model(params, device_id, precision, intensity, lang, dataset):
    out = call("kernels.roofline", params, lang)
    assert out["ok"], out["errors"]
    # the peak the build-time roofline tables use (atlas.core.calculators.demo_peaks.peak through atlas.data.kernel_tables)
    _, peak, bandwidth = kernel_tables.device_roof(dataset.devices, device_id, precision)
    result = out["result"]
    assert result["roofline"] == roofline.explore(peak["value"], bandwidth, intensity)
    assert (result["device"], result["precision"]) == (device_id, precision)
    assert result["unit"] == peak["field"].split(".")[1] and result["from_sparse"] == peak["from_sparse"]
    values = shown(out["html"])
    for path, (value, _text) in values.items():
        assert value == lookup(result, path), path
    attainable = result["roofline"]["attainable_tflops"]
    assert values["roofline.attainable_tflops"][1] == l10n.format_significant(attainable, lang, 3)
    bound = result["roofline"]["bound"]
    assert values["roofline.bound"][1] == l10n.t(lang, f"kernels.roofline.bound.{bound}")
    assert 'data-chart="roofline"' in out["html"]
    assert not BAD_TEXT.search(re.sub(r"<[^>]+>", " ", out["html"]))


def test_known_roofline_figures():
    """H100 SXM, BF16: 989.4 TFLOP/s over 3,350 GB/s; at 100 FLOP/byte the memory roof is 335 TFLOP/s."""
    r = call("kernels.roofline", {}, "de")["result"]["roofline"]
    assert (r["peak_tflops"], r["bandwidth_gb_s"], r["attainable_tflops"], r["bound"]) == (989.4, 3350.0, 335.0, "memory")
    assert round(r["ridge_flop_per_byte"]) == 295
    out = call("kernels.roofline", {"intensity": "1000"}, "de")
    assert out["result"]["roofline"]["bound"] == "compute" and out["result"]["roofline"]["attainable_tflops"] == 989.4
    assert "rechengebunden" in out["html"]


def test_explorer_peak_agrees_with_the_roofline_tables_for_every_device(dataset):
    from atlas.core.calculators.demo_peaks import PRECISIONS  # what the demos and the build-time tables look up

    for device_id in dataset.devices:
        for precision in PRECISIONS:
            mine = roofline_demo.roof(catalog().devices[device_id], precision)
            try:
                _, peak, bandwidth = kernel_tables.device_roof(dataset.devices, device_id, precision)
            except ValueError:
                assert mine is None, (device_id, precision)
                continue
            assert mine is not None, (device_id, precision)
            assert (mine[0].tflops, mine[1]) == (peak["value"], bandwidth), (device_id, precision)


def test_explorer_offers_the_narrow_formats_the_data_set_states(dataset):
    """FP4 and INT4 are beyond the measuring demos but not beyond the roofline: the figure as stated."""
    b200 = call("kernels.roofline", {"device": "b200", "precision": "fp4"})["result"]
    stated = next(c["tflops"] for c in dataset.devices["b200"]["compute"]
                  if (c["precision"], c["unit"], c["sparsity"]) == ("fp4", "matrix", "dense"))
    assert b200["roofline"]["peak_tflops"] == stated and b200["unit"] == "matrix"


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_bad_roofline_inputs_give_a_message_per_field(lang):
    out = call("kernels.roofline", {"device": "h200-sx", "precision": "fp9", "intensity": "-1"}, lang)
    assert not out["ok"]
    by_field = {e["field"]: e for e in out["errors"]}
    assert set(by_field) == {"device", "precision", "intensity"}
    assert "h200-sxm" in by_field["device"]["params"]["suggestions"]
    assert "h200-sx" in by_field["device"]["message"] and "fp8" in by_field["precision"]["message"]
    assert by_field["intensity"]["message"] == l10n.t(lang, "kernels.error.not_positive", value="-1")


def test_a_precision_the_device_lacks_names_the_ones_it_has():
    out = call("kernels.roofline", {"device": "tpu-v5e", "precision": "fp64"}, "de")
    (problem,) = out["errors"]
    assert problem["field"] == "precision"
    assert problem["message"] == "Für TPU v5e nennt der Datensatz keinen FP64-Wert. Vorhanden sind: BF16, INT8."


@pytest.mark.parametrize("typed, key", [("abc", "not_a_number"), ("nan", "not_finite"), ("0", "not_positive"),
                                        ("1e13", "too_large"), ("-0,5", "not_positive")])
def test_bad_intensity(typed, key):
    (problem,) = call("kernels.roofline", {"intensity": typed}, "de")["errors"]
    assert (problem["field"], problem["key"]) == ("intensity", f"kernels.error.{key}")
    limit = {"high": l10n.format_number(10**12, "de", 0)} if key == "too_large" else {}
    assert problem["message"] == l10n.t("de", f"kernels.error.{key}", value=typed, **limit)


@pytest.mark.parametrize("typed", ["1e-9", "1e12", "0,001"])
def test_extreme_intensities_still_draw(typed):
    out = call("kernels.roofline", {"intensity": typed}, "de")
    assert out["ok"] and 'data-chart="roofline"' in out["html"]
    assert not BAD_TEXT.search(re.sub(r"<[^>]+>", " ", out["html"]))


def test_device_names_from_data_are_escaped():
    hostile = dict(catalog().devices["h100-sxm"], name="<script>alert(1)</script>", short_name="<b>H100</b>")
    cat = Catalog(devices={"h100-sxm": hostile}, models={})
    out = render({"command": "roofline", "params": {}, "lang": "en"}, cat)
    assert out["ok"] and "<b>H100</b>" not in out["html"] and "&lt;b&gt;H100&lt;/b&gt;" in out["html"]
    page = demo_html("roofline", "en", cat, "x.mjs")
    assert "<b>" not in page and "<script>alert" not in page


# --- charts --------------------------------------------------------------------------------


def test_pe_grid_marks_work_padding_and_flow():
    active = [[0, None], [None, None]]
    picture = pe_grid_svg(active, "en", rows_used=2, cols_used=1, title="t")
    assert picture.count('data-row="0"') == 1 and "atlas-pe-busy" in picture and "atlas-pe-pad" not in picture
    assert picture.count("z") >= 2  # one cell and one arrow in
    padded = pe_grid_svg([[None, 0], [None, None]], "en", rows_used=2, cols_used=1, title="t")
    assert "atlas-pe-pad" in padded
    with pytest.raises(ChartError):
        pe_grid_svg([[0, None]], "en")


def test_utilisation_chart_in_both_languages():
    series = [{"label": "M = K = N", "points": [{"size": 8, "utilisation": 0.25}, {"size": 4096, "utilisation": 0.9}]}]
    for lang, text in (("en", "90%"), ("de", "90\u202f%")):
        picture = utilisation_svg(series, lang, {"label": "mine", "size": 8, "utilisation": 0.25})
        assert 'data-chart="utilisation"' in picture and text in picture
    with pytest.raises(ChartError):
        utilisation_svg([], "en")
    with pytest.raises(ChartError):
        utilisation_svg([{"label": "x", "points": [{"size": math.nan, "utilisation": 0.1}]}], "de")


# --- the page ------------------------------------------------------------------------------


@pytest.mark.parametrize("demo, trigger", [("systolic", "submit"), ("roofline", "input")])
def test_demo_page_markup(demo, trigger):
    html = demo_html(demo, "de", catalog(), "../../assets/javascripts/calculator.mjs")
    config = json.loads(re.search(r'<script type="application/json" data-calc-config>(.*?)</script>', html).group(1))
    assert config == page_config(demo, "de")
    assert config["entry"] == f"kernels.{demo}" and config["trigger"] == trigger
    assert config["entry"] in pyweb.ENTRY_POINTS
    assert re.findall(r"<script(?![^>]*(?:src=|application/json))[^>]*>", html) == []
    assert f'data-atlas-calculator="{demo}"' in html and 'lang="de"' in html
    expected = render({"command": demo, "params": {}, "lang": "de"}, catalog())
    assert expected["html"] in html
    names = re.findall(r'<(?:input|select)[^>]* name="([^"]+)"', html)
    from atlas.core.kernelview.inputs import PARAMETERS

    assert names == [name for name, _, _ in PARAMETERS[demo]]
    assert ("data-calc-run" in html) == (trigger == "submit")

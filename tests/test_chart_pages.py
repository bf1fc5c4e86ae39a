"""Charts from the data set: chart inputs read through atlas.core.calculators.fields, and the charts on the built pages."""

import re
import sys
import xml.etree.ElementTree as ET

import pytest

from atlas.data import chart_inputs
from conftest import REPO_ROOT

NS = {"svg": "http://www.w3.org/2000/svg"}


def test_chart_device_reads_the_data_set_figures(dataset):
    h100 = chart_inputs.chart_device(dataset.device("h100-sxm"))
    assert h100["label"] == "H100 SXM"  # short_name
    assert (h100["peak_tflops"], h100["precision"]) == (989.4, "bf16")
    assert (h100["capacity_gib"], h100["bandwidth_gb_s"], h100["tdp_w"]) == (80, 3350, 700)
    assert h100["kind"] == "gpu" and h100["launch_year"] == 2022


def test_first_stated_precision_is_used(dataset):
    a100 = chart_inputs.chart_device(dataset.device("a100-sxm-80gb"), precision=["fp8", "bf16"])
    assert (a100["peak_tflops"], a100["precision"]) == (312, "bf16")  # the A100 has no FP8
    sparse = chart_inputs.chart_device(dataset.device("h100-sxm"), precision="fp8", sparsity="sparse")
    assert sparse["peak_tflops"] == 3957.8


def test_selection_leaves_out_devices_without_the_figure_unless_listed(dataset):
    fp8 = chart_inputs.chart_devices(dataset.devices, kind="gpu", precision="fp8", require=("peak_tflops",))
    assert "h100-sxm" in [d["id"] for d in fp8] and "a100-sxm-80gb" not in [d["id"] for d in fp8]
    with pytest.raises(ValueError, match="device 'a100-sxm-80gb' does not state peak_tflops"):
        chart_inputs.chart_devices(dataset.devices, ids=["a100-sxm-80gb"], precision="fp8", require=("peak_tflops",))
    with pytest.raises(ValueError, match="unknown precision 'bf17'"):
        chart_inputs.chart_devices(dataset.devices, precision="bf17")


def charts_in(html: str) -> dict:
    """{data-chart: svg element} of every chart in a built page."""
    out = {}
    for match in re.finditer(r"<svg\b[^>]*data-chart=.*?</svg>", html, re.DOTALL):
        root = ET.fromstring(match.group(0))
        out[root.get("data-chart")] = root
    return out


@pytest.mark.parametrize("lang", ["en", "de"])
def test_compare_page_shows_the_charts_in_its_language(built_site, lang):
    page = built_site / ("de/compare/index.html" if lang == "de" else "compare/index.html")
    html = page.read_text(encoding="utf-8")
    found = charts_in(html)
    assert {"roofline", "capacity-bandwidth", "generations", "efficiency-power"} <= set(found)
    for root in found.values():
        assert root.get("lang") == lang
    roof = found["roofline"]
    ridge = roof.find(".//svg:g[@data-device='h100-sxm']/svg:circle", NS)
    assert float(ridge.get("data-ridge")) == pytest.approx(989.4 * 1000 / 3350, rel=1e-5)
    if lang == "de":
        assert roof.find("svg:title", NS).text == "Roofline-Diagramm, BF16 (Matrixeinheit, dicht)"
        assert "<summary>Zahlen zu diesem Diagramm</summary>" in html
        assert "<td>989,4</td><td>3.350</td><td>295</td>" in html
    else:
        assert roof.find("svg:title", NS).text == "Roofline, BF16 (matrix unit, dense)"
        assert "<summary>Numbers behind this chart</summary>" in html
        assert "<td>989.4</td><td>3,350</td><td>295</td>" in html
    assert not re.search(r"\bNaN\b|Infinity|Traceback", html)
    # The numbers also live in a table next to every chart.
    assert html.count('<details class="atlas-chart-data" data-search-exclude>') == len(re.findall(r"<svg\b[^>]*data-chart=", html))


def test_chart_stylesheet_is_part_of_the_site(built_site):
    css = (built_site / "assets" / "stylesheets" / "charts.css").read_text(encoding="utf-8")
    assert '[data-md-color-scheme="slate"]' in css
    html = (built_site / "compare" / "index.html").read_text(encoding="utf-8")
    assert "assets/stylesheets/charts.css" in html
    assert "<script" not in html[html.index("<article"): html.index("</article>")]  # no inline script for charts


# --- figures computed by the estimators -----------------------------------------------------

CASE_70B = {"model": "llama-3.1-70b", "weights": "q4_k_m", "context": 8192}


@pytest.fixture(scope="module")
def catalog(dataset):
    from atlas.data import chart_estimates

    return chart_estimates.catalog(dataset)


def vram(params, catalog):
    from atlas.core.calculators.api import handle

    answer = handle({"command": "vram", "params": params, "lang": "en"}, catalog)
    assert answer["ok"], answer
    return answer["result"]


def test_breakdown_bar_is_the_estimators_breakdown(catalog):
    from atlas.data import chart_estimates

    bar = chart_estimates.breakdown_bar(CASE_70B, "de", catalog)
    expected = vram(CASE_70B, catalog)
    assert bar["parts"] == expected["breakdown"]
    assert bar["label"] == "Llama 3.1 70B, Q4_K_M, 8.192 Tokens"
    # Q4_K_M weights of Llama 3.1 70B: llama.cpp's ~42.5 GB file is about 40 GiB.
    assert 38 < bar["parts"]["weights_gib"] < 42


def test_threshold_and_marker_come_from_the_estimators(catalog):
    from atlas.core.calculators.api import handle
    from atlas.data import chart_estimates

    line = chart_estimates.capacity_threshold(CASE_70B, "en", catalog)
    total = vram(CASE_70B, catalog)["total_gib"]
    assert line["capacity_gib"] == total
    assert line["label"] == f"Llama 3.1 70B, Q4_K_M, 8,192 tokens: {total:.1f} GiB"
    decode = {"workload": "decode", "model": "llama-3.1-8b", "weights": "bf16", "batch": 1}
    marker = chart_estimates.workload_marker(decode, "h100-sxm", "de", catalog)
    speed = handle({"command": "speed", "params": {"device": "h100-sxm", **decode}, "lang": "de"}, catalog)["result"]
    assert marker["intensity"] == pytest.approx(speed["flops"] / speed["bytes"])
    assert 0.9 < marker["intensity"] < 1.3  # batch-1 decode: about one multiply-add per BF16 weight read
    assert marker["label"] == "Llama 3.1 8B, Decode, Batch 1"


def test_bad_estimate_parameters_stop_with_the_estimators_message(catalog):
    from atlas.data import chart_estimates

    with pytest.raises(chart_estimates.EstimateError, match="llama-3.1-70b"):  # the close match it suggests
        chart_estimates.breakdown_bar({"model": "llama-3.1-7b", "weights": "q4_k_m"}, "en", catalog)


class _Env:
    """Just enough of mkdocs-macros' env to register and call the macros."""

    def __init__(self):
        self.macros = {}

    def macro(self, fn):
        self.macros[fn.__name__] = fn
        return fn


def chart_macros(dataset, lang):
    from macros import charts_macros
    from macros.macro_context import Context

    env = _Env()
    charts_macros.register(env, Context(dataset=dataset, lang=lambda: lang))
    return env.macros


def test_memory_breakdown_macro_draws_estimates_against_device_memory(dataset, catalog):
    macros = chart_macros(dataset, "de")
    html = macros["memory_breakdown_chart"]([CASE_70B, {"model": "llama-3.1-8b", "weights": "bf16"}],
                                            devices=["h100-sxm"])
    root = ET.fromstring(html[html.index("<svg"): html.index("</svg>") + 6])
    assert root.get("data-chart") == "memory-breakdown"
    totals = [float(g.get("data-total")) for g in root.iterfind(".//svg:g[@class='atlas-bar']", NS)]
    assert totals[0] == pytest.approx(vram(CASE_70B, catalog)["total_gib"], rel=1e-5)
    assert root.find(".//svg:g[@class='atlas-capacity']", NS).get("data-capacity") == "80"  # H100 SXM, 80 GiB
    assert "Gewichte" in html and "H100 SXM" in html


def test_macros_show_a_note_for_an_empty_selection_and_fail_for_a_listed_device(dataset):
    macros = chart_macros(dataset, "de")
    assert macros["roofline_chart"](kind="gpu", precision="fp64", unit="matrix", sparsity="sparse") == (
        '<p class="atlas-empty">Noch nennt kein Gerät dieser Auswahl die Werte, die dieses Diagramm braucht.</p>'
    )
    with pytest.raises(ValueError, match="device 'a100-sxm-80gb' does not state peak_tflops"):
        macros["roofline_chart"](ids=["a100-sxm-80gb"], precision="fp8")


def test_compare_page_draws_the_estimators_thresholds(built_site, catalog):
    html = (built_site / "compare" / "index.html").read_text(encoding="utf-8")
    scatter = charts_in(html)["capacity-bandwidth"]
    lines = [float(g.get("data-capacity-gib")) for g in scatter.iterfind(".//svg:g[@class='atlas-threshold']", NS)]
    assert lines[1] == pytest.approx(vram({**CASE_70B}, catalog)["total_gib"], rel=1e-5)
    roof = charts_in(html)["roofline"]
    assert len(roof.findall(".//svg:g[@class='atlas-marker']", NS)) == 3


def test_calculator_results_draw_with_the_standard_library_alone(dataset, tmp_path):
    """The in-page path: atlas.core.calculators.api.handle -> atlas.core.charts.estimates -> charts, without third-party packages."""
    import json
    import subprocess

    from atlas.data.export import export_json

    data = tmp_path / "atlas-data.json"
    data.write_text(export_json(dataset), encoding="utf-8")
    code = """
import json, sys
sys.path.insert(0, sys.argv[1])
from atlas.core import charts
from atlas.core.calculators.api import handle
from atlas.core.calculators.catalog import Catalog
from atlas.core.charts import estimates
cat = Catalog.from_json(open(sys.argv[2], encoding="utf-8").read())
speed = handle({"command": "speed", "lang": "de", "params": {"model": "llama-3.1-8b", "weights": "bf16",
               "workload": "decode", "device": "h100-sxm", "baseline": "a100-sxm-80gb"}}, cat)["result"]
vram = handle({"command": "vram", "lang": "de", "params": {"model": "llama-3.1-70b", "weights": "q4_k_m",
              "context": 8192}}, cat)["result"]
roof = charts.roofline_figure(lang="de", **estimates.speed_roofline(speed, "de"))
bars = charts.memory_breakdown_figure([estimates.vram_bar(vram, "de")], "de",
                                      capacities=[{"label": "H100 SXM", "capacity_gib": 80}])
third = sorted(m for m in sys.modules if m.split(".")[0] in ("yaml", "pandas", "numpy", "jinja2") or m.startswith("atlas.data"))
print(json.dumps({"roof": roof, "bars": bars, "intensity": speed["arithmetic_intensity"],
                  "total": vram["total_gib"], "third": third}))
"""
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code, str(REPO_ROOT), str(data)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["third"] == []
    roof = ET.fromstring(got["roof"][got["roof"].index("<svg"): got["roof"].index("</svg>") + 6])
    assert [g.get("data-device") for g in roof.iterfind(".//svg:g[@data-device]", NS)] == ["h100-sxm", "a100-sxm-80gb"]
    marker = roof.find(".//svg:g[@class='atlas-marker']", NS)
    assert float(marker.get("data-intensity")) == pytest.approx(got["intensity"], abs=0.05)
    assert "Llama 3.1 8B, Decode, Batch 1" in got["roof"]
    bars = ET.fromstring(got["bars"][got["bars"].index("<svg"): got["bars"].index("</svg>") + 6])
    assert float(bars.find(".//svg:g[@class='atlas-bar']", NS).get("data-total")) == pytest.approx(got["total"], rel=1e-5)
    assert "Llama 3.1 70B, Q4_K_M, 8.192 Tokens" in got["bars"]


def test_kernel_examples_on_the_roofline_come_from_the_kernel_demos(dataset):
    from atlas.core.kernels import roofline as kernel_roofline

    html = chart_macros(dataset, "en")["roofline_chart"](ids=["h100-sxm"], kernel_examples=["matmul", "triad"])
    root = ET.fromstring(html[html.index("<svg"): html.index("</svg>") + 6])
    got = [float(g.get("data-intensity")) for g in root.iterfind(".//svg:g[@class='atlas-marker']", NS)]
    # STREAM triad in FP32: 2 FLOPs per 12 bytes; 4096³ BF16 product: 2·4096³ / (3·4096²·2) FLOP/byte
    assert got == pytest.approx([kernel_roofline.triad_intensity(4), 2 * 4096**3 / (3 * 4096**2 * 2)], abs=0.05)
    assert "Square matrix product N = 4,096, BF16" in html


def test_per_dollar_charts_read_the_dated_price_lists(dataset):
    """Cloud: the median over each provider's newest hourly price; purchase: the newest purchase price."""
    import statistics

    from atlas.core.calculators import cost
    from atlas.data.price_lists import prices_by_device

    by_device = prices_by_device(dataset)
    cloud = {d["id"]: d for d in chart_inputs.chart_devices(dataset.devices, kind="gpu", price_kinds=("cloud-per-hour",),
                                                            prices=by_device, require=("peak_tflops", "price_usd"))}
    providers = cost.cloud_prices(by_device["h100-sxm"])
    assert len(providers) >= 5
    assert cloud["h100-sxm"]["price_usd"] == statistics.median(p["usd"] for p in providers)
    assert cloud["h100-sxm"]["price_kind"] == "cloud-per-hour"
    bought = {d["id"]: d for d in chart_inputs.chart_devices(dataset.devices, kind="gpu",
                                                             price_kinds=chart_inputs.PURCHASE_PRICES, prices=by_device,
                                                             require=("peak_tflops", "price_usd"))}
    assert len(bought) > 6  # more than the devices with an old price block
    newest = cost.purchase_price(by_device["rtx-4090"])
    assert (bought["rtx-4090"]["price_usd"], bought["rtx-4090"]["price_as_of"]) == (newest["usd"], newest["as_of"])
    assert "h100-sxm" not in bought or bought["h100-sxm"]["price_kind"] in chart_inputs.PURCHASE_PRICES


def test_charts_stay_out_of_the_search_index(built_site):
    """Every page fetches Material's search index and builds it in a worker: a chart's point labels and its
    table of numbers (the accuracy chart: every measured case) made it 2.8 MB; the captions and prose stay."""
    import json

    index = built_site / "search" / "search_index.json"
    docs = json.loads(index.read_text(encoding="utf-8"))["docs"]
    text = "\n".join(entry["text"] for entry in docs)
    assert "each predicted by a fit that left its source out" not in text  # the accuracy chart's description
    assert any(entry["location"].startswith("calculators/accuracy/#the-targets") for entry in docs)
    assert index.stat().st_size < 1_500_000

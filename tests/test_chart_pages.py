"""Charts from the data set: chart inputs read through atlas.fields, and the charts on the built pages."""

import re
import xml.etree.ElementTree as ET

import pytest

from atlas import chart_inputs

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
    # The numbers also live in a table next to every chart.
    assert html.count('<details class="atlas-chart-data">') == len(re.findall(r"<svg\b[^>]*data-chart=", html))


def test_chart_stylesheet_is_part_of_the_site(built_site):
    css = (built_site / "assets" / "stylesheets" / "charts.css").read_text(encoding="utf-8")
    assert '[data-md-color-scheme="slate"]' in css
    html = (built_site / "compare" / "index.html").read_text(encoding="utf-8")
    assert "assets/stylesheets/charts.css" in html
    assert "<script" not in html[html.index("<article"): html.index("</article>")]  # no inline script for charts

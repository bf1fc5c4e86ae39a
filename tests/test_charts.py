"""The SVG chart package: well-formed, placed where the data puts it, localized, deterministic, escaped."""

import math
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from atlas.core.charts import ChartError, breakdown, efficiency, generations, roofline, scatter
from conftest import REPO_ROOT

NS = {"svg": "http://www.w3.org/2000/svg"}

# Figures as in data/hardware/nvidia/*.yaml (BF16, matrix units, dense).
H100 = {"id": "h100-sxm", "label": "H100 SXM", "peak_tflops": 989.4, "bandwidth_gb_s": 3350}
A100 = {"id": "a100-sxm-80gb", "label": "A100 SXM 80GB", "peak_tflops": 312, "bandwidth_gb_s": 2039}
DECODE = {"label": "LLM decode, batch 1", "intensity": 1}


def parse(svg_text: str) -> ET.Element:
    root = ET.fromstring(svg_text)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def log_px(value, lo, hi, start, end):
    """Independent log10 mapping, written out here rather than taken from atlas.core.charts.svg."""
    return start + (math.log10(value) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * (end - start)


@pytest.mark.parametrize("lang", ["en", "de"])
def test_roofline_is_well_formed_and_accessible(lang):
    root = parse(roofline.roofline_svg([H100, A100], lang, markers=[DECODE]))
    assert root.get("data-chart") == "roofline"
    assert root.get("role") == "img"
    assert root.get("lang") == lang
    children = list(root)
    assert children[0].tag.endswith("title") and children[1].tag.endswith("desc")
    assert "BF16" in children[0].text


def test_h100_ridge_point_sits_where_its_data_puts_it():
    root = parse(roofline.roofline_svg([H100, A100], "en"))
    ridge = 989.4 * 1000 / 3350  # FLOP/byte
    assert ridge == pytest.approx(295.34, abs=0.01)
    xs, ys = roofline.scales([H100, A100])
    # The domain is fixed by the data: decades around the ridges, 1-2-5 steps around the peaks.
    assert (xs.lo, xs.hi) == (1, 10_000)  # A100 ridge 153 / 100 -> 1; H100 ridge 295 × 10 -> 10^4
    assert (ys.lo, ys.hi) == (1, 2000)  # A100 at I=1: 2.039 TFLOP/s × 0.8 -> 1; 989.4 × 1.25 -> 2000
    group = root.find(".//svg:g[@data-device='h100-sxm']", NS)
    circle = group.find("svg:circle", NS)
    assert float(circle.get("data-ridge")) == pytest.approx(ridge, rel=1e-5)
    expected_x = log_px(ridge, 1, 10_000, roofline.PLOT_LEFT, roofline.PLOT_RIGHT)
    expected_y = log_px(989.4, 1, 2000, roofline.PLOT_BOTTOM, roofline.PLOT_TOP)
    assert float(circle.get("cx")) == pytest.approx(expected_x, abs=0.05)
    assert float(circle.get("cy")) == pytest.approx(expected_y, abs=0.05)
    # The roof starts on the bandwidth slope: 3350 GB/s × 1 FLOP/byte = 3.35 TFLOP/s at the left edge.
    first = group.find("svg:polyline", NS).get("points").split()[0].split(",")
    assert float(first[1]) == pytest.approx(log_px(3.35, 1, 2000, roofline.PLOT_BOTTOM, roofline.PLOT_TOP), abs=0.05)


def test_marker_line_at_its_intensity():
    root = parse(roofline.roofline_svg([H100], "en", markers=[{"label": "GEMM 8192³", "intensity": 2730.7}]))
    xs, _ = roofline.scales([H100], [{"label": "x", "intensity": 2730.7}])
    line = root.find(".//svg:g[@class='atlas-marker']/svg:line", NS)
    assert float(line.get("x1")) == pytest.approx(log_px(2730.7, xs.lo, xs.hi, roofline.PLOT_LEFT, roofline.PLOT_RIGHT),
                                                  abs=0.05)


@pytest.mark.parametrize(
    "lang, words, tick",
    [
        ("en", ["Arithmetic intensity (FLOP/byte", "Attainable throughput (TFLOP/s", "Ridge points"], ">1,000<"),
        ("de", ["Arithmetische Intensität (FLOP/Byte", "Erreichbare Rechenleistung (TFLOP/s", "Knickpunkte"], ">1.000<"),
    ],
)
def test_roofline_labels_follow_the_language(lang, words, tick):
    text = roofline.roofline_svg([H100, A100], lang)
    for word in words:
        assert word in text
    assert tick in text
    other = "Arithmetische" if lang == "en" else "Arithmetic intensity"
    assert other not in text


def test_integer_precision_uses_tops_and_operations():
    text = roofline.roofline_svg([{**H100, "peak_tflops": 1978.9}], "de", precision="int8")
    assert "TOPS" in text and "Operationen/Byte" in text and "TFLOP/s" not in text


def test_roofline_tables_hold_every_number():
    html = roofline.roofline_figure(
        [H100, A100], "de", markers=[DECODE]
    )
    assert '<tr data-chart-device="h100-sxm"><th scope="row">H100 SXM</th><td>989,4</td><td>3.350</td><td>295</td></tr>' in html
    assert "<td>153</td>" in html  # A100: 312 × 1000 / 2039
    # decode at 1 FLOP/byte: H100 attains 3.35 TFLOP/s, limited by memory bandwidth
    assert "<th scope=\"row\">LLM decode, batch 1</th><td>1</td><td>H100 SXM</td><td>3,35</td><td>Speicherbandbreite</td>" in html
    assert html.startswith('<figure class="atlas-figure"><div class="atlas-chart-box" data-search-exclude><svg ') and '<details class="atlas-chart-data" data-search-exclude>' in html and "\n\n" not in html


def test_same_input_same_bytes_even_in_another_process():
    args = ([H100, A100], "de")
    first = roofline.roofline_figure(*args, markers=[DECODE])
    assert first == roofline.roofline_figure(*args, markers=[DECODE])
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from atlas.core.charts import roofline;"
        f"sys.stdout.write(roofline.roofline_figure({args[0]!r}, 'de', markers=[{DECODE!r}]))"
    )
    env = dict(os.environ, PYTHONHASHSEED="123")
    out = subprocess.run([sys.executable, "-c", code, str(REPO_ROOT)], capture_output=True, text=True, env=env, check=True)
    assert out.stdout == first


def test_charts_import_with_the_standard_library_alone():
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from atlas.core import charts, l10n;"
        "s = charts.roofline_svg([{'id': 'x', 'label': 'X', 'peak_tflops': 10, 'bandwidth_gb_s': 100}], 'en');"
        "b = charts.memory_breakdown_svg([{'label': 'M', 'parts': {'weights_gb': 1}}], 'de');"
        "third = sorted(m for m in sys.modules if m.split('.')[0] in ('yaml', 'pandas', 'numpy', 'jinja2', 'markdown', 'babel') or m.startswith('atlas.data'));"
        "print(len(s) > 0 and len(b) > 0, third)"
    )
    # -I: ignore PYTHON* variables and the user site; -S: no site-packages at all.
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code, str(REPO_ROOT)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True []"


HOSTILE = '<script>alert("x")</script> & \'quotes\''


def test_hostile_labels_are_escaped():
    text = roofline.roofline_figure([{**H100, "label": HOSTILE, "id": 'x"><script>'}], "en",
                             markers=[{"label": HOSTILE, "intensity": 2}])
    assert "<script" not in text
    svg_part = text[text.index("<svg"): text.index("</svg>") + 6]
    root = parse(svg_part)
    labels = [el.text for el in root.iter() if el.text and "alert" in el.text]
    assert HOSTILE in labels  # shown as text, exactly as given
    html = breakdown.memory_breakdown_figure([{"label": HOSTILE, "parts": {"weights_gb": 1}}], "en",
                                      capacities=[{"label": HOSTILE, "capacity_gib": 2}])
    assert "<script" not in html and "&lt;script&gt;" in html


@pytest.mark.parametrize(
    "device, lang, message",
    [
        ({**H100, "peak_tflops": float("nan")}, "en", "H100 SXM: peak_tflops: expected a finite number, got nan."),
        ({**H100, "bandwidth_gb_s": -5}, "de", "H100 SXM: bandwidth_gb_s: Der Wert muss größer als null sein, angegeben ist -5."),
        ({**H100, "peak_tflops": "989"}, "en", "H100 SXM: peak_tflops: expected a finite number, got 989."),
    ],
)
def test_bad_numbers_give_a_localized_error(device, lang, message):
    with pytest.raises(ChartError) as err:
        roofline.roofline_svg([device], lang)
    assert str(err.value) == message


def test_empty_selection_is_an_error():
    with pytest.raises(ChartError, match="Kein Gerät"):
        roofline.roofline_svg([], "de")
    with pytest.raises(ChartError, match="Unknown precision “bf17”"):
        roofline.roofline_svg([H100], "en", precision="bf17")


# --- memory breakdown -------------------------------------------------------------------

LLAMA_70B_Q4 = {"label": "Llama 3.1 70B, Q4_K_M", "parts": {"weights_gb": 42.5, "kv_cache_gb": 2.7, "overhead_gb": 1.2}}


def test_breakdown_segments_are_as_wide_as_their_share():
    capacities = [{"label": "H100 SXM", "capacity_gib": 80}]
    root = parse(breakdown.memory_breakdown_svg([LLAMA_70B_Q4], "en", capacities=capacities))
    assert root.get("data-chart") == "memory-breakdown"
    scale = breakdown.scale_for([LLAMA_70B_Q4], capacities)
    assert (scale.lo, scale.hi) == (0, 100)  # 80 GiB capacity × 1.02 -> next step of 20
    width_per_gib = (breakdown.PLOT_RIGHT - breakdown.PLOT_LEFT) / 100
    rects = {g.get("data-part"): g.find("svg:rect", NS) for g in root.iterfind(".//svg:g[@data-part]", NS)}
    assert list(rects) == ["weights", "kv_cache", "overhead"]
    weights_gib = 42.5e9 / 2**30  # 39.58 GiB
    assert float(rects["weights"].get("width")) == pytest.approx(weights_gib * width_per_gib, abs=0.06)
    assert float(rects["kv_cache"].get("x")) == pytest.approx(breakdown.PLOT_LEFT + weights_gib * width_per_gib, abs=0.06)
    line = root.find(".//svg:g[@class='atlas-capacity']/svg:line", NS)
    assert float(line.get("x1")) == pytest.approx(breakdown.PLOT_LEFT + 80 * width_per_gib, abs=0.05)
    total = root.find(".//svg:g[@class='atlas-bar']", NS)
    assert float(total.get("data-total")) == pytest.approx((42.5 + 2.7 + 1.2) * 1e9 / 2**30, rel=1e-5)


def test_breakdown_units_in_keys_are_respected():
    same = [
        {"label": "a", "parts": {"weights_gib": 1.0}},
        {"label": "b", "parts": {"weights_bytes": 2**30}},
        {"label": "c", "parts": {"weights_gb": 2**30 / 1e9}},
    ]
    root = parse(breakdown.memory_breakdown_svg(same, "en"))
    totals = [float(g.get("data-total")) for g in root.iterfind(".//svg:g[@class='atlas-bar']", NS)]
    assert totals == pytest.approx([1.0, 1.0, 1.0])


@pytest.mark.parametrize("lang, words", [("en", ["Weights", "KV cache", "Memory (GiB)", "Total (GiB)"]),
                                         ("de", ["Gewichte", "KV-Cache", "Speicher (GiB)", "Summe (GiB)"])])
def test_breakdown_labels_and_table_follow_the_language(lang, words):
    html = breakdown.memory_breakdown_figure([LLAMA_70B_Q4], lang)
    for word in words:
        assert word in html
    sep = "," if lang == "de" else "."
    assert f"<td>39{sep}6</td>" in html  # weights 42.5 GB = 39.6 GiB


def test_breakdown_refuses_a_part_without_unit():
    with pytest.raises(ChartError, match="Unbekannter Speicheranteil „weights“"):
        breakdown.memory_breakdown_svg([{"label": "x", "parts": {"weights": 1}}], "de")
    with pytest.raises(ChartError, match="must not be negative"):
        breakdown.memory_breakdown_svg([{"label": "x", "parts": {"weights_gb": -1}}], "en")


# --- capacity / bandwidth scatter ---------------------------------------------------------

H100_POINT = {"id": "h100-sxm", "label": "H100 SXM", "kind": "gpu", "capacity_gib": 80, "bandwidth_gb_s": 3350}
A100_POINT = {"id": "a100-sxm-80gb", "label": "A100 SXM 80GB", "kind": "gpu", "capacity_gib": 80, "bandwidth_gb_s": 2039}
SRAM_POINT = {"id": "sram-chip", "label": "SRAM chip", "kind": "asic", "capacity_gib": 0.22, "bandwidth_gb_s": 80_000}


def test_scatter_point_sits_at_capacity_and_bandwidth():
    root = parse(scatter.capacity_bandwidth_svg([H100_POINT, A100_POINT], "en"))
    assert root.get("data-chart") == "capacity-bandwidth"
    xs, ys = scatter.scales([H100_POINT, A100_POINT])
    assert (xs.lo, xs.hi, ys.lo, ys.hi) == (10, 1000, 1000, 10_000)  # decades around 80 GiB and 2,039–3,350 GB/s
    circle = root.find(".//svg:g[@data-device='h100-sxm']/svg:circle", NS)
    assert float(circle.get("cx")) == pytest.approx(log_px(80, 10, 1000, scatter.PLOT_LEFT, scatter.PLOT_RIGHT), abs=0.05)
    assert float(circle.get("cy")) == pytest.approx(log_px(3350, 1000, 10_000, scatter.PLOT_BOTTOM, scatter.PLOT_TOP),
                                                    abs=0.05)


def test_scatter_kinds_have_their_own_class_and_shape_and_thresholds_their_line():
    thresholds = [{"label": "70B at 4-bit", "capacity_gib": 35}, {"label": "fast decode", "bandwidth_gb_s": 1000}]
    root = parse(scatter.capacity_bandwidth_svg([H100_POINT, SRAM_POINT], "de", thresholds=thresholds))
    gpu = root.find(".//svg:g[@data-device='h100-sxm']", NS)
    asic = root.find(".//svg:g[@data-device='sram-chip']", NS)
    assert "atlas-kind-gpu" in gpu.get("class") and gpu.find("svg:circle", NS) is not None
    assert "atlas-kind-asic" in asic.get("class") and asic.find("svg:path", NS) is not None
    xs, ys = scatter.scales([H100_POINT, SRAM_POINT], thresholds)
    vertical = root.find(".//svg:g[@data-capacity-gib='35']/svg:line", NS)
    assert float(vertical.get("x1")) == pytest.approx(log_px(35, xs.lo, xs.hi, scatter.PLOT_LEFT, scatter.PLOT_RIGHT),
                                                      abs=0.05)
    horizontal = root.find(".//svg:g[@data-bandwidth-gb-s='1000']/svg:line", NS)
    assert float(horizontal.get("y1")) == pytest.approx(ys(1000), abs=0.05)
    legend = " ".join(el.text for el in root.iterfind(".//svg:g[@class='atlas-legend']/svg:text", NS))
    assert legend == "GPU ASIC"
    assert "Speicherkapazität (GiB, logarithmisch)" in ET.tostring(root, encoding="unicode")


def test_scatter_labels_do_not_overlap_in_a_crowd():
    crowd = [{"id": f"d{i}", "label": f"Device number {i}", "kind": "gpu", "capacity_gib": 80 + i,
              "bandwidth_gb_s": 3000 + 10 * i} for i in range(6)]
    points = [(scatter.PLOT_LEFT + 300 + i, 200 - i, d["label"]) for i, d in enumerate(crowd)]
    placed = scatter._place_labels(points)
    boxes = []
    assert all(placed)  # six labels fit around six nearby points
    for (x, y, anchor, _), (_, _, label) in zip(placed, points, strict=True):
        width = len(label) * 0.6 * scatter.LABEL_SIZE
        left = x if anchor == "start" else x - width
        boxes.append((left, y - 11.5, left + width, y - 0.5))
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or a[0] >= b[2] or a[3] <= b[1] or a[1] >= b[3], (a, b)


# --- generations ---------------------------------------------------------------------------

GEN = [
    {"id": "a100-sxm-80gb", "label": "A100", "vendor": "NVIDIA", "launch_year": 2020, "peak_tflops": 312,
     "bandwidth_gb_s": 2039},
    {"id": "h100-sxm", "label": "H100", "vendor": "NVIDIA", "launch_year": 2022, "peak_tflops": 989.4,
     "bandwidth_gb_s": 3350},
    {"id": "v100", "label": "V100", "vendor": "NVIDIA", "launch_year": 2017, "peak_tflops": 125,
     "bandwidth_gb_s": 900, "precision": "fp16"},
]


def test_generations_points_by_year_and_value():
    root = parse(generations.generations_svg(GEN, "en"))
    xs, compute, bandwidth = generations.scales(GEN)
    assert (xs.lo, xs.hi) == (2016.5, 2022.5)
    width_per_year = (generations.PLOT_RIGHT - generations.PLOT_LEFT) / 6
    top = root.find(".//svg:g[@data-panel='peak_tflops']//svg:circle[@data-device='h100-sxm']", NS)
    assert float(top.get("cx")) == pytest.approx(generations.PLOT_LEFT + 5.5 * width_per_year, abs=0.05)
    assert (compute.lo, compute.hi) == (100, 10_000)
    assert float(top.get("cy")) == pytest.approx(log_px(989.4, 100, 10_000, *generations.TOP_PANEL[::-1]), abs=0.05)
    low = root.find(".//svg:g[@data-panel='bandwidth_gb_s']//svg:circle[@data-device='v100']", NS)
    assert float(low.get("cy")) == pytest.approx(bandwidth(900), abs=0.05)


def test_generations_say_how_much_compute_outgrew_bandwidth():
    de = generations.generations_figure(GEN, "de")
    # 2017 → 2022: 989.4 / 125 = 7.9-fold peak, 3350 / 900 = 3.7-fold bandwidth
    assert "Von 2017 bis 2022 wuchs die beste Spitzenleistung im Diagramm auf das 7,9-Fache" in de
    assert "die beste Speicherbandbreite auf das 3,7-Fache" in de
    assert '<tr data-chart-device="v100"><th scope="row">V100</th><td>NVIDIA</td><td>2017</td><td>FP16</td>' in de
    en = generations.generations_figure(GEN, "en")
    assert "grew 7.9-fold" in en and "Launch year" in en


# --- performance per watt and per dollar ---------------------------------------------------

PRICED = [
    {"id": "h100-sxm", "label": "H100 SXM", "peak_tflops": 989.4, "tdp_w": 700, "price_usd": 25_000,
     "price_usd_high": 40_000, "price_as_of": "2024-01", "price_kind": "street-range"},
    {"id": "a100-sxm-80gb", "label": "A100 SXM 80GB", "peak_tflops": 312, "tdp_w": 400, "price_usd": 10_000,
     "price_as_of": "2023-06", "price_kind": "list"},
]


def test_per_watt_bars_are_peak_over_tdp_best_first():
    root = parse(efficiency.efficiency_svg(PRICED, "en", metric="power"))
    assert root.get("data-chart") == "efficiency-power"
    bars = root.findall(".//svg:g[@data-device]", NS)
    assert [b.get("data-device") for b in bars] == ["h100-sxm", "a100-sxm-80gb"]  # 1,413 before 780 GFLOP/s/W
    assert float(bars[0].get("data-value")) == pytest.approx(1000 * 989.4 / 700, rel=1e-5)
    scale = efficiency.scale_for(PRICED, "power")
    assert (scale.lo, scale.hi) == (0, 1500)
    width = float(bars[0].find("svg:rect", NS).get("width"))
    assert width == pytest.approx(1000 * 989.4 / 700 / 1500 * (efficiency.PLOT_RIGHT - efficiency.PLOT_LEFT), abs=0.05)


def test_per_dollar_shows_the_range_the_date_and_the_caveat():
    html = efficiency.efficiency_figure(PRICED, "de", metric="price")
    # 989.4 TFLOP/s at 40,000 and 25,000 US$: 24.7 to 39.6 TFLOP/s per 1,000 US$; A100 31.2
    assert "<td>25.000–40.000</td><td>berichteter Marktpreis</td><td>Januar 2024</td><td>24,7–39,6</td>" in html
    assert '<p class="atlas-chart-note">Spitzenleistung laut Hersteller geteilt durch einen datierten Preis' in html
    root = parse(html[html.index("<svg"): html.index("</svg>") + 6])
    assert [b.get("data-device") for b in root.findall(".//svg:g[@data-device]", NS)] == ["a100-sxm-80gb", "h100-sxm"]
    assert root.find(".//svg:g[@data-device='h100-sxm']/svg:line", NS) is not None  # the range whisker


def test_unknown_metric_is_refused():
    with pytest.raises(ChartError, match="Unknown metric “speed”"):
        efficiency.efficiency_svg(PRICED, "en", metric="speed")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_chart_is_well_formed_with_title_and_desc(lang):
    svgs = [
        roofline.roofline_svg([H100, A100], lang, markers=[DECODE]),
        breakdown.memory_breakdown_svg([LLAMA_70B_Q4], lang, capacities=[{"label": "H100", "capacity_gib": 80}]),
        scatter.capacity_bandwidth_svg([H100_POINT, SRAM_POINT], lang),
        generations.generations_svg(GEN, lang),
        efficiency.efficiency_svg(PRICED, lang, metric="power"),
        efficiency.efficiency_svg(PRICED, lang, metric="price"),
    ]
    for text in svgs:
        root = parse(text)
        assert root.get("role") == "img" and root.get("data-chart")
        title, desc = root.find("svg:title", NS), root.find("svg:desc", NS)
        assert title.text.strip() and desc.text.strip()
        assert not re.search(r"\bnan\b|\binf\b|Infinity", text, re.IGNORECASE)
        assert "#000" not in text and 'fill="black"' not in text  # colours come from currentColor and CSS


def test_vendor_line_joins_only_new_records():
    devices = GEN + [{"id": "l4", "label": "L4", "vendor": "NVIDIA", "launch_year": 2023, "peak_tflops": 121,
                      "bandwidth_gb_s": 300}]
    # The 2023 L4 sets no record after the 2022 H100, so the line skips it (no dip).
    assert generations.frontier(devices, "peak_tflops") == [(2017, 125), (2020, 312), (2022, 989.4)]
    root = parse(generations.generations_svg(devices, "en"))
    line = root.find(".//svg:g[@data-panel='peak_tflops']//svg:polyline", NS)
    assert len(line.get("points").split()) == 3
    assert root.find(".//svg:g[@data-panel='peak_tflops']//svg:circle[@data-device='l4']", NS) is not None


def test_speed_result_without_intensity_draws_the_roofs_alone():
    from atlas.core.charts import estimates

    result = {"workload": "kernel", "precision": "bf16", "arithmetic_intensity": None, "batch": 1,
              "device": {"id": "h100-sxm", "name": "H100 SXM", "precision": "bf16", "unit": "matrix",
                         "peak_tflops": 989.4, "bandwidth_gb_s": 3350},
              "baseline": None}
    args = estimates.speed_roofline(result, "en")
    assert args["markers"] == [] and [d["id"] for d in args["devices"]] == ["h100-sxm"]
    root = parse(roofline.roofline_svg(lang="en", **args))
    assert root.find(".//svg:g[@class='atlas-marker']", NS) is None

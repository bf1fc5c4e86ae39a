"""The edge/NPU page (docs/hardware/edge*.md) and the CPU-only inference page (docs/guide/cpu-inference*.md): both
languages ask the data set and the estimators the same questions, cite their sources, render their tables from the
data, link the calculator with inputs it accepts, and the German text follows the typography rules."""

from __future__ import annotations

import html as htmllib
import re

import pytest
from german_typography import check_text, html_prose
from page_support import assert_accepted, assert_twin_sources, href_params, sources_section
from page_support import html_link as link
from test_serving_page import calculator_calls, macro_calls

from atlas.core import l10n
from atlas.core.calculators.api import handle
from atlas.core.calculators.catalog import Catalog
from atlas.core.calculators.fields import field_number
from atlas.data import tables
from atlas.data.export import export_dataset
from conftest import REPO_ROOT
from macros import edge_cpu

PAGES = {"edge": "hardware/edge", "cpu-inference": "guide/cpu-inference"}
SOURCE = {(page, lang): REPO_ROOT / "docs" / (f"{path}.md" if lang == "en" else f"{path}.de.md")
          for page, path in PAGES.items() for lang in l10n.LANGUAGES}
SECTIONS = {
    "edge": ["tops", "bandwidth", "jetson", "apple", "laptop-npus", "table", "sources"],
    "cpu-inference": ["channels", "table", "prefill", "energy", "when", "sources"],
}
REQUIRED_SOURCES = {
    "edge": (
        "https://www.nvidia.com/en-us/autonomous-machines/embedded-systems/jetson-thor/",
        "https://www.apple.com/newsroom/2024/05/apple-introduces-m4-chip/",
        "https://docs.openvino.ai/2024/learn-openvino/llm_inference_guide/genai-guide-npu.html",
        "https://onnxruntime.ai/docs/execution-providers/QNN-ExecutionProvider.html",
        "https://ryzenai.docs.amd.com/en/1.5/hybrid_oga.html",
        # Hailo: what runs on the Hailo-8/8L (Dataflow Compiler) and the Hailo-10H (GenAI model zoo).
        "https://github.com/hailo-ai/hailo_model_zoo/blob/master/README.rst",
        "https://github.com/hailo-ai/hailo_model_zoo_genai/blob/master/docs/MODELS.rst",
        "https://www.raspberrypi.com/documentation/accessories/ai-hat-plus.html",
    ),
    "cpu-inference": (
        "https://www.amd.com/en/products/processors/desktops/ryzen/9000-series/amd-ryzen-9-9950x.html",
        "https://www.intel.com/content/www/us/en/products/sku/240777/intel-xeon-6980p-processor-504m-cache-2-00-ghz/specifications.html",
    ),
}


@pytest.fixture(scope="module")
def catalog(dataset):
    return Catalog.from_dict(export_dataset(dataset))


def text(page: str, lang: str) -> str:
    return SOURCE[(page, lang)].read_text(encoding="utf-8")


def speed(catalog, params: dict, lang: str = "en") -> dict:
    """The calculators' own answer (the entry point the page and the command line call)."""
    answer = handle({"command": "speed", "params": {k: str(v) for k, v in params.items()}, "lang": lang}, catalog)
    assert answer["ok"], answer
    return answer["result"]


def cells_text(row_html: str) -> str:
    return htmllib.unescape(re.sub(r"<[^>]+>", " ", row_html))


# ---------------------------------------------------------------------------
# The Markdown sources
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_both_languages_exist_with_the_same_sections_and_questions(page):
    assert_twin_sources(text(page, "en"), text(page, "de"), SECTIONS[page])


def test_pages_are_in_the_nav_with_german_titles():
    config = (REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = config[config.index("\nnav:"):]
    hardware = nav[nav.index("  - Hardware:"):nav.index("  - Choosing:")]
    assert "Edge devices and NPUs: hardware/edge.md" in hardware
    assert "CPU-only inference: guide/cpu-inference.md" in nav[nav.index("  - Choosing:"):]
    assert "Edge devices and NPUs: Edge-Geräte und NPUs" in config
    assert "CPU-only inference: Inferenz nur auf der CPU" in config


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("page", PAGES)
def test_pages_cite_their_sources(page, lang):
    sources = sources_section(text(page, lang))
    for url in REQUIRED_SOURCES[page]:
        assert f"({url})" in sources, url


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("page", PAGES)
def test_every_calculator_link_in_the_source_is_accepted(catalog, page, lang):
    links = calculator_calls(text(page, lang))
    assert links
    for command, params in links:
        assert_accepted(command, params, catalog, lang)


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("page", PAGES)
def test_prose_estimates_are_the_calculators_answers(catalog, page, lang):
    """Every tokens_per_s and joules_per_token call on the page asks the calculator something it answers, and the
    energy macro shows the calculator's own joules per token."""
    for name, pos, kw in macro_calls(text(page, lang)):
        if name not in ("tokens_per_s", "joules_per_token"):
            continue
        params = {"workload": "decode", **kw, "device": pos[0]}
        result = speed(catalog, params, lang)
        assert result["fits"], params
        if name == "joules_per_token":
            joules = result["device"]["energy"]["joules_per_token"]
            shown = edge_cpu.joules_text(catalog, pos[0], kw, lang)
            assert shown == f"{l10n.format_significant(joules, lang, 2)}\u00a0J"


CHANNELS = {"en": re.compile(r"(\d+)\u00a0channels × 8\u00a0bytes × ([\d,]+)\u00a0MT/s = \{\{ spec\(\"([\w.-]+)\", \"bandwidth\"\) \}\}"),
            "de": re.compile(r"(\d+)\u00a0Kanäle × 8\u00a0Byte × ([\d.]+)\u00a0MT/s = \{\{ spec\(\"([\w.-]+)\", \"bandwidth\"\) \}\}")}


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_channel_arithmetic_gives_the_data_sets_bandwidth(dataset, lang):
    """The hand-written 'channels × 8 bytes × MT/s' lines multiply out to the bandwidth the data set derives, from the
    channels and transfer rate its derivation (from the vendor's product page) names."""
    found = CHANNELS[lang].findall(text("cpu-inference", lang))
    assert len(found) == 5
    for channels, rate, device_id in found:
        mts = int(rate.replace(",", "").replace(".", ""))
        memory = dataset.device(device_id)["memory"]
        assert int(channels) * 8 * mts / 1000 == pytest.approx(memory["bandwidth_gb_s"])
        assert f"{channels} channels" in memory["method"] and f"{mts:,} MT/s" in memory["method"], device_id


# ---------------------------------------------------------------------------
# The edge table
# ---------------------------------------------------------------------------


def test_edge_ids_are_the_npus_and_edge_devices(dataset):
    ids = edge_cpu.edge_ids(dataset.devices)
    expected = {i for i, d in dataset.devices.items()
                if d["kind"] == "npu" or d["segment"] == "edge"
                or any(c.get("component") == "npu" for c in d.get("compute", []))}
    assert set(ids) == expected and len(ids) == len(expected)
    for device_id in ("jetson-orin-nano-super", "jetson-agx-orin-64gb", "jetson-agx-thor", "snapdragon-x-elite-npu",
                      "intel-core-ultra-9-288v-npu", "apple-m4", "apple-m4-max", "ryzen-ai-max-395",
                      "core-ultra-9-285k"):
        assert device_id in ids
    for device_id in ("h100-sxm", "rtx-4090", "epyc-9755"):
        assert device_id not in ids


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_edge_table_shows_every_compute_figure_of_the_data_set(dataset, lang):
    table = edge_cpu.edge_table(dataset.devices, lang)
    body = re.findall(r'<tr data-device="([^"]+)">(.*?)</tr>', table, re.S)
    assert [d for d, _ in body] == edge_cpu.edge_ids(dataset.devices)
    for device_id, row in body:
        device = dataset.device(device_id)
        items = re.findall(r'<li data-component="(\w+)" data-field="([\w.]+)">(.*?)</li>', row, re.S)
        assert len(items) == len(device.get("compute", []))
        for entry in device.get("compute", []):
            key = f'{entry["precision"]}.{entry["unit"]}.{entry["sparsity"]}'
            component = entry.get("component", "main")
            shown = [cells_text(i) for c, f, i in items if (c, f) == (component, key)]
            assert len(shown) == 1, (device_id, key)
            assert tables.format_figure(entry["tflops"], lang) + "\u00a0" in shown[0]
            engine = "npu" if component == "npu" else device["kind"]
            assert shown[0].startswith(l10n.t(lang, f"kind.{engine}") + ":")
            if entry.get("origin") in ("derived", "estimate"):
                assert l10n.t(lang, f"edge.origin.{entry['origin']}") in shown[0]
        row_text = cells_text(row)
        for figure in (device["memory"]["bandwidth_gb_s"], device["memory"]["capacity_gib"]):
            # a device without memory of its own (memory.type "none", Hailo-8) shows the dash, never "None"
            assert (tables.format_figure(figure, lang) if figure is not None else "—") in row_text
        assert "None" not in row_text
    # a Jetson row shows the sparse headline and its dense half side by side
    orin = dict(re.findall(r'data-field="([\w.]+)">(.*?)</li>', dict(body)["jetson-orin-nano-super"], re.S))
    device = dataset.device("jetson-orin-nano-super")
    sparse, dense = (field_number(device, f) for f in ("int8.matrix.sparse", "int8.matrix.dense"))
    assert dense == sparse / 2
    assert tables.format_figure(sparse, lang) in cells_text(orin["int8.matrix.sparse"])
    assert tables.format_figure(dense, lang) in cells_text(orin["int8.matrix.dense"])


# ---------------------------------------------------------------------------
# The CPU table
# ---------------------------------------------------------------------------


def test_cpu_ids_are_the_data_sets_cpus_fastest_memory_first(dataset):
    ids = edge_cpu.cpu_ids(dataset.devices)
    assert set(ids) == {i for i, d in dataset.devices.items() if d["kind"] == "cpu"}
    bandwidths = [dataset.device(i)["memory"]["bandwidth_gb_s"] for i in ids]
    assert bandwidths == sorted(bandwidths, reverse=True)
    for device_id in ("ryzen-9-9950x", "epyc-9755", "epyc-9575f", "xeon-6980p", "threadripper-pro-7995wx",
                      "core-ultra-9-285k"):
        assert device_id in ids


def test_cpu_cells_are_the_calculators_answers(dataset, catalog):
    cells = {i: edge_cpu.cpu_cells(catalog, i, "en") for i in edge_cpu.cpu_ids(dataset.devices)}
    for device_id, c in cells.items():
        for model, weights in edge_cpu.CPU_MODELS:
            result = speed(catalog, edge_cpu.cpu_params(device_id, model, weights, "decode"))
            assert c["decode"][model] == (result["device"]["tokens_per_s"] if result["fits"] else None)
        model, weights = edge_cpu.CPU_MODELS[0]
        decode = speed(catalog, edge_cpu.cpu_params(device_id, model, weights, "decode"))
        prefill = speed(catalog, edge_cpu.cpu_params(device_id, model, weights, "prefill"))
        assert c["prefill"] == prefill["device"]["tokens_per_s"]
        assert c["joules_per_token"] == decode["device"]["energy"]["joules_per_token"]
    # what the page says about them: same memory, same decode; more cores, faster prefill; the MoE decodes faster
    # than the dense 8B; the 70B does not fit in the 9800X3D's 32 GiB
    assert cells["epyc-9755"]["decode"] == cells["epyc-9575f"]["decode"]
    assert cells["epyc-9755"]["prefill"] > cells["epyc-9575f"]["prefill"]
    for c in cells.values():
        assert c["decode"]["qwen3-30b-a3b"] > c["decode"]["llama-3.1-8b"]
    assert cells["ryzen-7-9800x3d"]["decode"]["llama-3.1-70b"] is None
    assert cells["ryzen-9-9950x"]["decode"]["llama-3.1-70b"] is not None
    assert cells["xeon-6980p"]["decode"]["llama-3.1-8b"] > 5 * cells["ryzen-9-9950x"]["decode"]["llama-3.1-8b"]
    assert cells["xeon-6980p"]["joules_per_token"] < cells["ryzen-9-9950x"]["joules_per_token"]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_cpu_table_shows_the_cells_and_links_accepted_inputs(dataset, catalog, lang):
    table = edge_cpu.cpu_table(catalog, dataset.devices, lang, link)
    body = re.findall(r'<tr data-device="([^"]+)">(.*?)</tr>', table, re.S)
    assert [d for d, _ in body] == edge_cpu.cpu_ids(dataset.devices)
    for device_id, row in body:
        c = edge_cpu.cpu_cells(catalog, device_id, lang)
        shown = cells_text(row)
        for tps in c["decode"].values():
            expected = l10n.t(lang, "edge.cpu.no_fit") if tps is None else l10n.format_significant(tps, lang, 3)
            assert expected in shown
        assert l10n.format_significant(c["prefill"], lang, 3) in shown
        assert l10n.format_significant(c["joules_per_token"], lang, 2) in shown
    found = [p for p in map(href_params, re.findall(r'href="([^"]+)"', table)) if p]
    assert len(found) == len(body) * (len(edge_cpu.CPU_MODELS) + 1)
    for command, params in found:
        assert_accepted(command, params, catalog, lang)


def test_german_tables_follow_the_typography(dataset, catalog):
    tables_html = edge_cpu.edge_table(dataset.devices, "de") + edge_cpu.cpu_table(catalog, dataset.devices, "de", link)
    prose = html_prose(f"<article>{tables_html}</article>")
    assert not check_text(prose)
    assert "passt nicht" in prose


# ---------------------------------------------------------------------------
# The built pages
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("page", PAGES)
def test_built_pages_link_only_accepted_calculator_inputs(built_site, catalog, page, lang):
    path = (built_site / "de" if lang == "de" else built_site) / PAGES[page] / "index.html"
    html = path.read_text(encoding="utf-8")
    html = html[html.find("<article"):html.find("</article>")]
    found = [p for p in map(href_params, re.findall(r'href="([^"]+)"', html)) if p]
    assert len(found) >= len(calculator_calls(text(page, lang)))
    for command, params in found:
        assert_accepted(command, params, catalog, lang)
    assert "style=" not in html  # the site's CSP blocks inline styles
    if lang == "de":
        assert not check_text(html_prose(html))

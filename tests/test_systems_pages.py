"""The systems pages (docs/hardware/interconnects*.md, docs/guide/reading-benchmarks*.md): both languages have the
same sections and ask the data set and the estimators the same questions, cite their sources, explain scale-up and
scale-out, link the calculators with inputs the calculators accept, and the German text follows the typography
rules. The link table and the fitted latencies come from the data set and the speed model."""

from __future__ import annotations

import math
import re

import pytest
from german_typography import check_banned, check_source_units, check_text, markdown_prose, markdown_words
from page_support import assert_twin_sources
from test_serving_page import calculator_calls, macro_calls

from atlas.core import l10n
from atlas.core.calculators import fitted
from atlas.core.calculators.api import handle
from atlas.core.calculators.catalog import Catalog
from atlas.core.calculators.inputs import BY_NAME, parse
from atlas.data import tables
from atlas.data.export import export_dataset
from conftest import REPO_ROOT
from macros import estimate_macros as em
from macros import systems

PAGES = {"interconnects": REPO_ROOT / "docs" / "hardware", "reading-benchmarks": REPO_ROOT / "docs" / "guide"}
SECTIONS = {
    "interconnects": ["scale-up-scale-out", "links", "pcie", "nvlink", "amd-google", "networks", "parallelism",
                      "calculator", "power", "sources"],
    "reading-benchmarks": ["mlperf", "divisions", "scenarios", "per-accelerator", "training", "vendor-claims",
                           "llama-bench", "serving", "this-site", "sources"],
}
REQUIRED_SOURCES = {
    "interconnects": (
        "https://cloud.google.com/tpu/docs/v5p",
        "https://www.nvidia.com/en-us/data-center/nvlink/",
        "https://www.nvidia.com/en-us/data-center/gb200-nvl72/",
        "https://www.nvidia.com/en-us/data-center/gb300-nvl72/",
        "https://ultraethernet.org/",
    ),
    "reading-benchmarks": (
        "https://mlcommons.org/benchmarks/inference-datacenter/",
        "https://mlcommons.org/benchmarks/training/",
        "https://github.com/mlcommons/inference_policies/blob/master/inference_rules.adoc",
        "https://github.com/ggml-org/llama.cpp/blob/master/tools/llama-bench/README.md",
        "https://docs.vllm.ai/en/latest/benchmarking/cli/",
    ),
}
NAV = {"interconnects": ("Hardware", "Interconnects and scaling: hardware/interconnects.md",
                         "Interconnects and scaling: Interconnects und Skalierung"),
       "reading-benchmarks": ("Choosing", "Reading benchmarks: guide/reading-benchmarks.md",
                              "Reading benchmarks: Benchmarks richtig lesen")}
# The devices whose link the interconnects page tabulates (one of each generation and vendor).
LINK_IDS = ("rtx-4090", "rtx-5090", "a100-pcie-80gb", "tesla-p100-sxm2", "v100-sxm2-32gb", "a100-sxm-80gb",
            "h100-sxm", "b200", "gb300", "rubin", "mi250x", "mi300x", "mi355x", "tpu-v5e", "tpu-v6e", "tpu-v5p",
            "tpu-v7", "gaudi-3", "trainium2", "trainium3")
# The page's comparison: the same chip on NVLink and on PCIe, eight of them, both splits.
SPLIT_CASE = {"model": "llama-3.1-70b", "weights": "bf16", "workload": "decode", "engine": "vllm", "num_devices": 8,
              "context": 2048}


@pytest.fixture(scope="module")
def catalog(dataset):
    return Catalog.from_dict(export_dataset(dataset))


def path(page: str, lang: str):
    return PAGES[page] / (f"{page}.md" if lang == "en" else f"{page}.de.md")


def text(page: str, lang: str) -> str:
    return path(page, lang).read_text(encoding="utf-8")


def pages_present():
    return [p for p in PAGES if path(p, "en").is_file()]


PRESENT = pages_present()


@pytest.mark.parametrize("page", PRESENT)
def test_both_languages_have_the_same_sections_and_questions(page):
    assert_twin_sources(text(page, "en"), text(page, "de"), SECTIONS[page])


@pytest.mark.parametrize("page", PRESENT)
def test_pages_are_in_the_nav_with_german_titles(page):
    config = (REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    section, entry, translation = NAV[page]
    start = config.index(f"  - {section}:")
    block = config[start:config.index("\n  - ", start + 1)]
    assert entry in block
    assert translation in config


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("page", PRESENT)
def test_pages_cite_their_sources(page, lang):
    markdown = text(page, lang)
    sources = markdown[markdown.rindex("\n## "):]
    for url in REQUIRED_SOURCES[page]:
        assert f"({url})" in sources, url
    # every cited address in the prose is listed under the sources too
    prose = markdown[:markdown.rindex("\n## ")]
    for url in re.findall(r"\]\((https?://[^)\s]+)\)", prose):
        assert f"({url})" in sources, url


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("page", PRESENT)
def test_every_calculator_link_is_accepted_by_the_calculators(catalog, page, lang):
    links = calculator_calls(text(page, lang))
    assert len(links) >= 3
    for command, params in links:
        assert set(params) <= set(BY_NAME), params
        parse(command, params, catalog)  # raises ValidationError on a bad link
        assert handle({"command": command, "params": params, "lang": lang}, catalog)["ok"], params


@pytest.mark.parametrize("page", PRESENT)
def test_every_estimate_on_the_page_is_one_the_estimators_answer(catalog, page):
    for name, pos, kw in macro_calls(text(page, "en")):
        if name == "tokens_per_s":
            params = {k: v for k, v in kw.items() if k != "per_sequence"}
            assert em.speed_text(catalog, pos[0], params, "en", kw.get("per_sequence", False))


@pytest.mark.parametrize("page", PRESENT)
def test_german_page_follows_the_typography(page):
    source = text(page, "de")
    prose = markdown_prose(source)
    assert not check_text(prose), check_text(prose)
    assert not check_source_units(prose), check_source_units(prose)
    assert not check_banned(markdown_words(source)), check_banned(markdown_words(source))


# ---------------------------------------------------------------------------
# Interconnects
# ---------------------------------------------------------------------------

def test_scale_up_and_scale_out_are_explained_in_both_languages():
    en = " ".join(text("interconnects", "en").split())
    de = " ".join(text("interconnects", "de").split())
    assert "**Scale-up** means" in en and "**Scale-out** means" in en
    assert "**Scale-up** (Skalieren nach oben) heißt" in de and "**Scale-out** (Skalieren in die Breite) heißt" in de
    for term in ("Tensor parallelism", "Pipeline parallelism", "Data parallelism", "RoCE", "Ultra Ethernet"):
        assert term in en, term
    for term in ("Tensor-Parallelität", "Pipeline-Parallelität", "Datenparallelität", "RoCE", "Ultra Ethernet"):
        assert term in de, term


def test_link_table_lists_the_data_sets_links(dataset):
    calls = [pos for name, pos, _ in macro_calls(text("interconnects", "en")) if name == "link_table_html"]
    assert calls == [(list(LINK_IDS),)]
    rows = systems.link_rows(dataset.devices, LINK_IDS)
    assert [r["device"]["id"] for r in rows] == list(LINK_IDS)
    for row in rows:
        assert row["gb_s"] == row["device"]["interconnect"]["bandwidth_gb_s"]
    classes = {r["class"] for r in rows}
    assert {"pcie", "nvlink", "xgmi"} <= classes
    # NVLink per GPU grows with each generation the page lists
    nvlink = [r["gb_s"] for r in rows if r["device"]["id"] in ("tesla-p100-sxm2", "v100-sxm2-32gb",
                                                                "a100-sxm-80gb", "h100-sxm", "b200", "rubin")]
    assert nvlink == sorted(nvlink) and len(set(nvlink)) == len(nvlink)
    for lang in l10n.LANGUAGES:
        html = systems.link_table(dataset.devices, LINK_IDS, lang)
        assert html.count("<tr data-device=") == len(LINK_IDS)
        assert l10n.t(lang, "systems.col.link") in html
    with pytest.raises(ValueError):
        systems.link_rows({"x": {"id": "x"}}, ["x"])


def test_fitted_latencies_are_the_speed_models():
    p = fitted.PARAMS
    assert systems.fitted_seconds("allreduce", "nvlink") == pytest.approx(
        math.exp(p["allreduce"]["global"] + p["allreduce"]["link"].get("nvlink", 0.0)))  # a link without its own: global
    assert systems.fitted_seconds("allreduce", "pcie") == pytest.approx(
        math.exp(p["allreduce"]["global"] + p["allreduce"]["link"]["pcie"]))
    # what the page says: an all-reduce over PCIe costs several times one over NVLink or Infinity Fabric
    assert systems.fitted_seconds("allreduce", "pcie") > 3 * systems.fitted_seconds("allreduce", "nvlink")
    assert systems.fitted_seconds("allreduce", "pcie") > 3 * systems.fitted_seconds("allreduce", "xgmi")
    assert systems.fitted_latency_text("allreduce", "nvlink", "de").endswith("\u00a0µs")


def split_speed(catalog, device: str, split: str) -> float:
    answer = handle({"command": "speed", "params": {**SPLIT_CASE, "device": device, "split": split}, "lang": "en"},
                    catalog)
    assert answer["ok"], answer
    return answer["result"]["device"]["tokens_per_s"]


def test_split_table_says_what_the_speed_model_computes(catalog):
    """Tensor parallelism gains far more on NVLink than on PCIe; a layer split hardly depends on the link."""
    sxm = {s: split_speed(catalog, "a100-sxm-80gb", s) for s in ("tensor", "layer")}
    pcie = {s: split_speed(catalog, "a100-pcie-80gb", s) for s in ("tensor", "layer")}
    assert sxm["tensor"] > 1.5 * pcie["tensor"]
    assert sxm["tensor"] / sxm["layer"] > 1.5 * (pcie["tensor"] / pcie["layer"])
    assert sxm["layer"] == pytest.approx(pcie["layer"], rel=0.15)
    for name, _pos, kw in macro_calls(text("interconnects", "en")):
        if name == "tokens_per_s":
            assert {k: v for k, v in kw.items() if k not in ("split",)} == SPLIT_CASE
    links = calculator_calls(text("interconnects", "en"))
    assert any(p.get("split") == "tensor" and p.get("num_devices") == "8" for _, p in links)
    assert any(p.get("split") == "layer" for _, p in links)


def test_interconnect_page_links_the_calculator_and_the_comparison():
    """The page links into the speed calculator and the comparison page in both languages."""
    for lang in l10n.LANGUAGES:
        markdown = text("interconnects", lang)
        for target in ("../calculators/speed.md", "../compare.md"):
            assert f"]({target}" in markdown, target


# ---------------------------------------------------------------------------
# Reading benchmarks
# ---------------------------------------------------------------------------

MLPERF_SOURCE = "rocm-blog-mlperf-inference-4-1-mi300x"


def test_benchmark_page_explains_the_terms_in_both_languages():
    en = " ".join(text("reading-benchmarks", "en").split())
    de = " ".join(text("reading-benchmarks", "de").split())
    for term in ("**closed**", "**open**", "**Offline**", "**Server**", "**Single stream**", "**pp512**",
                 "**tg128**", "**Time to first token (TTFT)**", "**Inter-token latency (ITL)**",
                 "**Output throughput**", "**per system**", "Sparsity doubling", "FP4 against FP8",
                 "Rack against chip", "With speculative decoding"):
        assert term in en, term
    for term in ("**Closed Division**", "**Open Division**", "**Offline**", "**Server**", "**Single Stream**",
                 "**pp512**", "**tg128**", "**Zeit bis zum ersten Token (TTFT, Time to First Token)**",
                 "**Abstand zwischen Tokens (ITL, Inter-Token Latency)**", "**Ausgabedurchsatz**", "**je System**",
                 "Verdopplung durch Sparsity", "FP4 gegen FP8", "Rack gegen Chip", "Mit spekulativem Decoding"):
        assert term in de, term
    for lang in l10n.LANGUAGES:
        markdown = text("reading-benchmarks", lang)
        for target in ("../calculators/accuracy.md", "../calculators/speed.md", "../hardware/interconnects.md",
                       "serving.md#speculative", "serving.md#concurrency"):
            assert f"]({target}" in markdown, (lang, target)


def test_mlperf_figures_are_the_data_sets_and_the_per_chip_figure_divides_by_eight(dataset):
    calls = [(pos, kw) for name, pos, kw in macro_calls(text("reading-benchmarks", "en"))
             if name == "measured_case_value"]
    assert [pos for pos, _ in calls] == [(MLPERF_SOURCE, 0, "decode_tokens_per_s"),
                                         (MLPERF_SOURCE, 1, "decode_tokens_per_s"),
                                         (MLPERF_SOURCE, 0, "decode_tokens_per_s", 0, 8)]
    entry = dataset.inference[MLPERF_SOURCE]
    assert entry["defaults"]["num_devices"] == 8  # the divisor the page uses is the submission's accelerator count
    offline, server = (systems.measured_nth(dataset.inference, MLPERF_SOURCE, i, "decode_tokens_per_s")
                       for i in (0, 1))
    assert "Offline" in entry["cases"][0]["note"] and "Server" in entry["cases"][1]["note"]
    assert offline > server  # what the page says: the latency bound costs throughput


def test_vendor_claim_factors_are_the_data_sets(dataset):
    devices = dataset.devices
    headline = systems.peak_ratio(devices, "b200", "fp4.matrix.sparse", "h100-sxm", "fp8.matrix.dense")
    like_for_like = systems.peak_ratio(devices, "b200", "fp8.matrix.dense", "h100-sxm", "fp8.matrix.dense")
    bandwidth = systems.peak_ratio(devices, "b200", "bandwidth", "h100-sxm", "bandwidth")
    assert headline == pytest.approx(4 * like_for_like)  # sparsity doubles it, FP4 doubles it again
    assert headline > 3 * bandwidth
    calls = [pos for name, pos, _ in macro_calls(text("reading-benchmarks", "en")) if name == "figure_ratio"]
    assert calls == [("b200", "fp4.matrix.sparse", "h100-sxm", "fp8.matrix.dense"),
                     ("b200", "fp8.matrix.dense", "h100-sxm", "fp8.matrix.dense"),
                     ("b200", "bandwidth", "h100-sxm", "bandwidth")]


def test_llama_bench_links_ask_the_calculator_for_pp512_and_tg128():
    links = calculator_calls(text("reading-benchmarks", "en"))
    assert ("speed", {"model": "qwen2.5-7b", "weights": "q4_k_m", "workload": "prefill", "device": "rtx-5090",
                      "context": "512"}) in links
    assert ("speed", {"model": "qwen2.5-7b", "weights": "q4_k_m", "workload": "decode", "device": "rtx-5090",
                      "context": "128"}) in links
    assert any("target_tokens_per_s" in p for _, p in links)
    assert any(p.get("baseline") == "h100-sxm" for _, p in links)


# ---------------------------------------------------------------------------
# The built pages
# ---------------------------------------------------------------------------

BUILT = {"interconnects": "hardware/interconnects", "reading-benchmarks": "guide/reading-benchmarks"}


def page_html(site, page: str, lang: str) -> str:
    path = (site / "de" if lang == "de" else site) / BUILT[page] / "index.html"
    html = path.read_text(encoding="utf-8")
    return html[html.find("<article"):html.find("</article>")]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("page", PRESENT)
def test_built_calculator_links_are_the_sources_and_accepted(built_site, catalog, page, lang):
    import html as htmllib
    from urllib.parse import parse_qs, urlsplit

    found = []
    for href in re.findall(r'href="([^"]+)"', page_html(built_site, page, lang)):
        parts = urlsplit(htmllib.unescape(href))
        match = re.search(r"(?:^|/)calculators/(vram|speed)/$", parts.path)
        if match and parts.query:
            found.append((match.group(1), {k: v[-1] for k, v in parse_qs(parts.query).items()}))
    assert found == calculator_calls(text(page, lang))
    for command, params in found:
        assert handle({"command": command, "params": params, "lang": lang}, catalog)["ok"], params


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_built_link_table_shows_the_data_sets_figures(built_site, dataset, lang):
    html = page_html(built_site, "interconnects", lang)
    table = html[html.index('data-atlas-table="links"'):]
    table = table[:table.index("</table>")]
    for device_id in LINK_IDS:
        gb_s = dataset.device(device_id)["interconnect"]["bandwidth_gb_s"]
        row = re.search(rf'<tr data-device="{re.escape(device_id)}">(.*?)</tr>', table, re.S).group(1)
        assert f">{tables.format_figure(gb_s, lang)}</td>" in row, device_id
    assert "style=" not in html

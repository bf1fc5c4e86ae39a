"""The buyer's pages (docs/guide/local-machines*.md, docs/guide/cost*.md): both languages ask the data set and the
estimators the same questions, cite their sources, render their tables from the data, link the calculators with
inputs the calculators accept, and the German text follows the typography rules."""

from __future__ import annotations

import html as htmllib
import re
from html import unescape

import pytest
from german_typography import check_text, html_prose
from page_support import assert_accepted, assert_twin_sources, href_params, sources_section
from page_support import html_link as link
from test_serving_page import calculator_calls, macro_calls

from atlas.core import l10n
from atlas.core.calculators import cost
from atlas.core.calculators.catalog import Catalog
from atlas.core.calculators.devices import configurations, gpu_share
from atlas.data.export import export_dataset
from conftest import REPO_ROOT
from macros import buyer

PAGES = ("local-machines", "cost")
SOURCE = {(page, lang): REPO_ROOT / "docs" / "guide" / (f"{page}.md" if lang == "en" else f"{page}.de.md")
          for page in PAGES for lang in l10n.LANGUAGES}
SECTIONS = {
    "local-machines": ["machines", "fit", "measured", "strengths", "unified-memory"],
    "cost": ["example", "break-even", "per-token", "inputs"],
}
REQUIRED_SOURCES = {
    "local-machines": (
        "https://github.com/kyuz0/amd-strix-halo-toolboxes/tree/main/benchmark/results",
        "https://github.com/ggml-org/llama.cpp/blob/master/benches/dgx-spark/dgx-spark.md",
        "https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference",
    ),
    "cost": (
        "https://ec.europa.eu/eurostat/statistics-explained/index.php?title=Electricity_price_statistics&oldid=412280",
        "https://nvidianews.nvidia.com/news/nvidia-delivers-quantum-leap-in-performance-introduces-new-era-of-neural-rendering-with-geforce-rtx-40-series",
    ),
}
COST_DEVICES = ("rtx-4090", "h100-pcie")
COST_BATCHES = (1, 8, 32)
COST_PARAMS = {"model": "llama-3.1-8b", "weights": "fp8", "engine": "vllm", "context": 2048}


@pytest.fixture(scope="module")
def catalog(dataset):
    return Catalog.from_dict(export_dataset(dataset))


def text(page: str, lang: str) -> str:
    return SOURCE[(page, lang)].read_text(encoding="utf-8")


@pytest.mark.parametrize(("page_src", "expected"), [
    ("guide/cost.md", "../../calculators/speed/?model=m"),
    ("guide/cost.de.md", "../../calculators/speed/?model=m"),  # /de/guide/cost/ to /de/calculators/speed/
    ("index.md", "calculators/speed/?model=m"),
    ("guide/index.de.md", "../calculators/speed/?model=m"),
    ("calculators/vram.md", "../speed/?model=m"),
])
def test_html_links_point_at_the_built_calculator_page(page_src, expected):
    from macros.estimate_macros import calculator_html_href

    assert calculator_html_href("speed", {"model": "m"}, page_src) == expected


# ---------------------------------------------------------------------------
# The Markdown sources
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_both_languages_exist_with_the_same_sections_and_questions(page):
    assert_twin_sources(text(page, "en"), text(page, "de"), SECTIONS[page])


def test_pages_are_in_the_nav_under_choosing_with_german_titles():
    config = (REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    choosing = config[config.index("  - Choosing:"):config.index("  - Compare:")]
    assert "Local AI machines compared: guide/local-machines.md" in choosing
    assert "What it costs: guide/cost.md" in choosing
    assert "Local AI machines compared: Lokale KI-Rechner im Vergleich" in config
    assert "What it costs: Was es kostet" in config


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


# ---------------------------------------------------------------------------
# The tables, from the functions the macros call
# ---------------------------------------------------------------------------


def test_machine_rows_are_the_data_sets(dataset, catalog):
    rows = buyer.machine_rows(dataset.devices, catalog.prices, "en")
    assert [(r["id"], r["count"]) for r in rows] == list(buyer.MACHINES)
    for row in rows:
        device = dataset.device(row["id"])
        sizes = sorted({c["capacity_gib"] for c in configurations(device)})
        assert row["sizes_gib"] == sizes
        assert row["usable_gib"] == pytest.approx(max(sizes) * gpu_share(device) * row["count"])
        assert row["bandwidth_gb_s"] == device["memory"]["bandwidth_gb_s"]
        bought = cost.purchase_price(catalog.prices.get(row["id"], []))
        assert row["price_usd"] == (bought["usd_mid"] * row["count"] if bought else None)
    by_id = {(r["id"], r["count"]): r for r in rows}
    # unified memory: the GPU's default share is below the whole memory; discrete cards use all of theirs
    assert by_id[("apple-m3-ultra", 1)]["usable_gib"] < max(by_id[("apple-m3-ultra", 1)]["sizes_gib"])
    assert by_id[("ryzen-ai-max-395", 1)]["share"] < 1
    assert by_id[("rtx-4090", 2)]["usable_gib"] == 2 * by_id[("rtx-4090", 1)]["usable_gib"]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_machine_table_shows_the_rows(dataset, catalog, lang):
    table = buyer.machine_table(dataset.devices, catalog.prices, lang)
    body = re.findall(r"<tr data-device=\"([^\"]+)\" data-count=\"(\d+)\">(.*?)</tr>", table, re.S)
    assert [(d, int(c)) for d, c, _ in body] == list(buyer.MACHINES)
    for row, (_, _, cells) in zip(buyer.machine_rows(dataset.devices, catalog.prices, lang), body, strict=True):
        shown = htmllib.unescape(re.sub(r"<[^>]+>", "", cells))
        assert l10n.format_number(row["usable_gib"], lang, 0) + "\u00a0GiB" in shown
        assert l10n.format_number(row["bandwidth_gb_s"], lang, 0) in shown
        if row["price_usd"]:
            assert l10n.format_number(row["price_usd"], lang, 0) in shown
            assert row["price"]["source_url"] in htmllib.unescape(cells)  # markdown escapes "_" as &#95;


def test_fit_cells_follow_the_estimator(catalog):
    """Every machine fits the 8B model; a single 24 GB card does not fit the 120B and 70B models, the unified-memory
    machines and the RTX PRO 6000 do; a second card adds memory, not decode speed (layer split)."""
    cells = {(d, n, m): buyer.fit_cells(catalog, d, n, m, w, "en")
             for d, n in buyer.MACHINES for m, w in buyer.REFERENCE_MODELS}
    assert all(cells[(d, n, "llama-3.1-8b")]["fits"] for d, n in buyer.MACHINES)
    for model in ("gpt-oss-120b", "llama-3.1-70b"):
        assert not cells[("rtx-4090", 1, model)]["fits"]
        for device in ("apple-m3-ultra", "dgx-spark", "rtx-pro-6000-blackwell"):
            assert cells[(device, 1, model)]["fits"], (device, model)
    assert cells[("rtx-4090", 4, "gpt-oss-120b")]["fits"]
    assert cells[("rtx-4090", 2, "llama-3.1-8b")]["decode"] <= cells[("rtx-4090", 1, "llama-3.1-8b")]["decode"]
    # prefill needs compute: the DGX Spark reads prompts faster than Strix Halo at about the same bandwidth
    for model, _ in buyer.REFERENCE_MODELS:
        assert cells[("dgx-spark", 1, model)]["prefill"] > 2 * cells[("ryzen-ai-max-395", 1, model)]["prefill"]
        assert cells[("apple-m3-ultra", 1, model)]["prefill"] < cells[("rtx-4090", 2, model)]["prefill"]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_fit_and_measured_table_links_are_accepted(dataset, catalog, lang):
    tables = (buyer.fit_table(catalog, dataset.devices, lang, link)
              + buyer.measured_table(dataset.inference, catalog, dataset.devices, lang, link))
    found = [p for p in map(href_params, re.findall(r'href="([^"]+)"', tables)) if p]
    assert len(found) >= len(buyer.MACHINES) * len(buyer.REFERENCE_MODELS) + len(buyer.MEASURED)
    for command, params in found:
        assert_accepted(command, params, catalog, lang)


def test_measured_rows_are_the_data_sets_figures(dataset, catalog):
    rows = buyer.measured_rows(dataset.inference, catalog, "en")
    assert len(rows) == len(buyer.MEASURED)
    for row in rows:
        entry = dataset.inference[row["source"]]
        assert row["decode"] is not None, row["source"]
        for workload in ("prefill", "decode"):
            if row[workload] is None:
                continue
            case = row[workload]["case"]
            raw = [c for c in entry["cases"] if c.get(f"{workload}_tokens_per_s") == row[workload]["measured"]]
            assert raw, (row["source"], workload)
            assert case["device"] == row["match"]["device"] and case["model"] == row["match"]["model"]
            params = row[workload]["params"]
            assert (params["device"], params["model"], params["weights"]) == (case["device"], case["model"],
                                                                              case["weights"])
            estimate = row[workload]["estimate"]
            if estimate is not None:  # the estimator is fitted on these: within a factor of two
                assert 0.5 < estimate / row[workload]["measured"] < 2, (row["source"], workload)


def test_unified_memory_settings_come_from_the_devices_sources(dataset):
    items = buyer.gpu_share_items(dataset.devices)
    assert {i["id"] for i in items} >= {"apple-m3-ultra", "apple-m4-max", "ryzen-ai-max-395"}
    html = buyer.gpu_share_list(dataset.devices, "en")
    shown = unescape(html)  # data strings are written Markdown-neutral, as character references
    assert "iogpu.wired_limit_mb" in shown and "ttm.pages_limit" in shown
    for item in items:
        assert item["source"]["url"] in html


def test_cost_rows_are_the_cost_models(catalog):
    rows = buyer.cost_rows(catalog, catalog.prices, COST_DEVICES, COST_BATCHES, COST_PARAMS, "en")
    for device in COST_DEVICES:
        mine = [r for r in rows if r["device"] == device]
        assert [r["batch"] for r in mine] == list(COST_BATCHES)
        assert all(r["fits"] for r in mine)
        bought = cost.purchase_price(catalog.prices[device])["usd_mid"]
        cloud = cost.cloud_median(catalog.prices[device])["usd"]
        for r in mine:
            assert r["cloud"]["cost"]["usd_per_device_hour"] == pytest.approx(cloud)
            assert r["purchase"]["cost"]["usd_per_device_hour"] == pytest.approx(
                bought / (buyer.AMORTISATION_YEARS * 8760))
            assert r["cloud"]["cost"]["usd_per_million_tokens"] == pytest.approx(
                cloud / (r["tokens_per_s"] * 3600) * 1e6)
        # more concurrent sequences: cheaper tokens
        per_million = [r["cloud"]["cost"]["usd_per_million_tokens"] for r in mine]
        assert per_million == sorted(per_million, reverse=True) and per_million[-1] < per_million[0] / 5
        # break-even below 100 %: owning round the clock is cheaper than renting round the clock
        share = buyer.break_even_share(mine[0]["purchase"]["cost"]["usd_per_device_hour"], cloud)
        assert 0 < share < 1


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_cost_table_links_carry_the_cost_inputs(catalog, dataset, lang):
    table = buyer.cost_table(catalog, catalog.prices, dataset.devices, COST_DEVICES, COST_BATCHES, COST_PARAMS,
                             lang, link)
    found = [p for p in map(href_params, re.findall(r'href="([^"]+)"', table)) if p]
    assert len(found) == 2 * len(COST_DEVICES) * len(COST_BATCHES)
    purchase = [p for _, p in found if "purchase_usd" in p]
    assert len(purchase) == len(found) // 2
    for params in purchase:
        assert float(params["purchase_usd"]) == cost.purchase_price(catalog.prices[params["device"]])["usd_mid"]
    for command, params in found:
        assert_accepted(command, params, catalog, lang)


def test_german_tables_follow_the_typography(dataset, catalog):
    tables = (buyer.machine_table(dataset.devices, catalog.prices, "de")
              + buyer.fit_table(catalog, dataset.devices, "de", link)
              + buyer.measured_table(dataset.inference, catalog, dataset.devices, "de", link)
              + buyer.cost_table(catalog, catalog.prices, dataset.devices, COST_DEVICES, COST_BATCHES, COST_PARAMS,
                                 "de", link))
    prose = html_prose(f"<article>{tables}</article>")
    assert not check_text(prose)
    assert "passt nicht" in prose


def test_every_estimate_macro_on_the_cost_page_is_answered(catalog):
    for name, pos, kw in macro_calls(text("cost", "en")):
        if name in ("usd_per_hour", "usd_per_million", "cost_link", "break_even"):
            device, *rest = pos
            bases = [rest[0]] if rest else ["purchase", "cloud"]
            for basis in bases:
                answer = buyer.cost_answer(catalog, catalog.prices, {"workload": "decode", "device": device, **kw},
                                           basis, "en")
                assert_accepted("speed", answer["params"], catalog)


# ---------------------------------------------------------------------------
# The built pages
# ---------------------------------------------------------------------------


def page_html(site, page: str, lang: str) -> str:
    path = (site / "de" if lang == "de" else site) / "guide" / page / "index.html"
    html = path.read_text(encoding="utf-8")
    return html[html.find("<article"):html.find("</article>")]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("page", PAGES)
def test_built_pages_link_only_accepted_calculator_inputs(built_site, catalog, page, lang):
    html = page_html(built_site, page, lang)
    found = [p for p in map(href_params, re.findall(r'href="([^"]+)"', html)) if p]
    assert len(found) >= len(calculator_calls(text(page, lang)))
    for command, params in found:
        assert_accepted(command, params, catalog, lang)
    assert "style=" not in html  # the site's CSP blocks inline styles

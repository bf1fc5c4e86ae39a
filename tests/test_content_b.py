"""Content pages 5–8 (ASICs, FPGAs, decision guide, use cases): both languages
built, no hand-typed device figures, a sources section at the end, and the
rendered figures checked against the data set."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import REPO_ROOT

DOCS = REPO_ROOT / "docs"

PAGES = {
    "hardware/asics": {"min_sources": 3},
    "hardware/fpgas": {"min_sources": 3},
    "guide/decide": {"min_sources": 3},
    "guide/use-cases": {"min_sources": 1},
}
SOURCES_HEADING = {"en": "Sources", "de": "Quellen"}

# A number followed by a unit of device figures: 989.4 TFLOPS, 3,35 TB/s, 80 GiB, 700 W ...
UNIT = r"(?:TFLOPS|TFLOP/s|PFLOPS|PFLOP/s|TOPS|GB/s|TB/s|GiB|GB|TB|MB|W)"
FIGURE = re.compile(rf"(?<![\w.,])(\d[\d.,]*)\s?(?:-\s?)?{UNIT}(?![\w/])")

# Numbers with these units that are NOT device figures, each with its reason.
# Keep this list short and specific: a device figure must come from a macro.
ALLOWED = {
    # none so far: model sizes are written as "8B"/"70 billion parameters",
    # and every memory or speed figure on these pages is rendered by a macro.
}


def source(page: str, lang: str) -> str:
    suffix = ".de.md" if lang == "de" else ".md"
    return (DOCS / f"{page}{suffix}").read_text(encoding="utf-8")


def without_macros_and_code(text: str) -> str:
    """Markdown with Jinja expressions, front matter and code removed."""
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
    text = re.sub(r"\{\{.*?\}\}", " ", text, flags=re.S)
    text = re.sub(r"\{%.*?%\}", " ", text, flags=re.S)
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    return re.sub(r"`[^`\n]*`", " ", text)


def hand_typed_figures(text: str) -> list[str]:
    """Every 'number unit' outside macros and code that is not allow-listed."""
    found = [m.group(0) for m in FIGURE.finditer(without_macros_and_code(text))]
    return [f for f in found if f not in ALLOWED]


def test_detector_finds_typed_figures_and_ignores_macros():
    text = (
        "The H100 has 3,35 TB/s and 80 GiB, draws 700 W, peaks at 989.4 TFLOPS or 1.979 TFLOP/s, "
        "a 24-GiB card. {{ spec('h100-sxm', 'bandwidth') }} is fine, as are 70B models and 16 bytes."
    )
    assert hand_typed_figures(text) == ["3,35 TB/s", "80 GiB", "700 W", "989.4 TFLOPS", "1.979 TFLOP/s", "24-GiB"]


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("page", PAGES)
def test_no_device_figure_is_typed_by_hand(page, lang):
    assert hand_typed_figures(source(page, lang)) == []


def sources_section(text: str, lang: str) -> str:
    headings = list(re.finditer(r"^## (.+)$", text, flags=re.M))
    assert headings, "page has no second-level headings"
    last = headings[-1]
    assert last.group(1).strip() == SOURCES_HEADING[lang], f"last section is {last.group(1)!r}"
    return text[last.end() :]


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("page", PAGES)
def test_page_ends_with_sources_as_https_links(page, lang):
    section = sources_section(source(page, lang), lang)
    links = re.findall(r"\[([^\]]+)\]\(([^)\s]+)\)", section)
    external = [url for _, url in links if not url.endswith(".md")]
    assert len(external) >= PAGES[page]["min_sources"], external
    for url in external:
        assert re.fullmatch(r"https://[^\s<>\"']+", url), f"not a well-formed https link: {url}"
    # every list item in the section is a source with a link
    for item in re.findall(r"^- (.+)$", section, flags=re.M):
        assert "](" in item, f"source without a link: {item}"


@pytest.mark.parametrize("page", PAGES)
def test_both_languages_cite_the_same_sources(page):
    en = re.findall(r"\]\((https://[^)\s]+)\)", sources_section(source(page, "en"), "en"))
    de = re.findall(r"\]\((https://[^)\s]+)\)", sources_section(source(page, "de"), "de"))
    assert en == de


def built(site: Path, page: str, lang: str) -> str:
    base = site / "de" if lang == "de" else site
    return (base / page / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("page", PAGES)
def test_page_is_built_in_both_languages(built_site, page, lang):
    html = built(built_site, page, lang)
    assert f'<html lang="{lang}"' in html
    assert "{{" not in html and "}}" not in html, "an unrendered macro reached the page"
    assert "NaN" not in html and "Infinity" not in html


def test_decision_guide_energy_example_uses_the_data_set(built_site, dataset):
    # H100 SXM TDP 700 W (datasheet) x 8,760 h = 6,132 kWh; at 0.089 and 0.276 EUR/kWh (Eurostat)
    tdp = dataset.device("h100-sxm")["power"]["tdp_w"]
    kwh = tdp * 8760 / 1000
    en = built(built_site, "guide/decide", "en")
    de = built(built_site, "guide/decide", "de")
    assert f"{kwh:,.0f}\u00a0kWh" in en
    assert f"{kwh:,.0f}".replace(",", ".") + "\u00a0kWh" in de
    assert f"€{kwh * 0.089:,.0f}" in en and f"€{kwh * 0.276:,.0f}" in en
    assert f"{kwh * 0.276:,.0f}".replace(",", ".") + "\u00a0€" in de


@pytest.mark.parametrize("lang", ["en", "de"])
def test_decision_guide_ridge_points_follow_the_data(built_site, dataset, lang):
    html = built(built_site, "guide/decide", lang)
    for device_id in ("a100-sxm-80gb", "h100-sxm"):
        device = dataset.device(device_id)
        peak = next(c["tflops"] for c in device["compute"] if (c["precision"], c["unit"], c["sparsity"]) == ("bf16", "matrix", "dense"))
        ridge = round(peak * 1e12 / (device["memory"]["bandwidth_gb_s"] * 1e9))
        assert f">{ridge}<" in html, f"{device_id}: ridge point {ridge} not on the page"


@pytest.mark.parametrize("lang", ["en", "de"])
def test_asic_overview_lists_the_asics_and_npus_of_the_data_set(built_site, dataset, lang):
    html = built(built_site, "hardware/asics", lang)
    table = re.search(r'<table data-atlas-table="devices".*?</table>', html, flags=re.S).group(0)
    rows = re.findall(r'<tr data-device="([^"]+)"', table)
    expected = {i for i, d in dataset.devices.items() if d["kind"] in ("asic", "npu")}
    assert set(rows) == expected and expected


@pytest.mark.parametrize("lang", ["en", "de"])
def test_fpga_table_lists_the_fpgas_of_the_data_set(built_site, dataset, lang):
    html = built(built_site, "hardware/fpgas", lang)
    rows = re.findall(r'<tr data-device="([^"]+)"', html)
    expected = {i for i, d in dataset.devices.items() if d["kind"] == "fpga"}
    assert set(rows) == expected and expected

"""The content pages: both languages, device figures only from the data set,
a sources section on every page, and spot checks of rendered values."""

from __future__ import annotations

import re
from html import unescape as html_unescape
from pathlib import Path
from urllib.parse import parse_qs, urlparse, urlsplit

import pytest
import yaml

from atlas.core import l10n
from atlas.core.calculators import roofline
from atlas.core.calculators.api import handle
from atlas.core.calculators.catalog import Catalog
from atlas.core.calculators.fields import field_value
from atlas.core.calculators.inputs import BY_NAME
from atlas.data import glossary
from atlas.data.export import export_dataset
from conftest import REPO_ROOT
from page_structure import skeleton

DOCS = REPO_ROOT / "docs"

# Content pages (path without .md) and the least number of sources each cites.
# Issue 3: at least three primary sources on the hardware and guide pages.
CONTENT_PAGES = {
    "index": 1,
    "why-accelerators": 3,
    "hardware/gpus": 3,
    "hardware/tpus": 3,
    "hardware/asics": 3,
    "hardware/fpgas": 3,
    "guide/decide": 3,
    "guide/use-cases": 3,
    "guide/quantisation": 3,
    "guide/serving": 3,
    "glossary": 1,
}

SOURCES_HEADING = {"en": "Sources", "de": "Quellen"}

# ---------------------------------------------------------------------------
# Hand-typed device figures
# ---------------------------------------------------------------------------

UNITS = r"(?:TFLOPS|TFLOP/s|PFLOPS|PFLOP/s|TOPS|GB/s|TB/s|GiB|GB|W)"
# A number (English or German digit grouping) followed by a device unit.
FIGURE = re.compile(rf"(?<![\w.,])\d[\d.,]*(?:\s|\u00a0|&nbsp;|-)*{UNITS}(?![\w/])")
# num() formats worked arithmetic; followed by a throughput, bandwidth or
# power unit it would be a device figure typed by hand in disguise.
NUM_AS_DEVICE_FIGURE = re.compile(r"\{\{\s*num\([^}]*\)\s*\}\}(?:\s|\u00a0)*(?:TFLOPS|TFLOP/s|PFLOPS|TOPS|GB/s|TB/s|W)(?![\w/])")
JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)

# Narrow exceptions: (page, exact text) -> why this is not a device figure.
# Model sizes and worked arithmetic belong in macros (num(), spec(), ...);
# add an entry here only when that is impossible, and say why.
ALLOWED: dict[tuple[str, str], str] = {
    ("hardware/gpus.md", "2 TB/s"): "quotes a popular claim, checked against the data set right after it",
    ("hardware/gpus.de.md", "2\u00a0TB/s"): "zitiert eine verbreitete Behauptung und prüft sie direkt danach am Datensatz",
}


def hand_typed_figures(markdown: str) -> list[str]:
    """Device-style figures in ``markdown`` that do not come from a macro."""
    found = [m.group(0) for m in NUM_AS_DEVICE_FIGURE.finditer(markdown)]
    found += [m.group(0) for m in FIGURE.finditer(JINJA.sub(" ", markdown))]
    return found


@pytest.mark.parametrize(
    "text, expected",
    [
        ("The H100 has 3,350 GB/s of bandwidth.", ["3,350 GB/s"]),
        ("Die H100 hat 3.350 GB/s Bandbreite.", ["3.350 GB/s"]),
        ("It reaches 989.4 TFLOP/s in BF16.", ["989.4 TFLOP/s"]),
        ("about 1,2 TB/s", ["1,2 TB/s"]),
        ("draws 700 W", ["700 W"]),
        ("has 80 GiB of HBM3", ["80 GiB"]),
        ("a 24GB card", ["24GB"]),
        ("a 24-GiB card", ["24-GiB"]),
        ("{{ num(989.4, 1) }} TFLOP/s", ["{{ num(989.4, 1) }} TFLOP/s"]),
        ('{{ spec("h100-sxm", "bandwidth") }} of bandwidth', []),
        ("an 8B model needs {{ num(8 * 2, 0) }} GB in BF16", []),
        ("FP8 E4M3 has a largest value of 448", []),
        ("a 4096 × 4096 matrix, 1,024 bits per stack", []),
        ("two W3C specs and 4 Watts-Strogatz graphs", []),
    ],
)
def test_figure_detector(text, expected):
    assert hand_typed_figures(text) == expected


def markdown_pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


@pytest.mark.parametrize("md", markdown_pages(), ids=lambda p: p.relative_to(DOCS).as_posix())
def test_no_hand_typed_device_figures(md):
    rel = md.relative_to(DOCS).as_posix()
    found = [f for f in hand_typed_figures(md.read_text(encoding="utf-8")) if (rel, f) not in ALLOWED]
    assert not found, f"{rel}: device figures must come from the data set through a macro: {found}"


@pytest.mark.parametrize("entry", sorted(ALLOWED), ids=str)
def test_allowed_figures_are_still_used(entry):
    page, text = entry
    assert text in (DOCS / page).read_text(encoding="utf-8"), f"stale ALLOWED entry {entry}: remove it"


# ---------------------------------------------------------------------------
# Pages exist, are in the navigation, and end with their sources
# ---------------------------------------------------------------------------


def source_path(page: str, lang: str) -> Path:
    return DOCS / (f"{page}.md" if lang == "en" else f"{page}.de.md")


def built_path(site: Path, page: str, lang: str) -> Path:
    parts = [] if page == "index" else page.split("/")
    return (site / "de" if lang == "de" else site).joinpath(*parts, "index.html")


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("page", CONTENT_PAGES)
def test_content_page_exists_and_uses_macros(page, lang):
    path = source_path(page, lang)
    assert path.is_file(), f"missing {path.relative_to(REPO_ROOT)}"
    front = yaml.safe_load(path.read_text(encoding="utf-8").split("---")[1])
    assert front.get("render_macros") is True and front.get("title")


def nav_files(nav) -> list[str]:
    out = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        out += nav_files(value) if isinstance(value, list) else [value]
    return out


def test_content_pages_are_in_the_navigation_with_german_titles():
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)  # !!python/name tags etc.
    config = yaml.load((REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)
    assert {f"{p}.md" for p in CONTENT_PAGES} <= set(nav_files(config["nav"]))
    i18n = next(p["i18n"] for p in config["plugins"] if isinstance(p, dict) and "i18n" in p)
    german = next(lang for lang in i18n["languages"] if lang["locale"] == "de")["nav_translations"]
    assert german["Basics"] == "Grundlagen"
    assert german["Why accelerators"] == "Warum Beschleuniger?"
    assert german["Glossary"] == "Glossar"
    assert german["Choosing"] == "Auswahl"
    assert german["Decision guide"] == "Entscheidungshilfe"
    assert german["Use cases"] == "Anwendungsfälle"
    assert german["Quantisation explained"] == "Quantisierung erklärt"
    assert german["Serving LLMs"] == "LLMs bereitstellen"
    assert german["ASICs & other accelerators"] == "ASICs & andere Beschleuniger"


def sources_section(markdown: str, lang: str) -> str:
    """The text after the page's last level-2 heading, which must be its sources."""
    headings = list(re.finditer(r"^## (.+)$", markdown, re.M))
    assert headings, "page has no level-2 heading"
    last = headings[-1]
    assert last.group(1).strip() == SOURCES_HEADING[lang], f"last section is {last.group(1)!r}, not the sources"
    return markdown[last.end():]


LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def source_urls(section: str) -> list[str]:
    """Links of the bullet list in a sources section; every bullet must have one."""
    bullets = [line for line in section.splitlines() if line.startswith("- ")]
    assert bullets, "the sources section has no list"
    urls = []
    for bullet in bullets:
        links = LINK.findall(bullet)
        assert links, f"source without a link: {bullet}"
        urls += [url for _, url in links]
    return urls


def test_sources_parser_rejects_bad_sections():
    with pytest.raises(AssertionError, match="not the sources"):
        sources_section("## Intro\n\ntext\n\n## More\n\n- [a](https://e.org)\n", "en")
    with pytest.raises(AssertionError, match="without a link"):
        source_urls("\n- Some paper, 2020.\n")
    assert source_urls("\n- A: [T](https://e.org/x), 2020; [U](https://f.org)\n") == ["https://e.org/x", "https://f.org"]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("page", CONTENT_PAGES)
def test_page_ends_with_wellformed_sources(page, lang):
    urls = source_urls(sources_section(source_path(page, lang).read_text(encoding="utf-8"), lang))
    assert len(set(urls)) >= CONTENT_PAGES[page], f"{page} ({lang}) cites {len(set(urls))} sources"
    for url in urls:
        parsed = urlparse(url)
        assert parsed.scheme == "https" and "." in parsed.netloc and not parsed.username, url


# The formal address in mid-sentence ("für Ihre Arbeitslast", "die Sie eingeben"); at the
# start of a sentence "Sie"/"Ihre" may be the pronoun "she/they", so only mid-sentence counts.
FORMAL_ADDRESS = re.compile(r"(?<=[a-zäöüß,] )(?:Sie|Ihr|Ihre|Ihren|Ihrem|Ihrer|Ihres)\b")


def test_formal_address_detector():
    assert FORMAL_ADDRESS.findall("vergleicht zwei Geräte für Ihre Arbeitslast, die Sie eingeben") == ["Ihre", "Sie"]
    assert not FORMAL_ADDRESS.findall("Sie liegt bei allen Herstellern. Ihre Netze sind klein; du kannst es")


@pytest.mark.parametrize("page", CONTENT_PAGES)
def test_german_pages_address_the_reader_with_du(page):
    text = JINJA.sub(" ", source_path(page, "de").read_text(encoding="utf-8"))
    assert not FORMAL_ADDRESS.findall(text), f"{page}: formal 'Sie' on a du-page"


@pytest.mark.parametrize(
    "path", sorted((REPO_ROOT / "docs").rglob("*.de.md")), ids=lambda p: p.relative_to(REPO_ROOT / "docs").as_posix()
)
def test_every_german_page_addresses_the_reader_with_du(path):
    """Calculator, kernel and comparison pages too, not only the content pages."""
    text = JINJA.sub(" ", path.read_text(encoding="utf-8"))
    assert not FORMAL_ADDRESS.findall(text), f"{path.name}: formal 'Sie' on a du-site"


@pytest.mark.parametrize("page", CONTENT_PAGES)
def test_both_languages_cite_the_same_sources(page):
    en = source_urls(sources_section(source_path(page, "en").read_text(encoding="utf-8"), "en"))
    de = source_urls(sources_section(source_path(page, "de").read_text(encoding="utf-8"), "de"))
    assert en == de


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("page", CONTENT_PAGES)
def test_built_page_has_no_error_residue(built_site, page, lang):
    html = built_path(built_site, page, lang).read_text(encoding="utf-8")
    article = html[html.find("<article"):html.find("</article>")]
    assert skeleton(html), "empty page"
    for bad in ("Traceback", "{{", "}}", "{%"):
        assert bad not in article, f"{bad!r} on {page} ({lang})"
    # A number that went wrong shows up as the whole text of an element.
    assert not re.search(r">\s*-?(?:NaN|nan|Infinity|inf)\b", article), f"non-finite number on {page} ({lang})"


# ---------------------------------------------------------------------------
# Rendered values
# ---------------------------------------------------------------------------


def section(html: str, anchor: str) -> str:
    """HTML from the heading with id ``anchor`` to the next heading of any level up to h3."""
    start = html.index(f'id="{anchor}"')
    end = re.compile(r"<h[23]\b").search(html, start + 1)
    return html[start:end.start() if end else len(html)]


def rows(html: str) -> list[str]:
    return re.findall(r'<tr data-device="([^"]+)">', html)


def row(html: str, device_id: str) -> str:
    return re.search(rf'<tr data-device="{device_id}">(.*?)</tr>', html).group(1)


# The NVIDIA generations the GPU page must show, oldest first, as far as the data set has them.
NVIDIA_GENERATIONS = ["v100-sxm2-32gb", "a100-sxm-80gb", "h100-sxm", "b200", "b300", "rubin"]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_gpu_generations_table_follows_the_data_set(built_site, dataset, lang):
    part = section(built_path(built_site, "hardware/gpus", lang).read_text(encoding="utf-8"), "nvidia-generations")
    table = part[part.index("<table data-atlas-table"):]
    table = table[:table.index("</table>")]
    expected = [d for d in NVIDIA_GENERATIONS if d in dataset.devices]
    assert rows(table) == expected
    years = [dataset.device(d)["launch_year"] for d in expected]
    assert years == sorted(years)
    for device_id in expected:
        device = dataset.device(device_id)
        cells = row(table, device_id)
        assert f'data-sort="{device["memory"]["bandwidth_gb_s"]!r}"' in cells
        bf16 = field_value(device, "bf16.matrix.dense")
        if bf16:
            assert f'data-sort="{bf16.value!r}"' in cells


def test_h100_figures_in_both_number_formats(built_site):
    en = built_path(built_site, "hardware/gpus", "en").read_text(encoding="utf-8")
    de = built_path(built_site, "hardware/gpus", "de").read_text(encoding="utf-8")
    # H100 SXM BF16 dense (Hopper whitepaper): 989.4 TFLOP/s; 2:4 sparse twice that.
    assert 'data-field="bf16.matrix.dense" title="Source: NVIDIA H100 Tensor Core GPU Architecture' in en
    assert ">989.4\u00a0TFLOP/s<" in en and ">1,978.9\u00a0TFLOP/s<" in en
    assert ">989,4\u00a0TFLOP/s<" in de and ">1.978,9\u00a0TFLOP/s<" in de


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_tpu_generations_table_lists_every_tpu_newest_first(built_site, dataset, lang):
    html = built_path(built_site, "hardware/tpus", lang).read_text(encoding="utf-8")
    table = section(html, "generations")
    tpus = [d for d in dataset.devices.values() if d["kind"] == "tpu"]
    expected = [d["id"] for d in sorted(tpus, key=lambda d: (-d["launch_year"], d["name"]))]
    if expected:
        assert rows(table) == expected
    else:
        assert l10n.t(lang, "table.empty") in table


def test_critical_intensity_is_derived_from_the_data_set(built_site, dataset):
    html = built_path(built_site, "why-accelerators", "en").read_text(encoding="utf-8")
    table = section(html, "memory-bound")
    h100 = dataset.device("h100-sxm")
    value = roofline.critical_intensity(field_value(h100, "bf16.matrix.dense").value, h100["memory"]["bandwidth_gb_s"])
    assert f">{l10n.format_significant(round(value), 'en', 3)}</span>" in table
    # 989.4 TFLOP/s ÷ 3,350 GB/s = 295 FLOP per byte with today's data.
    assert '>295</span>' in table


def test_derived_figures_name_their_field_in_the_readers_language(built_site):
    """The tooltip of a computed figure says which peak it used, as words, not as the field's code name."""
    en = built_path(built_site, "why-accelerators", "en").read_text(encoding="utf-8")
    de = built_path(built_site, "why-accelerators", "de").read_text(encoding="utf-8")
    assert 'title="Computed: peak BF16 (matrix unit, dense) of NVIDIA H100 SXM5 80 GB ÷ its memory bandwidth' in en
    assert 'title="Berechnet: Spitzenleistung BF16 (Matrixeinheit, dicht) von NVIDIA H100 SXM5 80\u00a0GB ÷ Speicherbandbreite' in de
    titles = re.findall(r'data-derived="[^"]*" title="([^"]*)"', en + de)
    assert titles and not [t for t in titles if ".matrix." in t or ".vector." in t]


def test_memory_bound_decoding_example(built_site):
    en = built_path(built_site, "why-accelerators", "en").read_text(encoding="utf-8")
    de = built_path(built_site, "why-accelerators", "de").read_text(encoding="utf-8")
    # 16 GB of weights at 3,350 GB/s: 4.8 ms per token, at most ~210 tokens/s.
    assert 'data-derived="read-time"' in en and ">4.8</span>" in en and ">4,8</span>" in de
    assert ">210</span>" in en
    # A 4096³ product in BF16 moves 3 · 4096² · 2 bytes for 2 · 4096³ FLOPs: 1,365 FLOP per byte.
    assert "1,365" in en and "1.365" in de


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_roofline_workloads_come_from_the_estimators_and_the_kernel_model(built_site, dataset, estimator_catalog, lang):
    html = built_path(built_site, "why-accelerators", lang).read_text(encoding="utf-8")
    part = section(html, "roofline")

    def decode(batch):
        params = {"workload": "decode", "model": "llama-3.1-8b", "weights": "bf16", "batch": batch, "context": 4096,
                  "device": "h100-sxm"}
        return handle({"command": "speed", "params": params, "lang": lang}, estimator_catalog)["result"]

    # Llama 3.1 8B in BF16 at 4,096 tokens: about 1.1 FLOP/byte for one sequence, 17.5 for 32 (each
    # sequence reads its own KV cache); a 4096³ BF16 product 1,365 (kernel demos' matmul example).
    intensities = [decode(1)["arithmetic_intensity"], decode(32)["arithmetic_intensity"],
                   roofline.matmul_intensity(4096, 4096, 4096, 2)]
    assert intensities == pytest.approx([1.10, 17.5, 1365.3], abs=0.05)
    markers = [float(x) for x in re.findall(r'class="atlas-marker" data-intensity="([^"]+)"', part)]
    assert markers == pytest.approx(intensities, abs=0.05)
    shown = re.findall(r'data-derived="workload-intensity"[^>]*>([^<]+)<', part)
    assert shown == [l10n.format_significant(v, lang, 3) for v in intensities[:2]]
    expected = []
    for intensity in intensities:
        for device_id in ("h100-sxm", "a100-sxm-80gb"):
            device = dataset.device(device_id)
            peak = field_value(device, "bf16.matrix.dense").value
            value = roofline.attainable_tflops(peak, device["memory"]["bandwidth_gb_s"], intensity)
            expected.append(f"{l10n.format_rounded(value, lang, 3)}\u00a0TFLOP/s")
    assert re.findall(r'data-derived="attainable"[^>]*>([^<]+)<', part) == expected
    # no intensity typed into the page: the markers are workloads and kernel examples
    source = source_path("why-accelerators", lang).read_text(encoding="utf-8")
    assert "markers=" not in source and "kernel_examples=" in source and "workloads=" in source


def test_fp8_doubles_the_bf16_peak_on_the_page(built_site):
    html = built_path(built_site, "why-accelerators", "en").read_text(encoding="utf-8")
    numbers = section(html, "number-formats")
    assert re.search(r'data-derived="ratio"[^>]*>2</span>', numbers)


# ---------------------------------------------------------------------------
# Glossary and tooltips
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_glossary_lists_every_term_once_with_its_link(built_site, lang):
    html = built_path(built_site, "glossary", lang).read_text(encoding="utf-8")
    for entry in glossary.ENTRIES:
        assert html.count(f'id="{entry.slug}"') == 1, entry.slug
    # Terms the issue asks for are all there.
    for slug in ("inference", "inference-optimisation", "kv-cache", "batching", "speculative-decoding",
                 "quantisation", "deployment", "deep-learning", "parameter", "flops", "tflops",
                 "dense-sparse", "hbm", "arithmetic-intensity", "roofline", "mfu", "tensor-core", "systolic-array"):
        assert f'id="{slug}"' in html, slug
    assert 'href="../hardware/tpus/#systolic-array"' in html


def test_glossary_markdown_escapes_and_rejects_unknown_groups():
    text = glossary.glossary_markdown("hardware", "en")
    assert '<span id="hbm"></span>**HBM**' in text
    assert "[explained in: GPUs](hardware/gpus.md#memory)" in text
    assert glossary._md_escape("a <b> * [x]") == "a &lt;b&gt; \\* \\[x\\]"
    with pytest.raises(ValueError, match="unknown glossary group"):
        glossary.entries("misc")


def test_tooltip_terms_are_unique_in_each_language():
    for lang in l10n.LANGUAGES:
        terms = [glossary.term(e, lang) for e in glossary.ENTRIES if e.tooltip]
        assert len(terms) == len(set(terms))
        assert glossary.abbreviations(lang)["HBM"] == l10n.t(lang, "glossary.hbm.def")


def test_german_page_shows_german_tooltips(built_site):
    de = built_path(built_site, "hardware/gpus", "de").read_text(encoding="utf-8")
    en = built_path(built_site, "hardware/gpus", "en").read_text(encoding="utf-8")
    german = l10n.t("de", "glossary.hbm.def").replace('"', "&quot;")
    english = l10n.t("en", "glossary.hbm.def").replace("'", "&#x27;")
    assert f'<abbr title="{german}">HBM</abbr>' in de
    assert "gestapelte DRAM-Chips" in german and "High Bandwidth" in german
    assert 'title="High Bandwidth Memory: DRAM dies stacked' in en
    assert f'<abbr title="{english}">HBM</abbr>' in en
    assert "gestapelte" not in en


# ---------------------------------------------------------------------------
# Pages 5-8: ASICs, FPGAs, decision guide, use cases
# ---------------------------------------------------------------------------


def kinds_in_table(html: str, kinds: tuple[str, ...], dataset) -> tuple[list[str], set[str]]:
    """Device rows of the page's first device table, and the ids of the data set's devices of ``kinds``."""
    table = re.search(r'<table data-atlas-table="devices".*?</table>', html, re.S).group(0)
    return rows(table), {i for i, d in dataset.devices.items() if d["kind"] in kinds}


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_asic_overview_lists_every_asic_and_npu(built_site, dataset, lang):
    found, expected = kinds_in_table(built_path(built_site, "hardware/asics", lang).read_text(encoding="utf-8"),
                                     ("asic", "npu"), dataset)
    assert expected and set(found) == expected
    bandwidths = [dataset.device(d)["memory"]["bandwidth_gb_s"] for d in found]
    stated = [b for b in bandwidths if b is not None]
    assert stated == sorted(stated, reverse=True)
    # devices without memory of their own (memory.type "none", e.g. Hailo-8) have no bandwidth: they come last
    assert bandwidths == stated + [None] * (len(bandwidths) - len(stated))


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_fpga_table_lists_every_fpga(built_site, dataset, lang):
    found, expected = kinds_in_table(built_path(built_site, "hardware/fpgas", lang).read_text(encoding="utf-8"),
                                     ("fpga",), dataset)
    assert expected and set(found) == expected


def test_asic_page_critical_intensities_come_from_the_data_set(built_site, dataset):
    html = built_path(built_site, "hardware/asics", "en").read_text(encoding="utf-8")
    for device_id, field in (("h100-sxm", "bf16.matrix.dense"), ("groq-lpu", "fp16.matrix.dense")):
        device = dataset.device(device_id)
        value = roofline.critical_intensity(field_value(device, field).value, device["memory"]["bandwidth_gb_s"])
        assert f">{l10n.format_significant(value, 'en', 3)}</span>" in html, device_id
    # Groq: 188 TFLOP/s FP16 over 80,000 GB/s of SRAM bandwidth: a critical intensity of 2.35 FLOP per byte.
    assert ">2.35</span>" in html


def test_decision_guide_critical_intensities_in_both_formats(built_site, dataset):
    en = built_path(built_site, "guide/decide", "en").read_text(encoding="utf-8")
    de = built_path(built_site, "guide/decide", "de").read_text(encoding="utf-8")
    for device_id in ("a100-sxm-80gb", "h100-sxm"):
        device = dataset.device(device_id)
        value = roofline.critical_intensity(field_value(device, "bf16.matrix.dense").value,
                                           device["memory"]["bandwidth_gb_s"])
        for lang, html in (("en", en), ("de", de)):
            assert f">{l10n.format_significant(value, lang, 3)}</span>" in html, (device_id, lang)


def test_decision_guide_energy_example(built_site, dataset):
    # H100 SXM: 700 W (datasheet) for 8,760 h = 6,132 kWh; Eurostat 2023-H2 non-household
    # prices 0.089 EUR/kWh (Finland) and 0.276 EUR/kWh (Cyprus): 546 and 1,692 euros a year.
    kwh = dataset.device("h100-sxm")["power"]["tdp_w"] * 8760 / 1000
    en = built_path(built_site, "guide/decide", "en").read_text(encoding="utf-8")
    de = built_path(built_site, "guide/decide", "de").read_text(encoding="utf-8")
    assert f"{l10n.format_number(kwh, 'en', 0)}\u00a0kWh" in en
    assert f"{l10n.format_number(kwh, 'de', 0)}\u00a0kWh" in de
    for price in (0.089, 0.276):
        assert f"€{l10n.format_number(kwh * price, 'en', 0)}" in en
        assert f"{l10n.format_number(kwh * price, 'de', 0)} €" in de
    assert "6,132\u00a0kWh" in en and "€546" in en and "€1,692" in en


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_decision_guide_price_table_lists_every_dated_price(built_site, dataset, lang):
    from atlas.core.calculators import cost
    from atlas.data.price_lists import prices_by_device

    html = built_path(built_site, "guide/decide", lang).read_text(encoding="utf-8")
    table = re.search(r'<table data-atlas-table="prices".*?</table>', html, re.S).group(0)
    by_device = prices_by_device(dataset)
    bought = {i for i, p in by_device.items() if cost.purchase_price(p)}
    clouds = {i for i, p in by_device.items() if cost.cloud_prices(p)}
    assert len(bought) >= 20 and len(clouds) >= 20
    assert set(re.findall(r'data-device="([^"]+)" data-basis="purchase"', table)) == bought
    assert set(re.findall(r'data-device="([^"]+)" data-basis="cloud"', table)) == clouds
    for device_id in bought:
        newest = cost.purchase_price(by_device[device_id])["as_of"]
        cells = re.search(rf'<tr data-device="{device_id}" data-basis="purchase">(.*?)</tr>', table).group(1)
        assert f'<td data-sort="{newest}">{l10n.format_month(newest, lang)}</td>' in cells


# ---------------------------------------------------------------------------
# Links to the calculators and the kernel demos
# ---------------------------------------------------------------------------

# Content pages that must send the reader on to the tools, and which kinds of
# tool page each must link to ("calculator": a pre-filled calculator link).
TOOL_LINKS = {
    "index": {"calculator", "kernel"},
    "why-accelerators": {"calculator", "kernel"},
    "hardware/gpus": {"calculator"},
    "hardware/tpus": {"calculator"},
    "guide/decide": {"calculator", "kernel"},
    "guide/use-cases": {"calculator"},
    "guide/quantisation": {"calculator"},
    "guide/serving": {"calculator"},
}

HREF = re.compile(r'<a\b[^>]*\bhref="([^"]+)"')


def article(html: str) -> str:
    return html[html.find("<article"):html.find("</article>")]


def page_links(site: Path, page: str, lang: str) -> list[tuple[str, Path]]:
    """(href, resolved target folder) of every relative link in the page's article."""
    path = built_path(site, page, lang)
    links = []
    for href in HREF.findall(article(path.read_text(encoding="utf-8"))):
        href = html_unescape(href)  # attribute values may carry entities (&amp;, &#95; for "_"), as a browser reads them
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or not parts.path:
            continue
        links.append((href, (path.parent / parts.path).resolve()))
    return links


def tool_kind(site: Path, target: Path, lang: str) -> str | None:
    """'calculator' or 'kernel' when ``target`` is a built tool page in ``lang``, else None."""
    root = (site / "de" if lang == "de" else site).resolve()
    if not (target / "index.html").is_file() or not target.is_relative_to(root):
        return None
    parts = target.relative_to(root).parts
    if parts[:1] == ("calculators",) and len(parts) == 2:
        return "calculator"
    if parts[:1] == ("kernels",):
        return "kernel"
    return None


def prefilled_calculator_links(site: Path, page: str, lang: str) -> list[tuple[str, dict]]:
    """(command, params) of every calculator link on the page that carries a query."""
    out = []
    for href, target in page_links(site, page, lang):
        query = urlsplit(href).query
        if query and tool_kind(site, target, lang) == "calculator":
            params = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
            out.append((target.name, params))
    return out


@pytest.fixture(scope="module")
def estimator_catalog(dataset):
    return Catalog.from_dict(export_dataset(dataset))


def test_calc_link_text_is_no_calculator_parameter():
    # calc_link(command, text=None, **params): "text" must never shadow a parameter.
    assert "text" not in BY_NAME and "command" not in BY_NAME
    assert {"model", "weights", "context", "mode", "workload", "device", "baseline"} <= set(BY_NAME)


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("page", TOOL_LINKS)
def test_page_links_to_the_tools(built_site, page, lang):
    kinds = {tool_kind(built_site, target, lang) for _, target in page_links(built_site, page, lang)}
    prefilled = prefilled_calculator_links(built_site, page, lang)
    wanted = TOOL_LINKS[page]
    if "calculator" in wanted:
        assert prefilled, f"{page} ({lang}) has no pre-filled calculator link"
    if "kernel" in wanted:
        assert "kernel" in kinds, f"{page} ({lang}) does not link a kernel demo"


def every_built_page(site: Path) -> list[tuple[str, str]]:
    """(page, lang) of every built page, page as in built_path()."""
    pages = []
    for html in sorted(site.rglob("index.html")):
        rel = html.parent.relative_to(site).parts
        lang = "de" if rel[:1] == ("de",) else "en"
        rel = rel[1:] if lang == "de" else rel
        if rel[:1] in (("assets",), ("search",)):
            continue
        pages.append(("/".join(rel) or "index", lang))
    return pages


def test_every_prefilled_calculator_link_is_accepted_by_the_calculators(built_site, estimator_catalog):
    checked = 0
    for page, lang in every_built_page(built_site):
        for command, params in prefilled_calculator_links(built_site, page, lang):
            assert set(params) <= set(BY_NAME), (page, lang, params)
            response = handle({"command": command, "params": params, "lang": lang}, estimator_catalog)
            assert response["ok"], (page, lang, command, params, response.get("errors"))
            checked += 1
    # Home (5), why (2), GPUs (2), TPUs (2), decision guide (3), use cases (8), in both languages.
    assert checked >= 2 * 22


def test_link_parser_finds_and_refuses_links(tmp_path):
    (tmp_path / "calculators" / "vram").mkdir(parents=True)
    (tmp_path / "calculators" / "vram" / "index.html").write_text("x", encoding="utf-8")
    (tmp_path / "guide" / "use-cases").mkdir(parents=True)
    (tmp_path / "guide" / "use-cases" / "index.html").write_text(
        '<article><a href="../../calculators/vram/?model=llama-3.1-8b&amp;weights=q4_k_m">a</a>'
        '<a href="../../calculators/vram/">b</a><a href="https://example.org/calculators/vram/?x=1">c</a>'
        '<a href="../../calculators/gone/?model=x">d</a></article>',
        encoding="utf-8",
    )
    assert prefilled_calculator_links(tmp_path, "guide/use-cases", "en") == [
        ("vram", {"model": "llama-3.1-8b", "weights": "q4_k_m"})
    ]
    # The same page read as German links nowhere in German.
    assert tool_kind(tmp_path, (tmp_path / "calculators" / "vram").resolve(), "de") is None


HOME_ROWS = {
    # row of the "Do I need a GPU?" table -> what its calculator link must ask
    2: {"model": "llama-3.2-3b", "weights": "q4_k_m"},
    3: {"model": "llama-3.1-8b", "weights": "q4_k_m"},
    4: {"model": "llama-3.1-8b", "mode": "qlora"},
    5: {"model": "llama-3.1-8b", "mode": "full"},
}


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_home_table_rows_open_the_calculator_that_answers_them(built_site, estimator_catalog, lang):
    html = article(built_path(built_site, "index", lang).read_text(encoding="utf-8"))
    table = section(html, "do-i-need-a-gpu")
    table = table[table.index("<tbody>"):table.index("</tbody>")]
    body_rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
    assert len(body_rows) == 5
    assert 'href="guide/use-cases/#cloud"' in body_rows[0]
    for number, wanted in HOME_ROWS.items():
        hrefs = re.findall(r'href="calculators/vram/\?([^"]+)"', body_rows[number - 1])
        assert len(hrefs) == 1, (number, hrefs)
        params = {k: v[-1] for k, v in parse_qs(hrefs[0].replace("&amp;", "&")).items()}
        assert wanted.items() <= params.items(), (number, params)
        # The row states the total the linked calculator shows, in the page's number format.
        result = handle({"command": "vram", "params": params, "lang": lang}, estimator_catalog)["result"]
        total = f"{l10n.format_number(result['total_gib'], lang, 1)}\u00a0{l10n.t(lang, 'unit.gib')}"
        assert total in body_rows[number - 1], (number, total)
    # Known values: Llama 3.1 8B at Q4_K_M with 8,192 tokens fits an 8 GiB RTX 4060 (weights 4.575 GiB by
    # llama.cpp's per-tensor recipe, which its published 4.58G rounds; 1 GiB KV cache, 1 GiB overhead, workspace).
    assert ("6.6\u00a0GiB" if lang == "en" else "6,6\u00a0GiB") in body_rows[2]


# ---------------------------------------------------------------------------
# Glossary links land on the page that explains the term
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_every_glossary_link_lands_on_an_existing_page_and_anchor(built_site, lang):
    root = built_site / "de" if lang == "de" else built_site
    for entry in glossary.ENTRIES:
        page, _, anchor = entry.link.partition("#")
        target = root.joinpath(*([] if page == "index.md" else page[:-len(".md")].split("/")), "index.html")
        assert target.is_file(), (entry.slug, target)
        if anchor:
            assert f'id="{anchor}"' in target.read_text(encoding="utf-8"), (entry.slug, lang)


def test_glossary_points_hardware_terms_to_their_own_pages():
    links = {e.slug: e.link for e in glossary.ENTRIES}
    assert links["asic"] == "hardware/asics.md"
    assert links["fpga"] == "hardware/fpgas.md"
    assert links["npu"] == "hardware/asics.md#npu"
    assert links["lpu"] == "hardware/asics.md#groq"
    assert links["fine-tuning"] == "guide/use-cases.md#training"
    assert links["roofline"] == "kernels/roofline.md"
    # Only the CPU, which has no page of its own, is still explained by the overview table.
    assert [slug for slug, link in links.items() if link == "why-accelerators.md#one-picture"] == ["cpu"]
    assert set(e.page for e in glossary.ENTRIES) <= set(glossary.PAGES)


# ---------------------------------------------------------------------------
# The home page's first screen: what the site answers, then the way into the calculators
# ---------------------------------------------------------------------------

HOME_ENTRIES = {
    "en": [("Can I run it?", "calculators/vram/"), ("How fast?", "calculators/speed/")],
    "de": [("Läuft das bei mir?", "calculators/vram/"), ("Wie schnell?", "calculators/speed/")],
}
HOME_SOURCES_WORDS = {"en": "dense or sparse", "de": "dicht oder mit Sparsity"}


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_home_page_opens_with_the_calculators(built_site, lang):
    """Right under the title and one short paragraph: two buttons into the calculators, before the paragraph
    on sources and dense/sparse figures and before any other heading, table or figure (first screen at 390 px)."""
    html = article(built_path(built_site, "index", lang).read_text(encoding="utf-8"))
    body = html[html.index("</h1>"):]
    first_heading = body.index("<h2")
    buttons = re.findall(r'<a class="md-button md-button--primary" href="([^"]+)">([^<]+)</a>', body)
    assert [(text, href) for href, text in buttons] == HOME_ENTRIES[lang]
    last_button = body.index(buttons[-1][0])
    assert last_button < body.index(HOME_SOURCES_WORDS[lang]) < first_heading
    # Above the buttons: one paragraph of at most about 45 words, nothing else (no table, figure or admonition).
    above = body[:body.index(buttons[0][0])]
    assert above.count("<p>") == 2 and not re.search(r"<(?:table|figure|div|svg)\b", above)
    assert len(re.sub(r"<[^>]+>", " ", above).split()) <= 45


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_home_page_source_has_the_buttons_in_both_languages(lang):
    source = (DOCS / ("index.de.md" if lang == "de" else "index.md")).read_text(encoding="utf-8")
    intro = source[source.index("\n# "):source.index("\n## ")]
    for text, href in HOME_ENTRIES[lang]:
        page = href.rstrip("/") + ".md"
        assert f"[{text}]({page}){{ .md-button .md-button--primary }}" in intro
    assert "attr_list" in (REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8")

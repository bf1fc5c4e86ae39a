"""The power and cooling section of the systems page (docs/hardware/interconnects*.md, issue 36 item 4): it exists in
both languages, cites the same sources in both and lists them under the sources, links the speed calculator with
inputs the calculators accept, shows the energy example the estimator computes, and takes every chip's TDP from the
data set through ``spec(...)`` instead of typing it. Reads the Markdown only; builds nothing."""

from __future__ import annotations

import re

import pytest
from german_typography import check_banned, check_source_units, check_text, markdown_prose, markdown_words
from page_support import assert_accepted, sources_section
from test_serving_page import calculator_calls, macro_calls

from atlas.core.calculators.catalog import Catalog
from atlas.data.export import export_dataset
from conftest import REPO_ROOT

PAGES = {"en": REPO_ROOT / "docs" / "hardware" / "interconnects.md",
         "de": REPO_ROOT / "docs" / "hardware" / "interconnects.de.md"}
HEADINGS = {"en": "## Power and cooling: from the chip to the rack { #power }",
            "de": "## Leistung und Kühlung: vom Chip zum Rack { #power }"}
# The primary sources the section's system and rack figures rest on.
SOURCES = {
    "https://docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html",
    "https://docs.nvidia.com/dgx/dgxgb200-user-guide/hardware.html",
    "https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-gb200/latest/"
    "dgx-superpod-architecture.html",
    "https://intelligence.uptimeinstitute.com/resource/uptime-institute-global-data-center-survey-2023",
    "https://intelligence.uptimeinstitute.com/resource/large-data-centers-are-mostly-more-efficient-analysis-confirms",
}
# The energy example: Llama 3.1 70B in FP8 on eight H100 SXM with vLLM, one sequence against 64.
EXAMPLE = {"model": "llama-3.1-70b", "weights": "fp8", "engine": "vllm", "num_devices": 8, "context": 2048}
BATCHES = (1, 64)
# The chips whose TDP the section names.
TDP_DEVICES = {"a100-sxm-80gb", "h100-sxm", "b200", "gb200", "gb300", "mi355x"}


@pytest.fixture(scope="module")
def catalog(dataset):
    return Catalog.from_dict(export_dataset(dataset))


def page(lang: str) -> str:
    return PAGES[lang].read_text(encoding="utf-8")


def section(lang: str) -> str:
    """The section's Markdown, from its heading to the next level-two heading."""
    markdown = page(lang)
    start = markdown.index(HEADINGS[lang] + "\n")
    return markdown[start:markdown.index("\n## ", start + 1) + 1]


def cited(markdown: str) -> set[str]:
    return set(re.findall(r"\]\((https?://[^)\s]+)\)", markdown))


# --- Hand-typed TDP figures ---------------------------------------------------------------------------------------

_SPACE = r"[ \t\u00a0\u202f]*"


def _digits(value: float) -> list[str]:
    """The ways a writer types ``value`` in English or German: 1000, 1,000, 1.000, 1 000; 1.2 and 1,2."""
    if float(value).is_integer():
        n = int(value)
        plain = str(n)
        if n < 1000:
            return [plain]
        head, tail = plain[:-3], plain[-3:]
        return [plain] + [f"{head}{sep}{tail}" for sep in (",", ".", " ", "\u00a0", "\u202f")]
    text = f"{value:g}"
    return [text, text.replace(".", ",")]


def hand_typed_tdp(prose: str, tdps: dict[str, float]) -> list[tuple[str, str]]:
    """(device, match) for every TDP of ``tdps`` written as a number with W or kW in ``prose``."""
    found = []
    for device, watts in tdps.items():
        for number, unit in [(d, "W") for d in _digits(watts)] + [(d, "kW") for d in _digits(watts / 1000)]:
            pattern = rf"(?<![\w.,]){re.escape(number)}{_SPACE}{unit}(?![\w/])"
            found += [(device, m.group(0)) for m in re.finditer(pattern, prose)]
    return found


def prose_without_macros(markdown: str) -> str:
    """The section's text without macro calls (their figures come from the data set) and without URLs."""
    text = re.sub(r"\{\{.*?\}\}", " ", markdown, flags=re.S)
    return re.sub(r"\]\([^)]*\)", "]", text)


def test_the_hand_typed_tdp_check_finds_typed_figures():
    tdps = {"h100-sxm": 700, "b200": 1000, "gb200": 1200}
    assert hand_typed_tdp("an H100 draws 700 W", tdps) == [("h100-sxm", "700 W")]
    assert hand_typed_tdp("eine B200 nimmt 1.000\u00a0W auf", tdps) == [("b200", "1.000\u00a0W")]
    assert hand_typed_tdp("a B200 at 1,000W", tdps) == [("b200", "1,000W")]
    assert hand_typed_tdp("die GPU im NVL72 mit 1,2\u00a0kW", tdps) == [("gb200", "1,2\u00a0kW")]
    # system and rack figures, other units and larger numbers are not a chip's TDP
    assert hand_typed_tdp("14.3 kW, 3.3 kW, 20 kW, 150 kW, 2700 W, 700 GB/s, 1200 MW", tdps) == []


@pytest.mark.parametrize("lang", PAGES)
def test_the_section_exists_before_the_sources(lang):
    markdown = page(lang)
    assert markdown.count(HEADINGS[lang] + "\n") == 1
    assert markdown.index(HEADINGS[lang]) < markdown.rindex("\n## ")  # the sources stay the last section
    assert "## Sources" in sources_section(markdown) or "## Quellen" in sources_section(markdown)


def test_both_languages_cite_the_same_sources_and_list_them():
    assert cited(section("en")) == cited(section("de")) == SOURCES
    for lang in PAGES:
        listed = cited(sources_section(page(lang)))
        assert SOURCES <= listed, (lang, SOURCES - listed)


def test_both_languages_ask_the_same_questions():
    assert macro_calls(section("en")) == macro_calls(section("de"))


@pytest.mark.parametrize("lang", PAGES)
def test_the_calculator_links_are_accepted_and_are_the_example(catalog, lang):
    links = calculator_calls(section(lang))
    assert sorted(int(p["batch"]) for _, p in links) == list(BATCHES)
    for command, params in links:
        assert command == "speed"
        assert params["device"] == "h100-sxm" and params["workload"] == "decode"
        assert {k: params[k] for k in EXAMPLE} == {k: str(v) for k, v in EXAMPLE.items()}
        assert_accepted(command, params, catalog, lang)


def test_the_energy_figures_are_the_linked_estimates(catalog):
    """The joules per token in the text are the speed calculator's for the linked inputs, and a batch of 64 needs
    far less energy per token than one sequence at the same power."""
    from atlas.core.calculators.api import handle

    calls = [(pos, kw) for name, pos, kw in macro_calls(section("en")) if name == "joules_per_token"]
    assert [kw["batch"] for _, kw in calls] == list(BATCHES)
    energy = {}
    for pos, kw in calls:
        assert pos == ("h100-sxm",) and {k: kw[k] for k in EXAMPLE} == EXAMPLE
        params = {k: str(v) for k, v in {**kw, "device": pos[0], "workload": "decode"}.items()}
        response = handle({"command": "speed", "params": params, "lang": "en"}, catalog)
        assert response["ok"], response
        energy[kw["batch"]] = response["result"]["device"]["energy"]
    one, many = energy[1], energy[64]
    assert one["watts"] == many["watts"] == 8 * one["watts_per_device"]
    assert many["joules_per_token"] < one["joules_per_token"] / 10
    for e in (one, many):
        assert e["kwh_per_million_tokens"] == pytest.approx(e["joules_per_token"] / 3.6, rel=1e-12)
    for lang, words in (("en", ("joules per token", "kilowatt-hours")), ("de", ("Joule pro Token", "Kilowattstunden"))):
        for word in words:
            assert word in section(lang), (lang, word)


@pytest.mark.parametrize("lang", PAGES)
def test_chip_tdp_comes_from_the_data_set(dataset, lang):
    text = section(lang)
    named = {pos[0] for name, pos, _ in macro_calls(text) if name == "spec" and pos[1] == "tdp"}
    assert named == TDP_DEVICES
    tdps = {i: d["power"]["tdp_w"] for i, d in dataset.devices.items() if (d.get("power") or {}).get("tdp_w")}
    assert TDP_DEVICES <= set(tdps)
    assert hand_typed_tdp(prose_without_macros(text), tdps) == []


def test_the_german_section_follows_the_typography():
    source = "---\nrender_macros: true\n---\n" + section("de")
    prose = markdown_prose(source)
    assert not check_text(prose), check_text(prose)
    assert not check_source_units(prose), check_source_units(prose)
    assert not check_banned(markdown_words(source)), check_banned(markdown_words(source))
    assert "\u00a0kW" in section("de") and " kW" not in section("de")


@pytest.mark.parametrize("lang, words", [("en", "power usage effectiveness (PUE)"),
                                         ("de", "Power Usage Effectiveness (PUE)")])
def test_the_buildings_share_is_the_sourced_pue(lang, words):
    """The section says what the calculator's energy leaves out for the building: the industry's average PUE as the
    Uptime Institute states it (1.58 in 2023, 1.55-1.59 since about 2020), the extra share computed from it."""
    text = section(lang)
    assert words in " ".join(text.split())
    for figure in ("{{ num(1.55, 2) }}", "{{ num(1.59, 2) }}", "{{ num(1.58, 2) }}", "{{ num(1.58 - 1, 2) }}"):
        assert figure in text, figure
    pue = "https://intelligence.uptimeinstitute.com/resource/large-data-centers-are-mostly-more-efficient-analysis-confirms"
    assert pue in cited(text) and pue in cited(sources_section(page(lang)))

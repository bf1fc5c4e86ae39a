"""The estimate macros put the estimators' own answers into prose: every
number here is compared with a direct call of ``atlas.core.calculators.api.handle``."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from atlas.core import l10n
from atlas.core.calculators.api import handle  # noqa: E402
from atlas.core.calculators.catalog import Catalog  # noqa: E402
from atlas.core.calculators.inputs import BY_NAME
from atlas.data.export import export_dataset  # noqa: E402
from conftest import REPO_ROOT
from macros import estimate_macros as em


@pytest.fixture(scope="module")
def catalog(dataset):
    return Catalog.from_dict(export_dataset(dataset))


def api(catalog, command, lang="en", **params):
    response = handle({"command": command, "params": params, "lang": lang}, catalog)
    assert response["ok"], response
    return response["result"]


def test_rejected_request_stops_with_the_estimators_message(catalog):
    with pytest.raises(em.EstimateError, match="llama-9"):
        em.chips_sentence(catalog, "groq-lpu", {"model": "llama-9", "weights": "int8"}, "en")


@pytest.mark.parametrize("lang, sep", [("en", "."), ("de", ",")])
def test_gib_text_is_localized(lang, sep):
    assert em.gib_text(42.46, lang) == f"42{sep}5\u00a0GiB"


def test_fit_count_reads_the_estimators_fits_list(catalog):
    result = api(catalog, "vram", model="llama-3.1-70b", weights="bf16", context=8192, batch=16)
    expected = next(e["count"] for e in result["fits"] if e["device"] == "h100-sxm")
    assert em.fit_count(result, "h100-sxm") == expected >= 2
    with pytest.raises(em.EstimateError, match="not in the estimate"):
        em.fit_count(result, "no-such-device")


def localized(count: int, lang: str) -> str:
    return f"{count:,}" if lang == "en" else f"{count:,}".replace(",", ".")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_chips_sentence_states_the_estimators_count_and_the_weights(catalog, lang):
    result = api(catalog, "vram", model="llama-3.1-70b", weights="int8")
    count = next(e["count"] for e in result["fits"] if e["device"] == "groq-lpu")
    text = em.chips_sentence(catalog, "groq-lpu", {"model": "llama-3.1-70b", "weights": "int8"}, lang)
    assert localized(count, lang) in text and "INT8" in text and "Llama 3.1 70B" in text
    assert em.gib_text(result["breakdown"]["weights_gib"], lang) in text
    assert localized(result["context"], lang) in text  # the context the count holds a KV cache for
    assert count > 100  # a 70B model needs racks of SRAM-only chips
    batched = em.chips_sentence(catalog, "groq-lpu", {"model": "llama-3.1-70b", "weights": "int8", "batch": 4}, lang)
    more = next(e["count"] for e in api(catalog, "vram", model="llama-3.1-70b", weights="int8", batch=4)["fits"]
                if e["device"] == "groq-lpu")
    assert more > count and localized(more, lang) in batched
    assert ("4 sequences" if lang == "en" else "4 Sequenzen") in batched


@pytest.mark.parametrize("src", ["guide/use-cases.md", "guide/use-cases.de.md"])
def test_calculator_link_is_relative_and_prefilled(src):
    href = em.calculator_href("vram", {"model": "llama-3.1-70b", "weights": "q4_k_m", "context": 8192}, src)
    assert href == "../calculators/vram.md?model=llama-3.1-70b&weights=q4_k_m&context=8192"
    with pytest.raises(ValueError, match="unknown calculator"):
        em.calculator_href("price", {}, src)


def built(site, page, lang):
    base = site / "de" if lang == "de" else site
    return (base / page / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_use_cases_page_shows_the_estimators_numbers(built_site, catalog, lang):
    html = built(built_site, "guide/use-cases", lang)
    total = api(catalog, "vram", lang, model="llama-3.1-70b", weights="q4_k_m", context=8192, batch=1)["total_gib"]
    assert em.gib_text(total, lang) in html
    speed = api(catalog, "speed", lang, model="llama-3.1-8b", weights="bf16", workload="decode",
                device="h100-sxm", baseline="a100-sxm-80gb")["speedup"]
    assert 1.2 < speed < 2.0  # decode is memory-bound: near the bandwidth ratio 3,350 / 2,039 GB/s
    assert l10n.format_number(speed, lang, 2) + "×" in html


@pytest.mark.parametrize("lang", ["en", "de"])
def test_use_cases_links_open_the_calculator_prefilled(built_site, lang):
    html = built(built_site, "guide/use-cases", lang)
    article = html[html.index("<article"): html.index("</article>")]  # not the navigation's plain link
    hrefs = re.findall(r'href="([^"]*calculators/vram/[^"]*)"', article)
    if not em.calculator_page_exists("vram", REPO_ROOT / "docs"):
        assert not hrefs  # no dangling link before the calculator page exists
        return
    assert hrefs, "no link to the memory calculator"
    prefilled = [h for h in hrefs if "?" in h]
    assert prefilled, "no pre-filled link to the memory calculator"
    hrefs = prefilled
    query = parse_qs(urlsplit(hrefs[0].replace("&amp;", "&")).query)
    assert query["model"] == ["llama-3.1-8b"] and query["mode"] == ["full"]
    page_dir = built_site / ("de" if lang == "de" else "") / "guide" / "use-cases"
    target = (page_dir / urlsplit(hrefs[0]).path).resolve()
    assert (target / "index.html").is_file(), f"calculator page {target} does not exist"


def test_calculator_page_check_knows_the_calculators(tmp_path):
    assert not em.calculator_page_exists("vram", tmp_path)
    (tmp_path / "calculators").mkdir()
    (tmp_path / "calculators" / "vram.md").write_text("# Memory", encoding="utf-8")
    assert em.calculator_page_exists("vram", tmp_path)
    with pytest.raises(ValueError, match="unknown calculator"):
        em.calculator_page_exists("price", tmp_path)


@pytest.mark.parametrize("lang", ["en", "de"])
def test_asic_page_sizes_groq_for_llama_70b(built_site, catalog, lang):
    html = built(built_site, "hardware/asics", lang)
    groq = html[html.index('id="groq"'):html.index('id="cerebras"')]
    result = api(catalog, "vram", model="llama-3.1-70b", weights="int8")
    count = next(e["count"] for e in result["fits"] if e["device"] == "groq-lpu")
    # the whole replica at 4,096 tokens (weights, KV cache, workspace; no GPU runtime overhead on
    # SRAM-only chips) on 0.215 GiB each: 322 chips, of which the 67.7 GiB of weights fill 315
    assert count == 322
    assert re.search(rf"\b{re.escape(localized(count, lang))}\b", groq)
    assert em.gib_text(result["breakdown"]["weights_gib"], lang) in groq
    # the link opens the memory calculator with the same estimate
    hrefs = [h.replace("&amp;", "&") for h in re.findall(r'href="([^"]*calculators/vram/\?[^"]*)"', groq)]
    queries = [parse_qs(urlsplit(h).query) for h in hrefs]
    assert {"model": ["llama-3.1-70b"], "weights": ["int8"]} in queries


@pytest.mark.parametrize("lang", ["en", "de"])
def test_use_cases_page_has_the_memory_chart(built_site, lang):
    html = built(built_site, "guide/use-cases", lang)
    assert html.count('data-chart="memory-breakdown"') == 1



@pytest.mark.parametrize("lang", ["en", "de"])
def test_tokens_per_s_reads_total_or_per_sequence_speed(catalog, lang):
    """tokens_per_s(device, per_sequence=False, **params): the estimators' decode speed for ``batch`` concurrent
    sequences, in total or per sequence; without ``batch`` the single-stream speed as before."""
    params = {"model": "llama-3.1-8b", "weights": "fp8", "engine": "vllm", "context": 2048}
    single = api(catalog, "speed", lang, **params, workload="decode", device="h100-sxm")["device"]
    batched = api(catalog, "speed", lang, **params, workload="decode", device="h100-sxm", batch=64)["device"]
    assert em.speed_text(catalog, "h100-sxm", params, lang) == l10n.format_significant(single["tokens_per_s"], lang, 3)
    assert em.speed_text(catalog, "h100-sxm", {**params, "batch": 64}, lang) == l10n.format_significant(
        batched["tokens_per_s"], lang, 3)
    assert em.speed_text(catalog, "h100-sxm", {**params, "batch": 64}, lang, per_sequence=True) == (
        l10n.format_significant(batched["tokens_per_s_per_sequence"], lang, 3))
    # What the serving page says about the numbers: more in total, less for each sequence.
    assert batched["tokens_per_s"] == pytest.approx(64 * batched["tokens_per_s_per_sequence"])
    assert batched["tokens_per_s"] > 10 * single["tokens_per_s"]
    assert batched["tokens_per_s_per_sequence"] < single["tokens_per_s"]
    assert single["tokens_per_s_per_sequence"] == single["tokens_per_s"]
    assert "per_sequence" not in BY_NAME  # the macro's own keyword never shadows a calculator parameter

"""The quantisation page (docs/guide/quantisation*.md): its tables show what the calculators compute and the data
set holds, in both languages, and every calculator link on it is one the calculators accept."""

from __future__ import annotations

import html as htmllib
import re
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml

from atlas.core import l10n
from atlas.core.calculators import defaults as d
from atlas.core.calculators.api import handle
from atlas.core.calculators.catalog import Catalog
from atlas.core.calculators.inputs import BY_NAME, parse
from atlas.data import quantisation as q
from atlas.data.export import export_dataset
from conftest import REPO_ROOT

PAGE = "guide/quantisation"


@pytest.fixture(scope="module")
def catalog(dataset):
    return Catalog.from_dict(export_dataset(dataset))


def page_html(site, lang: str) -> str:
    path = (site / "de" if lang == "de" else site) / "guide" / "quantisation" / "index.html"
    text = path.read_text(encoding="utf-8")
    return text[text.find("<article"):text.find("</article>")]


def section(html: str, anchor: str) -> str:
    start = html.index(f'id="{anchor}"')
    end = re.compile(r"<h2\b").search(html, start + 1)
    return html[start:end.start() if end else len(html)]


def cell_text(cell: str) -> str:
    return htmllib.unescape(re.sub(r"<[^>]+>", "", cell)).strip()


def table_rows(html: str) -> list[list[str]]:
    """Body rows of the first table in ``html``, each a list of raw cell HTML."""
    table = html[html.index("<table"):html.index("</table>")]
    body = table[table.index("<tbody>"):]
    return [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S) for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def calculator_links(html: str) -> list[tuple[str, dict]]:
    out = []
    for href in re.findall(r'href="([^"]+)"', html):
        parts = urlsplit(htmllib.unescape(href))
        match = re.search(r"(?:^|/)calculators/(vram|speed)/$", parts.path)
        if match and not parts.scheme and parts.query:
            out.append((match.group(1), {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}))
    return out


def fmt(value: float, lang: str, decimals: int) -> str:
    return l10n.format_number(value, lang, decimals, trim=False)


def gib(value: float, lang: str) -> str:
    space = "\u00a0"  # no-break space before the unit (narrow only before % in German, CONTRIBUTING.de.md)
    return f"{fmt(value, lang, 2)}{space}{l10n.t(lang, 'unit.gib')}"


def vram(catalog, params: dict, lang: str) -> dict:
    answer = handle({"command": "vram", "params": params, "lang": lang}, catalog)
    assert answer["ok"], answer
    return answer["result"]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_format_table_shows_the_calculators_bits_and_sizes(built_site, catalog, lang):
    rows = table_rows(section(page_html(built_site, lang), "bits"))
    assert [cell_text(r[0]) for r in rows] == [l10n.t(lang, f"format.{name}") for name in q.FORMATS]
    for name, cells in zip(q.FORMATS, rows, strict=True):
        # The figures the memory calculator computes for the format, asked the way the page's link asks it.
        result = vram(catalog, {"model": q.REFERENCE_MODEL, "weights": name}, lang)
        assert cell_text(cells[2]) == fmt(result["bits_per_weight"], lang, 2), name
        assert cell_text(cells[3]) == fmt(result["average_bits_per_weight"], lang, 2), name
        assert cell_text(cells[4]) == gib(result["breakdown"]["weights_gib"], lang), name
        links = calculator_links(cells[4])
        assert links == [("vram", {"model": q.REFERENCE_MODEL, "weights": name})], name


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_known_bits_per_weight_on_the_page(built_site, lang):
    """Spot checks against the sources the defaults cite: Q4_K_M averages 4.89 bits on Llama-3-8B (llama.cpp's
    quantize README: 4.8944); MXFP4 is 4.25 (gpt-oss model card); GPTQ with groups of 128 is 4 + 20/128."""
    rows = {cell_text(r[0]): r for r in table_rows(section(page_html(built_site, lang), "bits"))}
    assert cell_text(rows["Q4_K_M"][2]) == ("4.89" if lang == "en" else "4,89")
    assert cell_text(rows["MXFP4"][2]) == ("4.25" if lang == "en" else "4,25")
    assert cell_text(rows[l10n.t(lang, "format.gptq")][2]) == fmt(4 + 20 / 128, lang, 2)


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_block_table_follows_ggml_types(built_site, lang):
    html = section(page_html(built_site, lang), "gguf")
    rows = table_rows(html)
    assert [cell_text(r[0]) for r in rows] == list(q.BLOCK_TYPES)
    for cells in rows:
        ggml = d.GGML_TYPES[cell_text(cells[0])]
        assert [cell_text(c) for c in cells[1:]] == [fmt(ggml.block, lang, 0), fmt(ggml.block_bytes, lang, 0),
                                                    fmt(8 * ggml.block_bytes / ggml.block, lang, 4)]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_kv_table_shows_the_calculators_cache_sizes(built_site, catalog, lang):
    rows = table_rows(section(page_html(built_site, lang), "kv-cache"))
    assert len(rows) == len(q.KV_TABLE_FORMATS)
    for name, cells in zip(q.KV_TABLE_FORMATS, rows, strict=True):
        params = {"model": q.REFERENCE_MODEL, "weights": "q4_k_m", "kv_cache": name, "context": "32768", "batch": "1"}
        result = vram(catalog, params, lang)
        assert cell_text(cells[1]) == fmt(d.KV_FORMATS[name], lang, 4)
        assert cell_text(cells[2]) == gib(result["breakdown"]["kv_cache_gib"], lang)
        assert cell_text(cells[3]) == gib(result["total_gib"], lang)
        assert calculator_links(cells[3]) == [("vram", params)]
    # FP8 halves the FP16 cache, Q4_0 stores 18 bytes per 32 values (ggml-common.h block_q4_0).
    sizes = {name: vram(catalog, {"model": q.REFERENCE_MODEL, "kv_cache": name, "context": 32768}, lang)
             for name in ("fp16", "fp8", "q4_0")}
    kv = {k: v["breakdown"]["kv_cache_gib"] for k, v in sizes.items()}
    assert kv["fp8"] == pytest.approx(kv["fp16"] / 2) and kv["q4_0"] == pytest.approx(kv["fp16"] * 18 / 64)


def matrix_precisions(device: dict) -> set[str]:
    return {c["precision"] for c in device.get("compute", []) if c.get("unit") == "matrix"}


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_native_precision_table_follows_the_data_set(built_site, dataset, lang):
    rows = table_rows(section(page_html(built_site, lang), "hardware"))
    shown = {(cell_text(r[0]), cell_text(r[1])): [cell_text(c) for c in r[2:]] for r in rows}
    by_arch: dict[tuple, list] = {}
    for dev in dataset.devices.values():
        by_arch.setdefault((dev["vendor"], q.architecture(dev)), []).append(dev)
    for key, devices in by_arch.items():
        counts = [sum(p in matrix_precisions(dev) for dev in devices) for p in q.LOW_PRECISIONS]
        if not any(counts):
            assert key not in shown, key
            continue
        n = len(devices)
        assert shown[key][0] == fmt(n, lang, 0), key
        assert shown[key][1:] == ["–" if c == 0 else f"✓ {fmt(c, lang, 0)}/{fmt(n, lang, 0)}" for c in counts], key
    assert len(shown) == len(rows)
    # What the page's prose says about the table: FP4 matrix figures only from Blackwell and CDNA 4 among the GPUs
    # that also state FP8, FP8 from Ada, Hopper and CDNA 3, none on Ampere.
    fp4 = q.LOW_PRECISIONS.index("fp4") + 1
    fp8 = q.LOW_PRECISIONS.index("fp8") + 1
    assert shown[("NVIDIA", "Blackwell")][fp4].startswith("✓") and shown[("AMD", "CDNA 4")][fp4].startswith("✓")
    for key in (("NVIDIA", "Hopper"), ("NVIDIA", "Ada Lovelace"), ("AMD", "CDNA 3")):
        assert shown[key][fp8].startswith("✓") and shown[key][fp4] == "–", key
    assert shown[("NVIDIA", "Ampere")][fp8] == "–"


def test_perplexity_deltas_are_the_quoted_ones():
    """LLAMA_CPP_PPL holds exactly the figures its source quote gives, type by type."""
    quoted = dict(re.findall(r'(Q\d_[A-Z0-9_]+) "[^"]*?\+(\d+\.\d+) ppl', q.LLAMA_CPP_PPL_SOURCE.says))
    assert {k.lower(): float(v) for k, v in quoted.items()} == q.LLAMA_CPP_PPL


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_perplexity_table(built_site, lang):
    rows = table_rows(section(page_html(built_site, lang), "quality"))
    assert len(rows) == len(q.LLAMA_CPP_PPL)
    seen = set()
    for cells in rows:
        name = next(k for k in q.LLAMA_CPP_PPL if l10n.t(lang, f"format.{k}") == cell_text(cells[0]))
        seen.add(name)
        # The calculators' bits on llama.cpp's Llama-3-8B are the ones llama.cpp publishes for its files.
        assert cell_text(cells[1]) == fmt(d.GGUF_REFERENCE_BITS[name], lang, 2)
        assert cell_text(cells[2]) == "+" + fmt(q.LLAMA_CPP_PPL[name], lang, 4)
    assert seen == set(q.LLAMA_CPP_PPL)


def inference_case(source: str, **match) -> dict:
    entry = yaml.safe_load((REPO_ROOT / "data" / "inference" / f"{source}.yaml").read_text(encoding="utf-8"))
    cases = [{**entry["defaults"], **c} for c in entry["cases"]]
    found = [c for c in cases if all(c.get(k) == v for k, v in match.items())]
    assert len(found) == 1, (source, match, len(found))
    return found[0]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_measurements_on_the_page_are_the_data_sets(built_site, lang):
    text = cell_text(section(page_html(built_site, lang), "decode"))
    src = "xiongjiedai-gpu-benchmarks-llama3"
    base = {"device": "rtx-4090", "model": "llama-3-8b", "num_devices": 1}
    q4 = inference_case(src, **base, weights="q4_k_m", generated_tokens=512)["decode_tokens_per_s"]
    f16 = inference_case(src, **base, weights="fp16", generated_tokens=512)["decode_tokens_per_s"]
    for value in (q4, f16):
        assert l10n.format_number(value, lang, 1) in text
    assert l10n.format_number(q4 / f16, lang, 2) in text
    for weights in ("q4_k_m", "fp16"):
        pp = inference_case(src, **base, weights=weights, prompt_tokens=512)["prefill_tokens_per_s"]
        assert l10n.format_number(pp, lang, 0) in text
    # The page's claim: the quantised model decodes faster and processes the prompt slower.
    assert q4 > f16
    assert (inference_case(src, **base, weights="q4_k_m", prompt_tokens=512)["prefill_tokens_per_s"]
            < inference_case(src, **base, weights="fp16", prompt_tokens=512)["prefill_tokens_per_s"])
    kv_text = cell_text(section(page_html(built_site, lang), "kv-cache"))
    for kv in ("fp8", "bf16"):
        value = inference_case("vllm-blog-fp8-kv-cache-h100", model="llama-3.1-8b", kv_cache=kv)["decode_tokens_per_s"]
        assert l10n.format_number(value, lang, 1) in kv_text


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_speed_estimates_on_the_page_are_the_calculators(built_site, catalog, lang):
    text = cell_text(section(page_html(built_site, lang), "decode"))
    speeds = {}
    for weights in ("q4_k_m", "fp16"):
        for workload, extra in (("decode", {}), ("prefill", {"context": 512})):
            params = {"model": "llama-3-8b", "weights": weights, "workload": workload, "device": "rtx-4090", **extra}
            answer = handle({"command": "speed", "params": params, "lang": lang}, catalog)
            assert answer["ok"], answer
            speeds[weights, workload] = answer["result"]["device"]["tokens_per_s"]
            assert l10n.format_significant(speeds[weights, workload], lang, 3) in text, (weights, workload)
    # The prose: the estimate, like the measurement, has Q4_K_M faster at decode and slower at prefill.
    assert speeds["q4_k_m", "decode"] > speeds["fp16", "decode"]
    assert speeds["q4_k_m", "prefill"] < speeds["fp16", "prefill"]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_every_calculator_link_is_accepted_by_the_calculators(built_site, catalog, lang):
    links = calculator_links(page_html(built_site, lang))
    assert len(links) >= len(q.FORMATS) + len(q.KV_TABLE_FORMATS) + 4
    commands = set()
    for command, params in links:
        assert set(params) <= set(BY_NAME), params
        parse(command, params, catalog)  # the calculators' own parser: raises ValidationError on a bad link
        assert handle({"command": command, "params": params, "lang": lang}, catalog)["ok"], params
        commands.add(command)
    assert commands == {"vram", "speed"}
    # The KV-cache section links a quantised cache, the NF4 section QLoRA.
    assert any(c == "vram" and p.get("kv_cache") == "q8_0" and p.get("batch") == "8" for c, p in links)
    assert any(c == "vram" and p.get("mode") == "qlora" for c, p in links)


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_page_has_no_inline_styles(built_site, lang):
    """The site's Content-Security-Policy (style-src 'self') blocks style attributes, e.g. aligned Markdown tables."""
    assert "style=" not in page_html(built_site, lang)


def test_link_parser_refuses_unknown_parameters(catalog):
    """The check above can fail: a misspelt parameter or value is a ValidationError."""
    from atlas.core.calculators.messages import ValidationError

    with pytest.raises(ValidationError):
        parse("vram", {"model": "llama-3.1-8b", "kv_cache_type": "q8_0"}, catalog)
    with pytest.raises(ValidationError):
        parse("vram", {"model": "llama-3.1-8b", "kv_cache": "q3_k"}, catalog)
    assert calculator_links('<a href="../../calculators/vram/?model=x&amp;weights=q4_0">a</a>') == [
        ("vram", {"model": "x", "weights": "q4_0"})]


def test_german_page_typography():
    """No-break space between a number and its unit, a narrow one before a percent sign (CONTRIBUTING.de.md);
    no English decimal points."""
    text = re.sub(r"\{\{.*?\}\}", " ", (REPO_ROOT / "docs" / "guide" / "quantisation.de.md").read_text(encoding="utf-8"),
                  flags=re.S)
    prose = text.split("## Quellen")[0]
    assert not re.search(r"\d[ \u00a0]?%|\d[ \u202f]?(?:Bit\b|Byte\b|GiB\b|Tokens/s)", prose)
    assert re.search(r"\d\u00a0Bit\b", prose) and re.search(r"\d\u202f%", prose)
    # German decimals: "0,5", never "0.5" (thousands "32.768" and model names "Llama 3.1" aside).
    numbers = re.sub(r"`[^`]*`|\(https?://[^)]*\)|\d+\.\d{3}\b|Llama[- ]\d\.\d", "", prose)
    assert not re.search(r"\b\d+\.\d+\b", numbers)


@pytest.mark.browser
@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_kv_cache_link_opens_the_calculator_with_that_cache(page, site_server, lang):
    """Follow the page's link in a real browser: the calculator reads every parameter and shows what the command
    line computes for them (the KV-cache link: 70B, Q4_K_M, a Q8_0 cache, 32,768 tokens, 8 sequences)."""
    from test_browser_calculators import assert_matches_cli, wait_status

    page.goto(f"{site_server}{'/de' if lang == 'de' else ''}/guide/quantisation/")
    link = page.locator("article a[href*='kv_cache=q8_0'][href*='batch=8']")
    assert link.count() == 1
    link.click()
    page.wait_for_url("**/calculators/vram/?*")
    assert wait_status(page, "ready", "invalid", "failed") == "ready"
    params = {k: v[-1] for k, v in parse_qs(urlsplit(page.url).query).items()}
    assert params == {"model": "llama-3.1-70b", "weights": "q4_k_m", "kv_cache": "q8_0", "context": "32768",
                      "batch": "8"}
    assert page.input_value("select[name='kv_cache']") == "q8_0"
    assert_matches_cli(page, "vram", params, lang)
    assert page.console_errors == []

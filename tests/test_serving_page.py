"""The serving page (docs/guide/serving*.md): both languages ask the estimators the same questions, cite the papers
they rely on, link the calculators with inputs the calculators accept, and its concurrency table shows what the speed
model computes: throughput per GPU rising with concurrency while each sequence's speed falls."""

from __future__ import annotations

import ast
import html as htmllib
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from atlas.core import l10n
from atlas.core.calculators.api import handle
from atlas.core.calculators.catalog import Catalog
from atlas.core.calculators.inputs import BY_NAME, parse
from atlas.data.export import export_dataset
from conftest import REPO_ROOT
from macros import estimate_macros as em

PAGE = "guide/serving"
SOURCE = {"en": REPO_ROOT / "docs" / "guide" / "serving.md", "de": REPO_ROOT / "docs" / "guide" / "serving.de.md"}
MACRO = re.compile(r"\{\{\s*(\w+)\((.*?)\)\s*\}\}", re.S)

# The concurrency table: one model, two devices, four concurrencies (docs/guide/serving*.md#concurrency).
TABLE_DEVICES = ("h100-sxm", "rtx-5090")
TABLE_BATCHES = (1, 4, 16, 64)
TABLE_PARAMS = {"model": "llama-3.1-8b", "weights": "fp8", "engine": "vllm", "context": 2048}

# Papers and documents the page's claims rest on: Orca (continuous batching), PagedAttention (Kwon et al., SOSP
# 2023), SGLang (RadixAttention), speculative decoding (Leviathan et al.; Chen et al.), DeepSeek-V3 (MTP), KIVI and
# KVQuant (KV-cache quantisation), vLLM's documentation on when speculative decoding helps.
REQUIRED_SOURCES = (
    "https://www.usenix.org/conference/osdi22/presentation/yu",
    "https://arxiv.org/abs/2309.06180",
    "https://arxiv.org/abs/2312.07104",
    "https://arxiv.org/abs/2211.17192",
    "https://arxiv.org/abs/2302.01318",
    "https://arxiv.org/abs/2412.19437",
    "https://arxiv.org/abs/2402.02750",
    "https://arxiv.org/abs/2401.18079",
    "https://docs.vllm.ai/en/latest/features/speculative_decoding/",
)


@pytest.fixture(scope="module")
def catalog(dataset):
    return Catalog.from_dict(export_dataset(dataset))


def text(lang: str) -> str:
    return SOURCE[lang].read_text(encoding="utf-8")


def argument(node: ast.expr):
    """A literal argument's value; an expression (``num((1 - 0.8 ** 5) / (1 - 0.8), 2)``) as its source text."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        return ast.unparse(node)


def macro_calls(markdown: str) -> list[tuple[str, tuple, dict]]:
    """(name, positional arguments, keyword arguments) of every macro call, in order; link texts left out."""
    calls = []
    for name, args in MACRO.findall(markdown):
        call = ast.parse(f"f({args})", mode="eval").body
        positional = tuple(argument(a) for a in call.args)
        keywords = {k.arg: argument(k.value) for k in call.keywords if k.arg != "text"}
        calls.append((name, positional, keywords))
    return calls


def calculator_calls(markdown: str) -> list[tuple[str, dict]]:
    """(command, params as the link's query carries them) of every calc_link on the page."""
    return [(pos[0], {k: str(v) for k, v in kw.items()}) for name, pos, kw in macro_calls(markdown)
            if name == "calc_link"]


def anchors(markdown: str) -> list[tuple[str, str]]:
    return re.findall(r"^(#+) .*\{ #([a-z0-9-]+) \}$", markdown, re.M)


def test_macro_parser_reads_calls_and_drops_link_texts():
    calls = macro_calls('a {{ calc_link("speed", text="x, y", model="m", batch=8) }} b {{ num(1 / 2, 1) }}')
    assert calls == [("calc_link", ("speed",), {"model": "m", "batch": 8}), ("num", ("1 / 2", 1), {})]


def test_both_languages_have_the_same_sections_and_ask_the_same_questions():
    """Same headings (level and anchor) and the same macro calls in the same order: every number on the German page
    is the one on the English page, in the other number format."""
    assert anchors(text("en")) == anchors(text("de"))
    assert [a for _, a in anchors(text("en"))] == [
        "engines", "prefill-decode", "batching", "concurrency", "prefix-caching", "speculative", "kv-quantisation",
        "choosing", "laptop", "workstation", "server"]
    strip = re.compile(r'text="[^"]*",\s*')
    en = [strip.sub("", m.group(0)) for m in MACRO.finditer(text("en"))]
    de = [strip.sub("", m.group(0)) for m in MACRO.finditer(text("de"))]
    assert en == de


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_page_cites_the_papers_it_relies_on(lang):
    markdown = text(lang)
    sources = markdown[markdown.rindex("\n## "):]
    for url in REQUIRED_SOURCES:
        assert f"({url})" in sources, url
    assert "SOSP 2023" in sources and "Kwon" in sources
    # The quoted figures stand next to their citation in the prose.
    prose = " ".join(markdown[:markdown.rindex("\n## ")].split())
    for cited in ("Kwon", "Leviathan", "Chen", "DeepSeek-AI", "Yu", "Zheng", "Liu", "Hooper", "Dai"):
        assert re.search(rf"\({cited}(?: et al\.| u\. a\.)?, \d{{4}}\)", prose), cited


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_page_links_the_calculators_and_the_guide_pages(lang):
    markdown = text(lang)
    for target in ("quantisation.md#kv-cache", "quantisation.md#hardware", "decide.md", "../calculators/speed.md",
                   "../calculators/accuracy.md"):
        assert f"]({target}" in markdown, target
    links = calculator_calls(markdown)
    speed = [p for c, p in links if c == "speed"]
    # the speed calculator with a batch and an engine, and tensor parallelism; the memory calculator with a cache
    assert any(p.get("batch") == "64" and p.get("engine") == "vllm" for p in speed)
    assert any(p.get("split") == "tensor" and p.get("num_devices") == "2" for p in speed)
    assert any(c == "vram" and p.get("kv_cache") == "fp8" for c, p in links)
    serving = (REPO_ROOT / "docs" / "guide" / ("decide.md" if lang == "en" else "decide.de.md")).read_text("utf-8")
    assert "](serving.md)" in serving


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_every_calculator_link_is_accepted_by_the_calculators(catalog, lang):
    links = calculator_calls(text(lang))
    assert len(links) >= 7
    for command, params in links:
        assert set(params) <= set(BY_NAME), params
        parse(command, params, catalog)  # the calculators' own parser raises ValidationError on a bad link
        assert handle({"command": command, "params": params, "lang": lang}, catalog)["ok"], params


def test_every_estimate_on_the_page_is_one_the_estimators_answer(catalog):
    """Each tokens_per_s / vram_total / workload_intensity call asks a question the estimators accept."""
    asked = 0
    for name, pos, kw in macro_calls(text("en")):
        if name == "tokens_per_s":
            params = {k: v for k, v in kw.items() if k != "per_sequence"}
            assert em.speed_text(catalog, pos[0], params, "en", kw.get("per_sequence", False))
        elif name in ("vram_total", "workload_intensity"):
            command = "vram" if name == "vram_total" else "speed"
            assert handle({"command": command, "params": kw, "lang": "en"}, catalog)["ok"], kw
        else:
            continue
        asked += 1
    assert asked >= 2 * len(TABLE_DEVICES) * len(TABLE_BATCHES) + 6


def speeds(catalog, device: str, batch: int) -> dict:
    params = {**TABLE_PARAMS, "workload": "decode", "device": device, "batch": batch}
    answer = handle({"command": "speed", "params": params, "lang": "en"}, catalog)
    assert answer["ok"], answer
    return answer["result"]["device"]


@pytest.mark.parametrize("device", TABLE_DEVICES)
def test_throughput_grows_with_concurrency_while_each_sequence_slows(catalog, device):
    """What the page says about its table, checked on the speed model itself."""
    rows = [speeds(catalog, device, b) for b in TABLE_BATCHES]
    totals = [r["tokens_per_s"] for r in rows]
    each = [r["tokens_per_s_per_sequence"] for r in rows]
    assert totals == sorted(totals) and len(set(totals)) == len(totals)
    assert each == sorted(each, reverse=True) and len(set(each)) == len(each)
    assert totals[-1] > 10 * totals[0]  # 64 sequences: more than ten times the single-stream output
    assert each[-1] < 0.6 * each[0]  # ... while each sequence gets well under two thirds of it
    for batch, row in zip(TABLE_BATCHES, rows, strict=True):
        assert row["tokens_per_s"] == pytest.approx(batch * row["tokens_per_s_per_sequence"])
        assert row["memory"]["fits"], (device, batch)  # every row of the table fits on the device
        assert row["engine"] == "vllm"


def test_decode_stays_memory_bound_and_prefill_compute_bound_as_the_page_says(catalog, dataset):
    """The intensities the page quotes against the H100's critical intensity (FP8 and BF16 matrix peaks)."""
    from atlas.core.calculators import roofline
    from atlas.core.calculators.fields import field_number
    from atlas.data import chart_estimates

    h100 = dataset.device("h100-sxm")

    def work(**p):
        return chart_estimates.workload_intensity({**p, "device": "h100-sxm"}, "h100-sxm", "en", catalog)

    critical = {f: roofline.critical_intensity(field_number(h100, f"{f}.matrix.dense"), field_number(h100, "bandwidth"))
                for f in ("fp8", "bf16")}
    one = work(workload="decode", model="llama-3.1-8b", weights="fp8", context=2048, batch=1)
    many = work(workload="decode", model="llama-3.1-8b", weights="fp8", context=2048, batch=64)
    assert one < many < critical["fp8"]
    assert work(workload="decode", model="llama-3.1-8b", weights="bf16", context=2048) < critical["bf16"]
    assert work(workload="prefill", model="llama-3.1-8b", weights="bf16", context=2048) > critical["bf16"]
    assert speeds(catalog, "h100-sxm", 64)["bound"] == "memory"


def test_speculative_decoding_expectation_is_leviathans_formula():
    """Expected tokens per step (1 - a^(g+1)) / (1 - a) for g = 4 drafted tokens, the figures the page shows."""
    assert (1 - 0.8 ** 5) / (1 - 0.8) == pytest.approx(3.3616)
    assert (1 - 0.5 ** 5) / (1 - 0.5) == pytest.approx(1.9375)
    for lang, shown in (("en", ("3.36", "1.94")), ("de", ("3,36", "1,94"))):
        assert [l10n.format_number(v, lang, 2) for v in ((1 - 0.8 ** 5) / 0.2, (1 - 0.5 ** 5) / 0.5)] == list(shown)
        for source in ("num((1 - 0.8 ** 5) / (1 - 0.8), 2)", "num((1 - 0.5 ** 5) / (1 - 0.5), 2)"):
            assert source in text(lang)


# ---------------------------------------------------------------------------
# The built page
# ---------------------------------------------------------------------------


def page_html(site, lang: str) -> str:
    path = (site / "de" if lang == "de" else site) / "guide" / "serving" / "index.html"
    html = path.read_text(encoding="utf-8")
    return html[html.find("<article"):html.find("</article>")]


def cell_text(cell: str) -> str:
    return htmllib.unescape(re.sub(r"<[^>]+>", "", cell)).strip()


def section(html: str, anchor: str) -> str:
    start = html.index(f'id="{anchor}"')
    end = re.compile(r"<h2\b").search(html, start + 1)
    return html[start:end.start() if end else len(html)]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_concurrency_table_shows_the_speed_model(built_site, catalog, lang):
    html = section(page_html(built_site, lang), "concurrency")
    table = html[html.index("<table"):html.index("</table>")]
    rows = [[cell_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", table[table.index("<tbody>"):], re.S)]
    assert [r[0] for r in rows] == [l10n.format_number(b, lang, 0) for b in TABLE_BATCHES]
    for batch, row in zip(TABLE_BATCHES, rows, strict=True):
        expected = []
        for device in TABLE_DEVICES:
            result = speeds(catalog, device, batch)
            expected += [l10n.format_significant(result["tokens_per_s_per_sequence"], lang, 3),
                         l10n.format_significant(result["tokens_per_s"], lang, 3)]
        assert row[1:] == expected, batch


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_built_calculator_links_are_the_sources_and_accepted(built_site, catalog, lang):
    found = []
    for href in re.findall(r'href="([^"]+)"', page_html(built_site, lang)):
        parts = urlsplit(htmllib.unescape(href))
        match = re.search(r"(?:^|/)calculators/(vram|speed)/$", parts.path)
        if match and parts.query:
            found.append((match.group(1), {k: v[-1] for k, v in parse_qs(parts.query).items()}))
    assert found == calculator_calls(text(lang))
    for command, params in found:
        assert handle({"command": command, "params": params, "lang": lang}, catalog)["ok"], params


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_measured_figures_are_the_data_sets(built_site, dataset, lang):
    from atlas.data import quantisation as q

    html = cell_text(page_html(built_site, lang))
    mlx = q.measured_case(dataset.inference, "mlx-lm-benchmarks-m4-max", model="qwen3-30b-a3b", weights="mlx_4bit")
    assert l10n.format_number(mlx["decode_tokens_per_s"], lang, 1) in html
    assert l10n.format_number(mlx["prefill_tokens_per_s"], lang, 0) in html
    fp8 = q.measured_case(dataset.inference, "vllm-blog-fp8-kv-cache-h100", model="llama-3.1-8b", kv_cache="fp8")
    assert l10n.format_number(fp8["decode_tokens_per_s"], lang, 1) in html
    assert "style=" not in page_html(built_site, lang)  # the site's CSP blocks inline styles

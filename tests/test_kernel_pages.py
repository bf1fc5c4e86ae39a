"""The kernel-demo pages as a reader gets them: the real files embedded, the
measured-vs-peak tables, the pre-rendered roofline and systolic results, in
both languages."""

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import REPO_ROOT, copy_repo_for_build, run_mkdocs_build

DOCS = REPO_ROOT / "docs" / "kernels"
PAGES = sorted(p.stem for p in DOCS.glob("*.md") if not p.name.endswith(".de.md"))
SNIPPET = re.compile(r'--8<-- "([^"]+)"')


class _Code(HTMLParser):
    """Text of every <pre> block (highlighting spans stripped)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks, self.depth = [], 0

    def handle_starttag(self, tag, attrs):
        if tag == "pre":
            self.depth += 1
            self.blocks.append("")

    def handle_endtag(self, tag):
        if tag == "pre":
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.blocks[-1] += data


def page_html(site: Path, page: str, lang: str) -> str:
    base = site / "de" if lang == "de" else site
    folder = base / "kernels" if page == "index" else base / "kernels" / page
    return (folder / "index.html").read_text(encoding="utf-8")


def code_blocks(text: str) -> list[str]:
    parser = _Code()
    parser.feed(text)
    return [b.strip("\n") for b in parser.blocks]


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("page", PAGES)
def test_pages_show_the_files_ci_runs(built_site, page, lang):
    source = (DOCS / (f"{page}.de.md" if lang == "de" else f"{page}.md")).read_text(encoding="utf-8")
    embedded = SNIPPET.findall(source)
    blocks = code_blocks(page_html(built_site, page, lang))
    for rel in embedded:
        text = (REPO_ROOT / rel).read_text(encoding="utf-8").strip("\n")
        assert text in blocks, f"{rel} is not shown verbatim on {lang}/{page}"


def test_every_demo_page_embeds_all_five_backends():
    for demo in ("bandwidth", "matmul", "intensity", "fused"):
        source = (DOCS / f"{demo}.md").read_text(encoding="utf-8")
        files = set(SNIPPET.findall(source))
        assert {f"atlas/demos/{demo}_{b}.py" for b in ("numpy", "torch", "jax", "triton")} | {f"atlas/demos/{demo}_cuda.cu"} <= files


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("demo", ["bandwidth", "matmul", "intensity", "fused"])
def test_measurement_table_lists_every_recorded_run(built_site, dataset, demo, lang):
    text = page_html(built_site, demo, lang)
    ids = [m["id"] for m in dataset.measurements.values() if m["demo"] == demo]
    tables = re.findall(r'<table data-atlas-table="measurements".*?</table>', text, re.S)
    assert tables, "no measurements table"
    rows = re.findall(r'data-measurement="([^"]+)"', "".join(tables))
    assert sorted(rows) == sorted(ids) and rows
    assert ("nicht im Datensatz" if lang == "de" else "not in the data set") in tables[0]


def test_measured_values_are_formatted_per_language(built_site, dataset):
    entry = next(m for m in dataset.measurements.values() if m["demo"] == "bandwidth" and m["result"]["value"] >= 10)
    from atlas.core import l10n

    for lang in ("en", "de"):
        row = re.search(rf'<tr data-measurement="{entry["id"]}".*?</tr>', page_html(built_site, "bandwidth", lang), re.S).group(0)
        assert f'>{l10n.format_significant(entry["result"]["value"], lang, 3)}\u00a0GB/s<' in row


@pytest.mark.parametrize("lang, ridge, at_one", [("en", ">295<", ">3.35<"), ("de", ">295<", ">3,35<")])
def test_roofline_page_prerenders_the_h100(built_site, lang, ridge, at_one):
    text = page_html(built_site, "roofline", lang)
    row = re.search(r'<tr data-device="h100-sxm">.*?</tr>', text, re.S).group(0)
    # 989.4 TFLOP/s / 3,350 GB/s = 295 FLOP/byte; at 1 FLOP/byte the memory roof is 3.35 TFLOP/s.
    assert ridge in row and at_one in row
    decode = re.search(r'<tr data-workload="decode">.*?</tr>', text, re.S).group(0)
    assert ("memory bandwidth" if lang == "en" else "Speicherbandbreite") in decode


@pytest.mark.parametrize("lang, cycles, share", [("en", ">89,984<", ">72.8%<"), ("de", ">89.984<", ">72,8\u202f%<")])
def test_systolic_page_prerenders_the_simulator(built_site, lang, cycles, share):
    text = page_html(built_site, "systolic", lang)
    row = re.search(r'<tr data-size="1024">.*?</tr>', text, re.S).group(0)
    assert cycles in row and share in row  # 64 tiles x 1,406 cycles; 1024^3 / (128^2 x 89,984)
    frames = html.unescape(re.search(r'<pre data-result="frames">(.*?)</pre>', text, re.S).group(1))
    assert ("Takt 4" if lang == "de" else "cycle 4") in frames and "0 · · ·" in frames


@pytest.mark.parametrize("page", PAGES)
def test_no_nan_or_infinity_on_kernel_pages(built_site, page):
    for lang in ("en", "de"):
        visible = re.sub(r"<pre.*?</pre>|<script.*?</script>", "", page_html(built_site, page, lang), flags=re.S)
        assert not re.search(r"\bNaN\b|\bInfinity\b|Traceback", visible)


@pytest.mark.slow
def test_a_moved_kernel_file_breaks_the_build(tmp_path):
    repo = copy_repo_for_build(tmp_path / "repo")
    (repo / "atlas" / "demos" / "matmul_cuda.cu").rename(repo / "atlas" / "demos" / "matmul_moved.cu")
    result = run_mkdocs_build(tmp_path / "site", config=repo / "mkdocs.yml", cwd=repo)
    assert result.returncode != 0
    assert "atlas/demos/matmul_cuda.cu" in result.stdout + result.stderr
    assert not (tmp_path / "site").exists() or not any((tmp_path / "site").rglob("*.html"))


@pytest.mark.browser
@pytest.mark.parametrize("path", ["/kernels/matmul/", "/de/kernels/systolic/"])
def test_kernel_pages_in_a_browser(page, site_server, path):
    page.goto(site_server + path)
    page.locator("h1").wait_for()
    if "matmul" in path:
        page.locator(".tabbed-labels label", has_text="CUDA C").click()
        assert page.locator(".tabbed-block:visible code", has_text="wmma_kernel").count() > 0
    else:
        assert page.locator("pre[data-result=frames]").is_visible()
    assert all(u.startswith(site_server) or u.startswith("data:") for u in page.requests_seen)
    assert page.console_errors == [] and page.failed_requests == []


@pytest.mark.parametrize("lang", ["en", "de"])
def test_search_indexes_the_prose_but_not_the_embedded_files(built_site, lang):
    """Each embedded source file is marked data-search-exclude: Material's search index (fetched on
    every page, one per language) keeps the explanations, not thousands of lines of code that match every query."""
    import json

    folder = built_site / "de" if lang == "de" else built_site
    docs = json.loads((folder / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    text = {entry["location"]: entry["text"] for entry in docs}
    for page in ("matmul", "bandwidth", "fused", "intensity"):
        run_it = next(t for loc, t in text.items() if loc.startswith(f"kernels/{page}/#"))
        assert run_it  # the page is indexed
    every = "\n".join(text.values())
    for line in ("def main(argv=None) -> int:", "harness.finish(", "__global__ void"):
        assert line not in every
    # The run commands and the prose stay searchable.
    assert "python -m atlas.demos.matmul_torch --precision bf16 --size 8192" in every
    assert "mma.sync" in every


def test_every_embedded_file_is_excluded_from_search():
    for page in DOCS.glob("*.md"):
        lines = page.read_text(encoding="utf-8").splitlines()
        for fence, body in zip(lines, lines[1:], strict=False):
            if SNIPPET.search(body):
                assert fence.strip().endswith("{ data-search-exclude }"), f"{page.name}: {fence.strip()}"

"""The built site: both languages, switcher, parity, strictness, bad data."""

import re
from pathlib import Path

import pytest

from conftest import REPO_ROOT, copy_repo_for_build, run_mkdocs_build
from page_structure import skeleton

DOCS = REPO_ROOT / "docs"


def english_pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if not p.name.endswith(".de.md"))


def built_path(site: Path, md: Path, lang: str) -> Path:
    rel = md.relative_to(DOCS).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "index":
        parts = parts[:-1]
    base = site / "de" if lang == "de" else site
    return base.joinpath(*parts, "index.html")


def test_every_page_has_a_german_twin_and_back():
    en = {p.relative_to(DOCS).as_posix()[:-3] for p in english_pages()}
    de = {p.relative_to(DOCS).as_posix()[:-6] for p in DOCS.rglob("*.de.md")}
    assert en == de, f"missing German: {sorted(en - de)}; missing English: {sorted(de - en)}"


@pytest.mark.parametrize("md", english_pages(), ids=lambda p: p.relative_to(DOCS).as_posix())
def test_both_languages_built(built_site, md):
    en = built_path(built_site, md, "en").read_text(encoding="utf-8")
    de = built_path(built_site, md, "de").read_text(encoding="utf-8")
    assert '<html lang="en"' in en
    assert '<html lang="de"' in de


@pytest.mark.parametrize("md", english_pages(), ids=lambda p: p.relative_to(DOCS).as_posix())
def test_page_parity(built_site, md):
    en = skeleton(built_path(built_site, md, "en").read_text(encoding="utf-8"))
    de = skeleton(built_path(built_site, md, "de").read_text(encoding="utf-8"))
    assert en, "page has no structure at all"
    assert en == de


@pytest.mark.parametrize("md", english_pages(), ids=lambda p: p.relative_to(DOCS).as_posix())
def test_switcher_links_to_the_twin_page(built_site, md):
    en_file = built_path(built_site, md, "en")
    de_file = built_path(built_site, md, "de")
    for here, lang, twin in ((en_file, "de", de_file), (de_file, "en", en_file)):
        html = here.read_text(encoding="utf-8")
        links = re.findall(rf'<a href="([^"]*)" hreflang="{lang}" class="md-select__link"', html)
        assert links, f"no {lang} switcher link in {here}"
        link = links[0]
        target = (built_site / link.lstrip("/")) if link.startswith("/") else (here.parent / link)
        target = target.resolve()
        target = target / "index.html" if target.is_dir() else target
        assert target == twin.resolve()


def test_german_compare_page_speaks_german(built_site):
    html = (built_site / "de" / "compare" / "index.html").read_text(encoding="utf-8")
    assert "<title>Hardware-Vergleich - KI-Beschleuniger-Atlas</title>" in html
    assert ">Speicherbandbreite (GB/s)<" in html
    assert ">3.350<" in html  # H100 SXM bandwidth in German number format
    assert "Memory bandwidth" not in html
    english = (built_site / "compare" / "index.html").read_text(encoding="utf-8")
    assert ">Memory bandwidth (GB/s)<" in english and ">3,350<" in english


def test_material_ui_strings_follow_language(built_site):
    de = (built_site / "de" / "index.html").read_text(encoding="utf-8")
    assert 'placeholder="Suche"' in de
    en = (built_site / "index.html").read_text(encoding="utf-8")
    assert 'placeholder="Search"' in en


def search_index(site: Path, lang: str) -> dict:
    import json

    folder = site / "de" if lang == "de" else site
    return json.loads((folder / "search" / "search_index.json").read_text(encoding="utf-8"))


def test_each_language_has_its_own_search_index(built_site):
    """mkdocs-static-i18n writes one index of both languages; macros/search_hooks.py splits it, so a reader's
    search finds the pages of their language only: every page in each, every location a page of that
    language's folder, each with its own stemmer."""
    every_page = {"/".join(built_path(Path(), md, "en").parent.parts) for md in english_pages()}
    every_page = {f"{page}/" if page else "" for page in every_page}
    pages = {}
    for lang in ("en", "de"):
        index = search_index(built_site, lang)
        assert index["config"]["lang"] == [lang]
        pages[lang] = {doc["location"].split("#")[0] for doc in index["docs"]}
        folder = built_site / "de" if lang == "de" else built_site
        assert all((folder / page / "index.html").is_file() for page in pages[lang]), lang
    assert pages["en"] == every_page and pages["de"] == every_page
    titles = {lang: {doc["title"] for doc in search_index(built_site, lang)["docs"]} for lang in ("en", "de")}
    assert "Hardware comparison" in titles["en"] and "Hardware comparison" not in titles["de"]
    assert "Hardware-Vergleich" in titles["de"] and "Hardware-Vergleich" not in titles["en"]


@pytest.mark.parametrize("lang, page", [("en", "compare/index.html"), ("de", "de/compare/index.html"),
                                        ("en", "index.html"), ("de", "de/index.html"), ("de", "de/404.html")])
def test_material_searches_from_the_pages_language_folder(built_site, lang, page):
    """Material resolves its search index and the results against the "base" of the page's configuration
    script: a German page's base is /de/, an English page's the site root."""
    import json
    from urllib.parse import urljoin, urlparse

    html = (built_site / page).read_text(encoding="utf-8")
    config = json.loads(re.search(r'<script id="__config" type="application/json">(.*?)</script>', html, re.S)[1])
    page_url = "http://localhost:8000/" + page.removesuffix("index.html")
    index_url = urljoin(urljoin(page_url, config["base"]), "search/search_index.json")
    assert urlparse(index_url).path == ("/de/search/search_index.json" if lang == "de" else "/search/search_index.json")


def test_no_third_party_assets_referenced(built_site):
    offenders = []
    for html in built_site.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        # any src= loads; an <a href> to a .js file (a cited source on GitHub) is a link, not an asset —
        # the tags that load through href (<link>) are checked below
        for url in re.findall(r'src="(https?://[^"]+)"', text):
            if re.search(r"\.(js|css|woff2?|ttf)(\?|$)", url):
                offenders.append((html.name, url))
        if "fonts.googleapis" in text or "fonts.gstatic" in text:
            offenders.append((html.name, "Google Fonts"))
        for tag in re.findall(r"<(?:script|link|img|iframe|source)\b[^>]*>", text):
            if 'rel="canonical"' in tag or 'rel="alternate"' in tag:
                continue  # metadata for crawlers, never fetched by the page
            if re.search(r'(?:src|href)="(?:https?:)?//', tag):
                offenders.append((html.name, tag))
    assert not offenders


def test_broken_data_stops_the_build_and_writes_no_site(tmp_path):
    repo = copy_repo_for_build(tmp_path / "repo")
    bad = repo / "data" / "hardware" / "nvidia" / "h100-sxm.yaml"
    lines = bad.read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.strip() == "bandwidth_gb_s: 3350")
    lines[line - 1] = lines[line - 1].replace("3350", "-1")
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    site = tmp_path / "site"
    result = run_mkdocs_build(site, config=repo / "mkdocs.yml", cwd=repo)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert (
        f"data/hardware/nvidia/h100-sxm.yaml:{line}: device 'h100-sxm', field 'memory.bandwidth_gb_s': "
        "must be greater than 0; got -1"
    ) in output
    assert "Traceback" not in output
    assert not site.exists() or not any(site.iterdir())

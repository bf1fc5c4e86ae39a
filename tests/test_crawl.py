"""Every page of the built site in both languages (one crawl per language), in Debian's Chromium, under the site's CSP.

One crawl (``crawl.py``) visits the sitemap's pages and every page they link
to, and each test checks one promise across all of them: no request leaves the
origin, nothing fails or logs an error, the policy is never violated, every
internal link and anchor resolves, every page says its language, and axe-core
finds no serious or critical accessibility problem (light and dark scheme).
"""

from __future__ import annotations

import pytest
from test_browser_calculators import PYODIDE_FILES
from test_site import DOCS, english_pages

from crawl import crawl_site, internal_link_problems, language_of, outside_origin, sitemap_paths

pytestmark = pytest.mark.browser


# One crawl per language: tests/conftest.py hands the two to different workers (each a work unit of its own).
@pytest.fixture(scope="session", params=["en", "de"])
def crawl(request, browser, site_server, built_site):
    return crawl_site(browser, site_server, built_site, language=request.param)


def report(problems: dict) -> str:
    return "\n".join(f"{page}: {items}" for page, items in problems.items())


def expected_paths() -> set[str]:
    """URL path of every page in docs/, in both languages."""
    paths = set()
    for md in english_pages():
        rel = md.relative_to(DOCS).with_suffix("").as_posix()
        rel = "" if rel == "index" else rel.removesuffix("/index") + "/"
        paths |= {f"/{rel}", f"/de/{rel}"}
    return paths


def test_crawl_reaches_every_page_in_both_languages(crawl, built_site):
    language = language_of(next(iter(crawl.pages)))
    assert {language_of(path) for path in crawl.pages} == {language}
    expected = {path for path in expected_paths() if language_of(path) == language}
    assert expected <= set(crawl.pages), sorted(expected - set(crawl.pages))
    assert {path for path in sitemap_paths(built_site) if language_of(path) == language} <= set(crawl.pages)
    assert len(expected) > 20 and f"/{'de/' if language == 'de' else ''}404.html" in crawl.pages
    assert all(record.status == 200 for record in crawl.pages.values()), {
        p: r.status for p, r in crawl.pages.items() if r.status != 200
    }


def test_no_request_leaves_the_site(crawl):
    offenders = {p: outside_origin(r.requests, crawl.base) for p, r in crawl.pages.items()}
    offenders = {p: urls for p, urls in offenders.items() if urls}
    assert not offenders, report(offenders)
    assert sum(len(r.requests) for r in crawl.pages.values()) > len(crawl.pages)  # the recorder sees requests


def test_no_failed_request(crawl):
    offenders = {p: r.failed for p, r in crawl.pages.items() if r.failed}
    assert not offenders, report(offenders)


def test_no_console_error(crawl):
    offenders = {p: r.console_errors for p, r in crawl.pages.items() if r.console_errors}
    assert not offenders, report(offenders)


def test_no_content_security_policy_violation(crawl):
    offenders = {p: r.csp_violations for p, r in crawl.pages.items() if r.csp_violations}
    assert not offenders, report(offenders)


def test_only_pages_with_in_page_python_load_its_runtime(crawl):
    """Pyodide, the bundle and the data export (megabytes) are fetched by the pages that declare a runtime, the
    calculators and kernel demos, and by no other page, however it links to them."""
    loads = {p: [u for u in r.requests if any(f in u for f in PYODIDE_FILES)] for p, r in crawl.pages.items()}
    offenders = {p: urls for p, urls in loads.items() if urls and not crawl.pages[p].runtime}
    assert not offenders, report(offenders)
    prefix = "/de/" if language_of(next(iter(crawl.pages))) == "de" else "/"
    calculators = {f"{prefix}calculators/vram/", f"{prefix}calculators/speed/"}
    assert all(crawl.pages[p].runtime and loads[p] for p in calculators), {p: loads[p] for p in calculators}
    assert not crawl.pages[prefix].runtime and not crawl.pages[f"{prefix}compare/"].runtime
    # Pages about the hardware link the demos a reader can run, without starting them.
    for path in ("hardware/tpus/", "hardware/gpus/"):
        links = crawl.pages[prefix + path].links
        assert any("kernels/systolic/" in link or "kernels/roofline/" in link for link in links), path


def test_every_page_declares_its_language(crawl):
    wrong = {p: r.lang for p, r in crawl.pages.items() if r.lang != ("de" if p.startswith("/de/") else "en")}
    assert not wrong, wrong


def test_internal_links_and_anchors_resolve(crawl):
    problems = internal_link_problems(crawl)
    assert not problems, "\n".join(problems)
    assert crawl.files, "the crawl found no linked file (downloads, assets) to check"


def test_no_serious_or_critical_accessibility_violation(crawl):
    schemes = {p: r.schemes for p, r in crawl.pages.items() if r.schemes != ["default", "slate"]}
    assert not schemes, f"axe ran in both colour schemes: {schemes}"
    offenders = {
        p: [f"{v['scheme']}: {v['id']} ({v['impact']}): {v['help']} at {v['nodes']}" for v in r.axe]
        for p, r in crawl.pages.items()
    }
    offenders = {p: [v for v in vs if "(serious)" in v or "(critical)" in v] for p, vs in offenders.items()}
    offenders = {p: vs for p, vs in offenders.items() if vs}
    assert not offenders, report(offenders)

"""The whole site built from a data set full of hostile strings (``hostile_build.py``): nothing executes,
nothing breaks the markup, with the Content-Security-Policy switched off so escaping alone is tested."""

from __future__ import annotations

import functools
import http.server
import subprocess
import threading
from collections import Counter

import pytest

from conftest import REPO_ROOT, SHARED_BUILDS, _QuietHandler, shared_build
from crawl import CSP_LISTENER, loaded_pages, sitemap_paths
from hostile import elements, markup_problems, shape

pytestmark = pytest.mark.slow

SCRIPT_CAPABLE = {"script", "img", "iframe", "object", "embed", "style", "link", "meta", "base", "form"}


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory, worker_id):
    if worker_id != "master":  # under pytest-xdist: started in the background when the tests were collected
        return shared_build(tmp_path_factory, "hostile-site")
    site = tmp_path_factory.mktemp("hostile-site")
    cmd, env = SHARED_BUILDS["hostile-site"][1](site)
    result = subprocess.run(cmd, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    return site


@pytest.fixture(scope="module")
def hostile_server(hostile_site):
    handler = functools.partial(_QuietHandler, directory=str(hostile_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def tags_attrs(page: str) -> tuple[set, set]:
    kinds = shape(page)
    return {tag for tag, _ in kinds}, {name for _, names in kinds for name in names}


def pages(site):
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


def test_hostile_strings_reached_the_pages(hostile_site):
    compare = (hostile_site / "compare" / "index.html").read_text(encoding="utf-8")
    assert "window.__pwned" in compare and "&lt;script&gt;" in compare


# Presentational SVG attributes the chart code itself sets when labels crowd (faded leader lines); other
# data can need them where the real data does not. They carry no script and no URL.
CHART_STYLE_ATTRS = {"stroke-opacity", "stroke-dasharray"}


def test_every_page_has_the_markup_of_the_real_site(hostile_site, built_site):
    assert pages(hostile_site) == pages(built_site)
    for rel in pages(hostile_site):
        hostile = (hostile_site / rel).read_text(encoding="utf-8")
        real = (built_site / rel).read_text(encoding="utf-8")
        # No element or attribute the real page lacks. (Combinations may differ: a source whose URL is not
        # http(s) is a <span title> instead of a link; more vendors than colours get dashed lines.)
        (hostile_tags, hostile_attrs), (real_tags, real_attrs) = tags_attrs(hostile), tags_attrs(real)
        hostile_attrs -= CHART_STYLE_ATTRS  # long hostile labels crowd a chart differently
        assert hostile_tags <= real_tags and hostile_attrs <= real_attrs, (
            rel,
            hostile_tags - real_tags,
            hostile_attrs - real_attrs,
        )
        count = Counter(tag for tag, _ in elements(hostile) if tag in SCRIPT_CAPABLE)
        assert count == Counter(tag for tag, _ in elements(real) if tag in SCRIPT_CAPABLE), rel
        unsafe = [p for p in markup_problems(hostile) if "event handler" in p or "unsafe URL" in p]
        assert not unsafe, (rel, unsafe)


@pytest.mark.browser
def test_nothing_runs_even_without_the_policy(browser, hostile_server, hostile_site):
    context = browser.new_context(bypass_csp=True)
    dialogs, errors = [], []

    def listen(page, path):
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("pageerror", lambda e: errors.append(f"{path}: {e}"))

    try:
        for path, page, _, _ in loaded_pages(context, hostile_server, sitemap_paths(hostile_site), listen):
            for link in page.locator("article a[title]").all()[:3]:
                # an onmouseover/onfocus that escaped its attribute would fire here (dispatched, not hovered:
                # a link in a table that scrolls inside its own box may sit under the sticky first column)
                for event in ("mouseover", "mouseenter", "focus"):
                    link.dispatch_event(event)
            assert page.evaluate("() => window.__pwned") is None, path
    finally:
        context.close()
    assert not dialogs and not errors, (dialogs, errors)


@pytest.mark.browser
def test_with_the_policy_nothing_even_tries(browser, hostile_server, hostile_site):
    context = browser.new_context()
    context.add_init_script(CSP_LISTENER)
    violations = {}
    try:
        for path, page, _, _ in loaded_pages(context, hostile_server, sitemap_paths(hostile_site)):
            found = page.evaluate("() => window.__cspViolations")
            if found:
                violations[path] = found
    finally:
        context.close()
    assert not violations, violations

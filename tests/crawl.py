"""Visit every page of the built site in a browser and record what a reader's browser does.

Used by ``test_crawl.py``. Pages come from ``sitemap.xml`` (with its German
alternates) plus every same-origin link found on the pages visited, so new
pages are covered without editing a list. Each page is loaded once, in one
browser context (cached assets are reused), under the Content-Security-Policy
the server sends from ``_headers`` and the page's own ``<meta>``.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urldefrag, urlparse

AXE = Path(__file__).resolve().parent.parent / "node_modules" / "axe-core" / "axe.min.js"

# Collects CSP violations from the first moment of every document.
CSP_LISTENER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`);
});
"""

# What the page holds: its language, the targets its links can jump to, and its links.
PAGE_FACTS = """() => ({
  lang: document.documentElement.getAttribute("lang"),
  anchors: [...document.querySelectorAll("[id], a[name]")].map((e) => e.id || e.getAttribute("name")),
  links: [...document.querySelectorAll("a[href]")].map((a) => a.href),
  runtime: document.querySelector('meta[name="atlas-runtime"]') !== null,
  violations: window.__cspViolations || [],
})"""

# Material's light/dark toggle, without its colour fade (axe would measure colours half-way).
SET_SCHEME = """(scheme) => {
  for (const el of document.querySelectorAll("*")) el.style.transition = "none";
  document.body.setAttribute("data-md-color-scheme", scheme);
}"""

AXE_RUN = """async (options) => {
  const result = await axe.run(document, options);
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
  }));
}"""

# Rules run on the whole page in the light scheme; the dark scheme only changes colours.
AXE_LIGHT = {"resultTypes": ["violations"]}
AXE_DARK = {"runOnly": {"type": "rule", "values": ["color-contrast"]}, "resultTypes": ["violations"]}

PAGE_SUFFIXES = ("/", ".html")

# Pages loading at once in one crawl: enough to overlap the waits for an idle network, few enough that the
# calculator pages (each starts its Python runtime) do not starve one another on a 2-CPU machine.
PAGES_IN_FLIGHT = 3
# How long one page may take to load and fall quiet (ms). Generous: on a 2-CPU CI machine the other test
# workers and the pages still loading beside this one (Pyodide compiling its WebAssembly) share the CPUs, and
# Playwright's default of 30 s was once exceeded by the home page of the hostile-site pass.
PAGE_LOAD_TIMEOUT_MS = 120_000


@dataclass
class PageVisit:
    """What loading one page did."""

    url: str
    status: int = 0
    lang: str | None = None
    requests: list = field(default_factory=list)
    failed: list = field(default_factory=list)  # "url (reason)" for failed requests and HTTP errors
    console_errors: list = field(default_factory=list)
    csp_violations: list = field(default_factory=list)
    anchors: set = field(default_factory=set)
    links: list = field(default_factory=list)
    runtime: bool = False  # the page declares in-page Python (<meta name="atlas-runtime">, overrides/main.html)
    axe: list = field(default_factory=list)  # violations: {"id", "impact", "help", "nodes", "scheme"}
    schemes: list = field(default_factory=list)  # Material colour schemes axe ran in


@dataclass
class Crawl:
    base: str
    pages: dict = field(default_factory=dict)  # url path -> PageVisit
    files: dict = field(default_factory=dict)  # url path of a linked non-page file -> HTTP status
    # url path of a linked page in the other language (a crawl of one language) -> (HTTP status, its ids)
    other_pages: dict = field(default_factory=dict)


def language_of(path: str) -> str:
    """The language of a page by its URL path: German under /de/, English everywhere else."""
    return "de" if path == "/de" or path.startswith("/de/") else "en"


def sitemap_paths(site_dir: Path) -> list[str]:
    """URL paths of every page in ``sitemap.xml`` and of its language alternates."""
    tree = ET.parse(site_dir / "sitemap.xml")
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    urls = [loc.text for loc in tree.iterfind(".//s:loc", ns)]
    urls += [link.get("href") for link in tree.iterfind(".//x:link", ns)]
    return sorted({urlparse(u).path for u in urls if u})


def is_page(path: str) -> bool:
    return path.endswith(PAGE_SUFFIXES)


_EMPTY_SEARCH_INDEX_BODIES: dict[str, str] = {}


def _serve_empty_search_index(route) -> None:
    """Answer a request for Material's search index with the site's own index less its documents (its
    configuration kept: language, separator); the real index is fetched once per URL, then kept."""
    url = route.request.url.split("?")[0]
    body = _EMPTY_SEARCH_INDEX_BODIES.get(url)
    if body is None:
        index = route.fetch().json()
        body = _EMPTY_SEARCH_INDEX_BODIES[url] = json.dumps({**index, "docs": []})
    route.fulfill(status=200, body=body, content_type="application/json")


def with_empty_search_index(context) -> None:
    """Pages opened in ``context`` get Material's search index with its configuration and no documents. Every
    page fetches the index and builds it in a worker (half a second of CPU a page for the real site, 0.9 s for
    the hostile one) although nothing is shown from it until a reader types a query. Every test context gets
    this unless it asks for the real index (``new_context(real_search_index=True)``): the search tests, and
    the crawl for the first page of each language."""
    context.route("**/search/search_index.json", _serve_empty_search_index)


def loaded_pages(context, base: str, paths: list, prepare=None, in_flight: int = PAGES_IN_FLIGHT):
    """Load ``paths`` (a list the caller may append to while iterating) a few at a time in ``context`` and yield
    ``(path, page, response, prepared)`` for each once it has loaded and the network is idle, in order.

    ``prepare(page, path)`` runs before the page is requested (listeners; its return value is ``prepared``).
    The page is closed when the caller asks for the next one. The pages after the one being inspected keep
    loading in the browser meanwhile, so the waits for an idle network overlap instead of adding up."""
    opened = deque()

    def start():
        path = paths.pop(0)
        page = context.new_page()
        prepared = prepare(page, path) if prepare else None
        opened.append((path, page, prepared, page.goto(base + path, wait_until="commit", timeout=PAGE_LOAD_TIMEOUT_MS)))

    try:
        while paths or opened:
            while paths and len(opened) < in_flight:
                start()
            path, page, prepared, response = opened.popleft()
            try:
                page.wait_for_load_state("load", timeout=PAGE_LOAD_TIMEOUT_MS)
                page.wait_for_load_state("networkidle", timeout=PAGE_LOAD_TIMEOUT_MS)
                yield path, page, response, prepared
            finally:
                page.close()
    finally:
        for _, page, _, _ in opened:
            page.close()


def _record(page, path: str, base: str) -> PageVisit:
    """Listen to what loading ``page`` does, into a new PageVisit."""
    record = PageVisit(url=base + path)
    page.on("request", lambda r: record.requests.append(r.url))
    page.on("requestfailed", lambda r: record.failed.append(f"{r.url} ({r.failure})"))
    page.on(
        "response",
        lambda r: record.failed.append(f"{r.url} (HTTP {r.status})") if r.status >= 400 else None,
    )
    page.on("console", lambda m: record.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: record.console_errors.append(str(e)))
    return record


def _inspect(page, record: PageVisit, response, with_axe: bool) -> None:
    """The loaded page's status, language, anchors and links, its CSP violations and (``with_axe``) axe-core's
    findings in the light and dark scheme."""
    record.status = response.status if response else 0
    facts = page.evaluate(PAGE_FACTS)
    record.lang = facts["lang"]
    record.anchors = set(facts["anchors"])
    record.links = facts["links"]
    record.runtime = facts["runtime"]
    if with_axe:
        # Through the DevTools protocol, so the page's CSP (rightly) does not apply to the test's own script.
        page.evaluate(AXE.read_text(encoding="utf-8") + "\n;0")
        for scheme, options in (("default", AXE_LIGHT), ("slate", AXE_DARK)):
            # What Material's light/dark toggle does.
            page.evaluate(SET_SCHEME, scheme)
            page.wait_for_timeout(100)
            record.schemes.append(page.evaluate("() => document.body.getAttribute('data-md-color-scheme')"))
            record.axe += [dict(v, scheme=scheme) for v in page.evaluate(AXE_RUN, options)]
    record.csp_violations = page.evaluate("() => window.__cspViolations || []")


def crawl_site(browser, base: str, site_dir: Path, with_axe: bool = True, language: str | None = None) -> Crawl:
    """Visit the sitemap's pages and every same-origin page they link to; check linked files exist.

    With ``language`` ("en" or "de"), only the pages of that language are visited (two crawls can then run side
    by side); a link to a page of the other language is checked by a plain request: that it exists and, for a
    ``#fragment``, that the page has an element with that id."""
    crawl = Crawl(base=base)
    # As a reader's browser visits the site. The first pages load Material's real search index; after the
    # first one has loaded, the others get it without documents (with_empty_search_index): building it again in
    # every page's search worker costs half a second of CPU a page and changes nothing the crawl looks at.
    context = browser.new_context(service_workers="allow", real_search_index=True)
    context.add_init_script(CSP_LISTENER)
    queue = sitemap_paths(site_dir) + ["/404.html", "/de/404.html"]
    if language:
        queue = [path for path in queue if language_of(path) == language]
    seen = set(queue)
    try:
        for path, page, response, record in loaded_pages(context, base, queue, lambda pg, p: _record(pg, p, base)):
            _inspect(page, record, response, with_axe)
            if not crawl.pages:
                with_empty_search_index(context)
            crawl.pages[path] = record
            for link in record.links:
                url, _ = urldefrag(link)
                if not url.startswith(base):
                    continue
                target = urlparse(url).path
                if target in seen:
                    continue
                seen.add(target)
                if is_page(target) and language and language_of(target) != language:
                    response = context.request.get(base + target)
                    ids = set(re.findall(r'\bid="([^"]+)"', response.text())) if response.ok else set()
                    crawl.other_pages[target] = (response.status, ids)
                elif is_page(target):
                    queue.append(target)
                else:
                    crawl.files[target] = context.request.get(base + target).status
    finally:
        context.close()
    return crawl


def internal_link_problems(crawl: Crawl) -> list[str]:
    """Links to pages or files that do not exist and ``#fragments`` that name no element of their page."""
    problems = []
    for path, record in crawl.pages.items():
        for link in record.links:
            if not link.startswith(crawl.base):
                continue
            url, fragment = urldefrag(link)
            target = urlparse(url).path
            if is_page(target) and target in crawl.other_pages:
                status, ids = crawl.other_pages[target]
                if status >= 400:
                    problems.append(f"{path}: link to missing page {target}")
                elif fragment and fragment not in ids:
                    problems.append(f"{path}: link to {target}#{fragment}, which names no element there")
            elif is_page(target):
                visited = crawl.pages.get(target)
                if visited is None or visited.status >= 400:
                    problems.append(f"{path}: link to missing page {target}")
                elif fragment and fragment not in visited.anchors:
                    problems.append(f"{path}: link to {target}#{fragment}, which names no element there")
            elif crawl.files.get(target, 404) >= 400:
                problems.append(f"{path}: link to missing file {target}")
    return problems


def outside_origin(urls, base: str) -> list[str]:
    """Requests that leave the site: anything but the site's origin, data: and blob: URLs."""
    return [u for u in urls if not re.match(rf"^(?:{re.escape(base)}/|data:|blob:)", u)]

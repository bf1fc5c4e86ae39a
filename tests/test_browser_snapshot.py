"""The calculators start from the build's memory snapshot of Pyodide, and start without it when it fails.

The build (macros/runtime_hooks.py, macros/make_snapshot.mjs) writes the snapshot beside Pyodide with its
content hash in its name, and each page with the runtime names it in ``<meta name="atlas-runtime">``. The
worker restores it instead of starting CPython; a missing, damaged or foreign snapshot must only cost the
time of a normal start, never the calculator.
"""

import hashlib
import json
import re

import pytest
from test_browser_calculators import assert_matches_cli, assert_stayed_on_origin, page_url, wait_status

from atlas.core import l10n
from atlas.data import webbundle
from conftest import serving

pytestmark = pytest.mark.browser

QUERY = "?model=llama-3.1-70b&weights=q4_k_m&context=8192"
PARAMS = {"model": "llama-3.1-70b", "weights": "q4_k_m", "context": "8192"}
TIMINGS = "() => document.querySelector('[data-atlas-calculator]').atlasCalculator.runtime.info"


def snapshot_file(built_site):
    (path,) = (built_site / webbundle.PYODIDE_DIR).glob("atlas-snapshot-*.bin")
    return path


def test_the_calculator_starts_from_the_snapshot_and_answers_as_the_command_line(page, site_server, built_site):
    name = snapshot_file(built_site).name
    page.goto(page_url(site_server, "de", "vram", QUERY))
    assert wait_status(page, "ready", "invalid", "failed") == "ready"
    timings = page.evaluate(TIMINGS)
    assert timings["snapshot"] is True
    assert timings["snapshot_plan"] == "network"  # this browser's link reads "4g" (Chromium's default for Ethernet)
    assert 0 < timings["pyodide_ms"] <= timings["total_ms"] <= timings["ready_ms"]
    assert any(u.endswith(f"/assets/vendor/pyodide/{name}") for u in page.requests_seen)
    assert_matches_cli(page, "vram", PARAMS, "de")
    assert_stayed_on_origin(page, site_server)
    assert page.console_errors == [] and page.failed_requests == []


def _fallback_is_ready(page, site_server, lang="en"):
    page.goto(page_url(site_server, lang, "vram", QUERY))
    assert wait_status(page, "ready", "invalid", "failed") == "ready"
    assert page.inner_text("[data-calc-status]") == l10n.t(lang, "calc.status.ready")
    assert page.evaluate(TIMINGS)["snapshot"] is False
    assert_matches_cli(page, "vram", PARAMS, lang)


def test_a_missing_snapshot_falls_back_to_the_normal_start(page, site_server):
    page.route("**/atlas-snapshot-*", lambda route: route.fulfill(status=404, body="missing"))
    _fallback_is_ready(page, site_server)


@pytest.fixture
def altered_files(tmp_path):
    """A folder served on a port of its own, for a changed copy of the snapshot: the page's request for the
    snapshot is sent there (``route.continue_``, unseen by the page) instead of pushing 31 MB through the test's
    connection to the browser (``route.fulfill``), which took most of a minute per test."""
    with serving(tmp_path) as base:
        yield tmp_path, base


def serve_instead(page, pattern: str, altered_files, name: str, body: bytes):
    """Requests matching ``pattern`` get ``body`` (as the file ``name`` of ``altered_files``)."""
    folder, base = altered_files
    (folder / name).write_bytes(body)
    page.route(pattern, lambda route: route.continue_(url=f"{base}/{name}"))


def test_a_damaged_snapshot_falls_back_to_the_normal_start(page, site_server, built_site, altered_files):
    damaged = bytearray(snapshot_file(built_site).read_bytes())
    damaged[len(damaged) // 2: len(damaged) // 2 + 4096] = bytes(4096)  # a stretch of Python's heap zeroed
    serve_instead(page, "**/atlas-snapshot-*", altered_files, "damaged.bin", bytes(damaged))
    _fallback_is_ready(page, site_server, "de")
    assert any("/atlas-snapshot-" in u for u in page.requests_seen)


def test_a_snapshot_of_another_pyodide_build_falls_back_to_the_normal_start(page, site_server, built_site,
                                                                            altered_files):
    """A snapshot that matches its name but not the runtime (another Pyodide build id in its header)."""
    foreign = bytearray(snapshot_file(built_site).read_bytes())
    foreign[16:48] = bytes(32)  # the build id Pyodide checks on restore
    foreign = bytes(foreign)
    name = f"atlas-snapshot-{webbundle.version_of(foreign)}.bin"
    assert hashlib.sha256(foreign).hexdigest().startswith(name[15:27])

    def rewrite(route):
        html = route.fetch().text()
        html = re.sub(r"atlas-snapshot-[0-9a-f]{12}\.bin", name, html)
        route.fulfill(status=200, body=html, headers={"content-type": "text/html; charset=utf-8"})

    page.route(re.compile(r".*/calculators/vram/(\?.*)?$"), rewrite)
    serve_instead(page, f"**/{name}", altered_files, name, foreign)
    _fallback_is_ready(page, site_server)
    assert any(u.endswith(name) for u in page.requests_seen)


def test_every_runtime_page_names_this_builds_snapshot(built_site):
    path = snapshot_file(built_site)
    assert path.name == f"atlas-snapshot-{webbundle.version_of(path.read_bytes())}.bin"
    for html in built_site.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        meta = re.search(r'<meta name="atlas-runtime" content="([^"]+)">', text)
        if meta:
            assert json.loads(meta.group(1).replace("&#34;", '"'))["snapshot"] == path.name, html


# --- The snapshot only where it pays (pyodide-worker.mjs, slowLink / snapshotPlan) ----------------------------

SNAPSHOT_REQUEST = "/assets/vendor/pyodide/atlas-snapshot-"
KEPT_SNAPSHOTS = """() => caches.open('atlas-runtime-v1').then(c => c.keys())
    .then(keys => keys.map(r => r.url).filter(u => u.includes('/atlas-snapshot-')))"""
DROP_SNAPSHOTS = """() => caches.open('atlas-runtime-v1').then(c => c.keys()
    .then(keys => Promise.all(keys.filter(r => r.url.includes('/atlas-snapshot-')).map(r => c.delete(r)))))"""


def slow_link(context, page):
    """A link Chromium rates "3g" (round trip 300 ms, no throughput limit, so the test stays quick): DevTools'
    network emulation also sets navigator.connection in the page's workers (3g, rtt 300)."""
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions",
             {"offline": False, "latency": 300, "downloadThroughput": -1, "uploadThroughput": -1})


def slow_visit(context, site_server, lang: str, seen: list):
    """The memory calculator opened on a slow link in a new page of ``context``, once its runtime is ready, and
    the worker's timings; ``seen`` is emptied and then collects the page's requests."""
    page = context.new_page()
    seen.clear()
    page.on("request", lambda r: seen.append(r.url))
    slow_link(context, page)
    page.goto(page_url(site_server, lang, "vram", QUERY))
    assert wait_status(page, "ready", "invalid", "failed") == "ready"
    return page, page.evaluate(TIMINGS)


def test_on_a_slow_link_the_first_visit_starts_without_the_snapshot_and_keeps_it_for_the_next(browser, site_server):
    context = browser.new_context(service_workers="allow")
    seen = []
    try:
        page, info = slow_visit(context, site_server, "en", seen)
        assert info["link"]["effectiveType"] == "3g"
        assert (info["snapshot"], info["snapshot_plan"]) == (False, "slow-link")
        assert not [u for u in seen if SNAPSHOT_REQUEST in u]  # neither before "ready" nor by the worker after it
        assert_matches_cli(page, "vram", PARAMS, "en")
        # After "ready" the service worker is registered; its install keeps the snapshot by its hash.
        page.wait_for_function("() => document.documentElement.dataset.atlasOffline === 'ready'", timeout=120_000)
        (kept,) = page.evaluate(KEPT_SNAPSHOTS)
        assert re.search(r"/atlas-snapshot-([0-9a-f]{12})\.bin\?v=\1$", kept), kept

        # The next visit, on the same slow link, starts from the kept copy.
        page, info = slow_visit(context, site_server, "de", seen)
        assert (info["snapshot"], info["snapshot_plan"]) == (True, "cache")
        assert_matches_cli(page, "vram", PARAMS, "de")

        # Controlled by the service worker but the snapshot no longer kept: started without it, then fetched
        # once by the worker after "ready", through the service worker, which keeps it again.
        page.evaluate(DROP_SNAPSHOTS)
        assert page.evaluate(KEPT_SNAPSHOTS) == []
        page, info = slow_visit(context, site_server, "en", seen)
        assert (info["snapshot"], info["snapshot_plan"]) == (False, "slow-link")
        page.wait_for_function(KEPT_SNAPSHOTS.replace("u.includes('/atlas-snapshot-')))",
                                                      "u.includes('/atlas-snapshot-'))).then(k => k.length === 1)"),
                               timeout=120_000)
        assert len([u for u in seen if SNAPSHOT_REQUEST in u]) == 1
    finally:
        context.close()


# navigator.connection as Safari and Firefox have it (missing) and with "save data" on. An init script does not
# reach a worker, so the worker script itself is served with the fake in front of it.
FAKE_LINKS = {
    "missing": ("Object.defineProperty(WorkerNavigator.prototype, 'connection', {get: () => undefined});",
                True, "network"),
    "save-data": ("Object.defineProperty(WorkerNavigator.prototype, 'connection', {get: () => "
                  "({effectiveType: '4g', downlink: 10, rtt: 50, saveData: true})});", False, "save-data"),
}


@pytest.mark.parametrize("fake", sorted(FAKE_LINKS))
def test_without_the_network_api_the_snapshot_is_used_and_save_data_leaves_it_out(page, site_server, fake):
    prefix, used, plan = FAKE_LINKS[fake]

    def with_fake(route):
        response = route.fetch()
        route.fulfill(response=response, body=prefix + "\n" + response.text())

    page.route("**/pyodide-worker.mjs", with_fake)
    page.goto(page_url(site_server, "en", "vram", QUERY))
    assert wait_status(page, "ready", "invalid", "failed") == "ready"
    info = page.evaluate(TIMINGS)
    assert (info["snapshot"], info["snapshot_plan"]) == (used, plan)
    assert (info["link"] is None) == (fake == "missing")
    assert any(SNAPSHOT_REQUEST in u for u in page.requests_seen) == used
    assert_matches_cli(page, "vram", PARAMS, "en")
    assert page.console_errors == []

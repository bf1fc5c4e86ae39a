"""Benchmark of the in-page calculators in headless Chromium (``make bench``; not a test).

Serves a built site on 127.0.0.1 and measures, over several runs with a cold
cache each (medians):

- ``bare_load_ms``: ``loadPyodide()`` alone in a module worker on the same origin;
- ``ready_ms``: navigation start until the memory calculator shows its first live result;
- ``ready_ratio``: ``ready_ms`` / ``bare_load_ms`` (goal <= 1.0, issue 34);
- ``recompute_ms``: input event until the new result is in the page (p50, p95; goal p95 <= 50 ms),
  and ``worker_call_ms``, the part of it spent on a request to the worker and back;
- ``ready_phases_ms``: when the worker started, how long Pyodide and our Python setup took;
- ``longest_task_ms``: the longest main-thread task while loading (goal: none over 50 ms, issue 34);
- ``bytes``: bytes transferred by a calculator page (until ready) and by a content page;
- ``start_on_focus``: time from the reader's first focus to a live result when the
  runtime starts on page load (default) or only on that first focus;
- ``repeat_ready_ms``: a second navigation to the calculator in the same browser context, once the
  service worker (sw.js) has kept the runtime: navigation start until the first live result (and
  ``repeat_ready_without_service_worker_ms``, the same with service workers blocked: HTTP cache only);
- ``offline_repeat``: whether, after that visit, the calculator still answers with the context offline
  and the page reloaded ("yes"/"no", every run);
- ``bytes_compressed``: bytes transferred until ready on a cold visit when the server sends the build's
  ``.gz`` copies (as nginx ``gzip_static`` does), beside the uncompressed figure;
- ``snapshot``: cold ready time with the build's memory snapshot and without it (its request refused, so
  the worker starts Pyodide as before), alternating in the same browser, and whether the runs really
  started from it (``timings.snapshot``);
- ``throttled``: a cold visit under a phone-like profile, Lighthouse's ``mobileSlow4G`` preset as DevTools
  throttling applies it (``THROTTLED_PROFILE``: 562.5 ms request latency, 1,474.56 kbit/s down, 675 kbit/s up,
  CPU 4x slower), set over CDP (``Network.emulateNetworkConditions``, ``Emulation.setCPUThrottlingRate``), with
  the server sending the build's ``.gz`` copies: a bare ``loadPyodide()`` and the calculator's ready time,
  alternating, and their ratio (goal: ready <= bare). The network limits reach the workers' requests; the
  CPU slowdown does not reach a worker (Chromium refuses it there: "only supported for pages"), so it slows
  the page's main thread only, while Pyodide starts in a worker on both sides.

Writes ``bench/results.json`` and prints a table. Usage:
``python -m bench.calculators --site SITE_DIR [--runs 5]`` (from the repository root);
``--only offline`` measures the service-worker and compression figures alone (written to
``bench/tmp/offline-results.json``), ``--only snapshot`` the snapshot figures alone
(``bench/tmp/snapshot-results.json``), ``--only throttled`` the throttled profile alone
(``bench/tmp/throttled-results.json``, ``--runs`` pairs). The throttled part is slow (about two minutes a
pair on the development machine), so the whole bench measures ``--throttled-runs`` pairs (default 1; 0 skips it).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

from atlas.data import REPO_ROOT
from tests.conftest import CHROMIUM, CHROMIUM_ARGS, _QuietHandler

VRAM = "/calculators/vram/"
CONTENT = "/compare/"
LONGTASKS = """
window.__longtasks = [];
new PerformanceObserver((list) => list.getEntries().forEach((e) => window.__longtasks.push(e.duration)))
  .observe({ type: "longtask", buffered: true });
"""
# Function predicates, not bare expressions: Playwright evaluates those with eval, which the CSP refuses.
READY = "() => document.querySelector('[data-calc-status]').dataset.calcStatus === 'ready'"
# The same, for a wait that starts before the page is parsed (navigation committed only).
READY_ONCE_PARSED = "() => document.querySelector('[data-calc-status]')?.dataset.calcStatus === 'ready'"
PHASES = """() => {
  const rt = document.querySelector('[data-atlas-calculator]').atlasCalculator.runtime;
  return { worker_started: rt.started, pyodide: rt.info.pyodide_ms, python_setup: rt.info.total_ms - rt.info.pyodide_ms,
           runtime_ready: rt.started + rt.info.ready_ms, first_result: performance.now() };
}"""
WORKER_CALLS = """async (n) => {
  const rt = document.querySelector('[data-atlas-calculator]').atlasCalculator.runtime;
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await rt.call('calculators.render', { command: 'vram', params: { model: 'llama-3.1-8b', context: String(1024 + 512 * i) }, lang: 'en' });
    times.push(performance.now() - t0);
  }
  return times;
}"""
# The bare baseline runs in a worker file served from the site itself: the site's
# Content-Security-Policy allows workers from 'self' only (no blob: URLs).
BARE_WORKER_FILE = "bench-bare-worker.mjs"
BARE_WORKER = """import { loadPyodide } from "./assets/vendor/pyodide/pyodide.mjs";
const t0 = performance.now();
await loadPyodide({ indexURL: new URL("./assets/vendor/pyodide/", import.meta.url).href });
postMessage(performance.now() - t0);
"""
BARE = """async (url) => {
  const t0 = performance.now();
  const worker = new Worker(url, { type: "module" });
  await new Promise((resolve) => { worker.onmessage = resolve; });
  return performance.now() - t0;
}"""
RECOMPUTE = """async (n) => {
  const root = document.querySelector('[data-atlas-calculator]');
  const calc = root.atlasCalculator;
  const field = root.querySelector('[name=context]');
  const times = [];
  for (let i = 0; i < n; i++) {
    const before = calc.renders;
    const done = new Promise((resolve) => {
      const obs = new MutationObserver(() => { if (calc.renders > before) { obs.disconnect(); resolve(); } });
      obs.observe(root, { attributes: true, attributeFilter: ['data-calc-renders'] });
    });
    const t0 = performance.now();
    field.value = String(1024 + 512 * (i % 16));
    field.dispatchEvent(new Event('input', { bubbles: true }));
    await done;
    await new Promise((r) => requestAnimationFrame(() => r()));  // until the new result is painted
    times.push(performance.now() - t0);
  }
  return times;
}"""


OFFLINE_READY = "() => document.documentElement.dataset.atlasOffline === 'ready'"

# Lighthouse's mobile default, "mobileSlow4G" (rttMs 150, throughputKbps 1.6 * 1024, cpuSlowdownMultiplier 4),
# in the form it takes for DevTools throttling: requestLatencyMs 150 * 3.75, downloadThroughputKbps
# 1.6 * 1024 * 0.9, uploadThroughputKbps 750 * 0.9 (GoogleChrome/lighthouse, core/config/constants.js).
THROTTLED_PROFILE = {
    "name": "Lighthouse mobileSlow4G, DevTools throttling",
    "request_latency_ms": 150 * 3.75,
    "download_kbit_s": round(1.6 * 1024 * 0.9, 2),
    "upload_kbit_s": round(750 * 0.9, 2),
    "cpu_slowdown": 4,
}


class _GzipStaticHandler(_QuietHandler):
    """Sends ``file.gz`` with ``Content-Encoding: gzip`` where the build wrote one and the browser accepts
    gzip, as nginx's ``gzip_static on`` does."""

    def send_head(self):
        path = self.translate_path(self.path)
        if "gzip" not in self.headers.get("Accept-Encoding", "") or not os.path.isfile(path + ".gz"):
            return super().send_head()
        f = open(path + ".gz", "rb")  # noqa: SIM115 -- the base class closes it after copying
        size = os.fstat(f.fileno()).st_size
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(size))
        self.send_header("Last-Modified", self.date_time_string(os.path.getmtime(path)))
        self.end_headers()
        return f


def serve_forever(site: str, port: int, gzip_static: bool = False) -> None:
    """The static server, in its own process so it never waits for this one's interpreter lock."""
    handler = functools.partial(_GzipStaticHandler if gzip_static else _QuietHandler, directory=site)
    http.server.ThreadingHTTPServer(("127.0.0.1", port), handler).serve_forever()


def serve(site: Path, gzip_static: bool = False):
    """Start the static server for ``site`` in a child process; return (process, base URL)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cmd = [sys.executable, "-m", "bench.calculators", "--serve", str(site), str(port)] + (["--gzip"] if gzip_static else [])
    child = subprocess.Popen(cmd, cwd=REPO_ROOT)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    return child, f"http://127.0.0.1:{port}"


def transferred(page) -> dict:
    """Record the bytes of every finished response on ``page`` (headers + body, as served)."""
    sizes = {"bytes": 0, "requests": 0}

    def done(request):
        s = request.sizes()
        sizes["bytes"] += s["responseBodySize"] + s["responseHeadersSize"]
        sizes["requests"] += 1

    page.on("requestfinished", done)
    return sizes


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def offline_figures(browser, site: Path, runs: int) -> dict:
    """Repeat-visit ready time and offline reload (service worker), and compressed bytes until ready.

    Each run: a fresh context visits the calculator, waits until the service worker reports that it kept
    everything (``<html data-atlas-offline="ready">``), navigates to it again (timed), then goes offline,
    with the server stopped, and reloads. One more cold visit against a server that sends the ``.gz``
    copies counts the compressed bytes."""
    repeat, repeat_no_sw, offline = [], [], []
    for _ in range(runs):
        server, base = serve(site)
        try:
            # The same second visit without the service worker (HTTP cache only), for comparison.
            ctx = browser.new_context(service_workers="block")
            page = ctx.new_page()
            page.goto(base + VRAM)
            page.wait_for_function(READY, timeout=300_000)
            page.goto(base + VRAM)
            page.wait_for_function(READY, timeout=300_000)
            repeat_no_sw.append(page.evaluate("() => performance.now()"))
            ctx.close()

            ctx = browser.new_context()
            page = ctx.new_page()
            page.goto(base + VRAM)
            page.wait_for_function(READY, timeout=300_000)
            page.wait_for_function(OFFLINE_READY, timeout=120_000)
            page.goto(base + VRAM)
            page.wait_for_function(READY, timeout=300_000)
            repeat.append(page.evaluate("() => performance.now()"))
        finally:
            server.terminate()
            server.wait()
        ctx.set_offline(True)
        try:
            page.reload()
            page.wait_for_function(READY, timeout=120_000)
            offline.append(True)
        except Exception:  # noqa: BLE001 -- any failure means "no"
            offline.append(False)
        ctx.close()

    server, base = serve(site, gzip_static=True)
    try:
        ctx = browser.new_context()
        page = ctx.new_page()
        sizes = transferred(page)
        page.goto(base + VRAM)
        page.wait_for_function(READY, timeout=300_000)
        compressed = sizes["bytes"]
        ctx.close()
    finally:
        server.terminate()
        server.wait()
    gz = sorted(str(p.relative_to(site)) for p in site.rglob("*.gz"))
    return {
        "repeat_ready_ms": round(statistics.median(repeat)),
        "repeat_ready_runs_ms": [round(x) for x in repeat],
        "repeat_ready_without_service_worker_ms": round(statistics.median(repeat_no_sw)),
        "offline_repeat": "yes" if offline and all(offline) else "no",
        "bytes_compressed": {"calculator_page": compressed, "gzip_copies": gz},
    }


SNAPSHOT_INFO = """() => {
  const rt = document.querySelector('[data-atlas-calculator]').atlasCalculator.runtime;
  return { snapshot: rt.info.snapshot === true, pyodide_ms: rt.info.pyodide_ms, total_ms: rt.info.total_ms };
}"""


def snapshot_figures(browser, base: str, runs: int, bare_url: str | None = None) -> dict:
    """Cold ready time of the memory calculator with the build's memory snapshot and without it (the
    snapshot's request refused: the worker falls back to the normal start), alternating in one browser.
    Service workers are blocked so that every visit is cold. With ``bare_url`` (the bare baseline's
    worker) each run also times a bare ``loadPyodide()``."""
    ready = {"with": [], "without": []}
    pyodide = {"with": [], "without": []}
    used = {"with": [], "without": []}
    bare = []
    for _ in range(runs):
        if bare_url:
            ctx = browser.new_context()
            page = ctx.new_page()
            page.goto(base + CONTENT)
            bare.append(page.evaluate(BARE, bare_url))
            ctx.close()
        for mode in ("with", "without"):
            ctx = browser.new_context(service_workers="block")
            page = ctx.new_page()
            if mode == "without":
                page.route("**/atlas-snapshot-*", lambda route: route.abort())
            page.goto(base + VRAM)
            page.wait_for_function(READY, timeout=300_000)
            ready[mode].append(page.evaluate("() => performance.now()"))
            info = page.evaluate(SNAPSHOT_INFO)
            pyodide[mode].append(info["pyodide_ms"])
            used[mode].append(info["snapshot"])
            ctx.close()
    med = statistics.median
    figures = {"bare_load_ms": round(med(bare))} if bare else {}
    if bare:
        figures["ready_ratio_with_snapshot"] = round(med(ready["with"]) / med(bare), 2)
        figures["ready_ratio_without_snapshot"] = round(med(ready["without"]) / med(bare), 2)
    return {
        **figures,
        "ready_with_snapshot_ms": round(med(ready["with"])),
        "ready_without_snapshot_ms": round(med(ready["without"])),
        "ready_runs_ms": {mode: [round(x) for x in values] for mode, values in ready.items()},
        "pyodide_start_ms": {mode: round(med(values)) for mode, values in pyodide.items()},
        "started_from_snapshot": {mode: values for mode, values in used.items()},
    }


def run_snapshot_only(site: Path, runs: int) -> dict:
    from playwright.sync_api import sync_playwright

    load_before = os.getloadavg()[0]
    (site / BARE_WORKER_FILE).write_text(BARE_WORKER, encoding="utf-8")
    server, base = serve(site)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            result = snapshot_figures(browser, base, runs, f"{base}/{BARE_WORKER_FILE}")
            browser.close()
    finally:
        server.terminate()
        server.wait()
        (site / BARE_WORKER_FILE).unlink(missing_ok=True)
    return {"runs": runs, "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)], "snapshot": result}


def snapshot_rows(r: dict) -> list[tuple[str, str, str]]:
    s = r["snapshot"]
    bare = [("ready / bare loadPyodide, with / without the snapshot",
             f"{s['ready_ratio_with_snapshot']} / {s['ready_ratio_without_snapshot']}",
             f"bare {s['bare_load_ms']} ms")] if "bare_load_ms" in s else []
    return [
        *bare,
        ("calculator ready, from the memory snapshot (median)", f"{s['ready_with_snapshot_ms']} ms", "cold"),
        ("calculator ready, without the snapshot (median)", f"{s['ready_without_snapshot_ms']} ms", "same browser"),
        ("  Pyodide start, with / without the snapshot",
         f"{s['pyodide_start_ms']['with']} / {s['pyodide_start_ms']['without']} ms", "in the worker"),
    ]


def throttle(ctx, page, profile: dict = THROTTLED_PROFILE) -> None:
    """Apply ``profile`` to ``page`` over CDP: its network conditions (they also hold for the requests of the
    page's workers) and its CPU slowdown (the page's main thread only: Chromium refuses it for workers)."""
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False,
        "latency": profile["request_latency_ms"],
        "downloadThroughput": profile["download_kbit_s"] * 1024 / 8,  # bytes per second
        "uploadThroughput": profile["upload_kbit_s"] * 1024 / 8,
    })
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": profile["cpu_slowdown"]})


def throttled_figures(browser, site: Path, runs: int) -> dict:
    """Cold visits under ``THROTTLED_PROFILE``, against a server that sends the build's ``.gz`` copies (as a
    phone would be served), alternating in one browser: a bare ``loadPyodide()`` (its worker started from the
    content page, loaded unthrottled first; timed from the worker's start) and the memory calculator (timed
    from navigation start until the first live result). Service workers are blocked: every visit is cold.
    Needs the bare baseline's worker file in ``site``."""
    bare, ready, used = [], [], []
    sent = {"bare": [], "ready": []}  # bytes transferred (the workers' requests included)
    server, base = serve(site, gzip_static=True)
    try:
        for _ in range(runs):
            ctx = browser.new_context(service_workers="block")
            page = ctx.new_page()
            page.goto(base + CONTENT, wait_until="networkidle")
            throttle(ctx, page)
            sizes = transferred(page)
            bare.append(page.evaluate(BARE, f"{base}/{BARE_WORKER_FILE}"))
            sent["bare"].append(sizes["bytes"])
            ctx.close()

            ctx = browser.new_context(service_workers="block")
            page = ctx.new_page()
            throttle(ctx, page)
            sizes = transferred(page)
            page.goto(base + VRAM, wait_until="commit", timeout=300_000)
            page.wait_for_function(READY_ONCE_PARSED, timeout=600_000)
            ready.append(page.evaluate("() => performance.now()"))
            sent["ready"].append(sizes["bytes"])
            used.append(page.evaluate(SNAPSHOT_INFO)["snapshot"])
            ctx.close()
    finally:
        server.terminate()
        server.wait()
    med = statistics.median
    return {
        "profile": THROTTLED_PROFILE,
        "cpu_slowdown_applies_to": "the page's main thread only (Chromium refuses it for workers)",
        "served": "the build's .gz copies where there are some (as nginx gzip_static)",
        "bare_load_ms": round(med(bare)),
        "ready_ms": round(med(ready)),
        "ready_ratio": round(med(ready) / med(bare), 2),
        "runs_ms": {"bare": [round(x) for x in bare], "ready": [round(x) for x in ready]},
        "bytes": {side: int(med(values)) for side, values in sent.items()},
        "started_from_snapshot": used,
    }


def run_throttled_only(site: Path, runs: int) -> dict:
    from playwright.sync_api import sync_playwright

    load_before = os.getloadavg()[0]
    (site / BARE_WORKER_FILE).write_text(BARE_WORKER, encoding="utf-8")
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            result = throttled_figures(browser, site, runs)
            browser.close()
    finally:
        (site / BARE_WORKER_FILE).unlink(missing_ok=True)
    return {"runs": runs, "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)], "throttled": result}


def throttled_rows(r: dict) -> list[tuple[str, str, str]]:
    if "throttled" not in r:
        return []
    t = r["throttled"]
    return [
        ("throttled: bare loadPyodide (median)", f"{t['bare_load_ms']} ms", t["profile"]["name"]),
        ("throttled: calculator ready (median)", f"{t['ready_ms']} ms", "goal <= bare throttled"),
        ("throttled: ready / bare loadPyodide", f"{t['ready_ratio']}", "gzip copies served, cold"),
        ("throttled: bytes until ready, bare / ours", f"{t['bytes']['bare']:,} / {t['bytes']['ready']:,}", ""),
    ]


def run_offline_only(site: Path, runs: int) -> dict:
    from playwright.sync_api import sync_playwright

    load_before = os.getloadavg()[0]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        result = offline_figures(browser, site, runs)
        browser.close()
    return {"runs": runs, "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)], **result}


def run(site: Path, runs: int, throttled_runs: int = 1) -> dict:
    from playwright.sync_api import sync_playwright

    (site / BARE_WORKER_FILE).write_text(BARE_WORKER, encoding="utf-8")
    server, base = serve(site)
    bare, ready, longest, calc_bytes, recompute, calls, phases = [], [], [], [], [], [], []
    load_before = os.getloadavg()[0]
    focus = {"load": [], "focus": []}
    try:  # the server and the worker file go even when a measurement fails
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            for _ in range(runs):
                ctx = browser.new_context()
                page = ctx.new_page()
                page.goto(base + CONTENT)
                bare.append(page.evaluate(BARE, f"{base}/{BARE_WORKER_FILE}"))
                ctx.close()

                ctx = browser.new_context()
                ctx.add_init_script(LONGTASKS)
                page = ctx.new_page()
                sizes = transferred(page)
                page.goto(base + VRAM)
                page.wait_for_function(READY, timeout=300_000)
                ready.append(page.evaluate("() => performance.now()"))
                phases.append(page.evaluate(PHASES))
                longest.append(max(page.evaluate("() => window.__longtasks"), default=0.0))
                calc_bytes.append(sizes["bytes"])
                # The service worker registers once the runtime is ready and keeps its files: let it finish
                # before timing inputs, so its fetches do not count as the calculator's response time.
                page.wait_for_function(OFFLINE_READY, timeout=120_000)
                recompute += page.evaluate(RECOMPUTE, 20)
                calls += page.evaluate(WORKER_CALLS, 20)
                ctx.close()

            for mode in ("load", "focus"):
                for _ in range(max(1, runs // 2)):  # two of each for the default five runs, one for a single run
                    ctx = browser.new_context()
                    ctx.add_init_script(f"globalThis.atlasCalculatorStart = {json.dumps(mode)};")
                    page = ctx.new_page()
                    page.goto(base + VRAM)
                    page.wait_for_timeout(2000)  # the reader reads the pre-computed answer for two seconds
                    t0 = time.perf_counter()
                    page.focus("[name=context]")
                    page.wait_for_function(READY, timeout=300_000)
                    focus[mode].append((time.perf_counter() - t0) * 1000)
                    ctx.close()

            ctx = browser.new_context()
            page = ctx.new_page()
            sizes = transferred(page)
            page.goto(base + CONTENT, wait_until="networkidle")
            content_bytes = sizes["bytes"]
            ctx.close()
            snapshot = snapshot_figures(browser, base, runs)
            offline = offline_figures(browser, site, runs)
            throttled = {"throttled": throttled_figures(browser, site, throttled_runs)} if throttled_runs else {}
            browser.close()
    finally:
        server.terminate()
        server.wait()
        (site / BARE_WORKER_FILE).unlink(missing_ok=True)

    med = statistics.median
    return {
        "runs": runs,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}, Chromium headless, "
                   "site on 127.0.0.1 (uncompressed)",
        "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "bare_load_ms": round(med(bare)),
        "ready_ms": round(med(ready)),
        "ready_ratio": round(med(ready) / med(bare), 2),
        "recompute_ms": {"p50": round(percentile(recompute, 0.5), 1), "p95": round(percentile(recompute, 0.95), 1),
                         "samples": len(recompute)},
        "worker_call_ms": {"p50": round(percentile(calls, 0.5), 1), "p95": round(percentile(calls, 0.95), 1)},
        "ready_phases_ms": {key: round(med([p[key] for p in phases])) for key in phases[0]},
        "longest_task_ms": round(med(longest)),
        "longest_task_max_ms": round(max(longest)),
        "bytes": {"calculator_page": int(med(calc_bytes)), "content_page": content_bytes},
        "start_on_focus": {"focus_to_ready_ms_when_loading_on_page_load": round(med(focus["load"])),
                           "focus_to_ready_ms_when_loading_on_first_focus": round(med(focus["focus"]))},
        "snapshot": snapshot,
        **offline,
        **throttled,
    }


def offline_rows(r: dict) -> list[tuple[str, str, str]]:
    return [
        ("repeat visit ready (service worker, median)", f"{r['repeat_ready_ms']} ms", "goal <= 1000 ms"),
        ("  the same without service worker (HTTP cache)", f"{r['repeat_ready_without_service_worker_ms']} ms", ""),
        ("offline repeat works (context offline, reload)", r["offline_repeat"], "goal yes"),
        ("bytes until ready, gzip copies served", f"{r['bytes_compressed']['calculator_page']:,}", ""),
    ]


def table(r: dict) -> str:
    rows = [
        ("bare loadPyodide (median)", f"{r['bare_load_ms']} ms", ""),
        ("calculator ready (median, from navigation)", f"{r['ready_ms']} ms", ""),
        ("ready / bare loadPyodide", f"{r['ready_ratio']}", "goal <= 1.0"),
        ("recompute after an input, p50 / p95", f"{r['recompute_ms']['p50']} / {r['recompute_ms']['p95']} ms",
         "goal p95 <= 50 ms"),
        ("  of which Python in the worker, p50 / p95",
         f"{r['worker_call_ms']['p50']} / {r['worker_call_ms']['p95']} ms", "request to answer"),
        ("longest main-thread task while loading (median / max)",
         f"{r['longest_task_ms']} / {r['longest_task_max_ms']} ms", "goal <= 50 ms"),
        ("bytes, calculator page until ready", f"{r['bytes']['calculator_page']:,}", ""),
        ("bytes, content page (/compare/)", f"{r['bytes']['content_page']:,}", ""),
        ("first focus -> live result, loading on page load",
         f"{r['start_on_focus']['focus_to_ready_ms_when_loading_on_page_load']} ms", ""),
        ("first focus -> live result, loading on first focus",
         f"{r['start_on_focus']['focus_to_ready_ms_when_loading_on_first_focus']} ms", ""),
        *snapshot_rows(r),
        *offline_rows(r),
        *throttled_rows(r),
    ]
    width = max(len(a) for a, _, _ in rows)
    lines = [f"{'measure':<{width}}  {'value':>16}  note", "-" * (width + 30)]
    lines += [f"{a:<{width}}  {b:>16}  {c}" for a, b, c in rows]
    p = r["ready_phases_ms"]
    lines += ["", "ready, step by step (ms after navigation, medians): worker started {worker_started}, "
              "Pyodide loaded +{pyodide}, our Python set up +{python_setup}, runtime ready {runtime_ready}, "
              "first live result {first_result}".format(**p),
              f"load average during the run: {r['load_average'][0]} -> {r['load_average'][1]} ({r['machine']})"]
    return "\n".join(lines)


# ``--only``: the results file under bench/tmp/, the measurement, its table rows and the row format.
ONLY = {
    "snapshot": ("snapshot-results.json", run_snapshot_only, snapshot_rows, "{:<52}  {:>14}  {}"),
    "offline": ("offline-results.json", run_offline_only, offline_rows, "{:<50}  {:>12}  {}"),
    "throttled": ("throttled-results.json", run_throttled_only, throttled_rows, "{:<42}  {:>24}  {}"),
}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--serve"]:
        serve_forever(argv[1], int(argv[2]), gzip_static="--gzip" in argv[3:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", required=True, type=Path, help="a built site (mkdocs build)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None, help="default bench/results.json")
    parser.add_argument("--throttled-runs", type=int, default=1,
                        help="pairs of throttled cold visits in the whole bench (slow; 0 skips them)")
    parser.add_argument("--only", choices=sorted(ONLY),
                        help="measure only the service-worker and compression figures, the snapshot's or the "
                             "throttled profile's (--runs pairs)")
    args = parser.parse_args(argv)
    if args.only:
        name, measure, rows, line = ONLY[args.only]
        args.out = args.out or REPO_ROOT / "bench" / "tmp" / name
        args.out.parent.mkdir(parents=True, exist_ok=True)
        results = measure(args.site, args.runs)
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        for row in rows(results):
            print(line.format(*row))
        if args.only in ("snapshot", "throttled"):
            print(f"started from the snapshot: {results[args.only]['started_from_snapshot']}")
        if args.only == "throttled":
            print(f"runs (ms): {results['throttled']['runs_ms']}; CPU slowdown: "
                  f"{results['throttled']['cpu_slowdown_applies_to']}")
        print(f"load average during the run: {results['load_average'][0]} -> {results['load_average'][1]}")
        return 0
    args.out = args.out or REPO_ROOT / "bench" / "results.json"
    results = run(args.site, args.runs, args.throttled_runs)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(table(results))
    print(f"\nWrote {args.out.relative_to(REPO_ROOT) if args.out.is_relative_to(REPO_ROOT) else args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

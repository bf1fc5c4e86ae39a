"""Benchmark of the in-page calculators in headless Chromium (``make bench``; not a test).

Serves a built site on 127.0.0.1 and measures, over several runs with a cold
cache each (medians):

- ``bare_load_ms``: ``loadPyodide()`` alone in a module worker on the same origin;
- ``ready_ms``: navigation start until the memory calculator shows its first live result;
- ``ready_ratio``: ``ready_ms`` / ``bare_load_ms`` (goal <= 1.2);
- ``recompute_ms``: input event until the new result is in the page (p50, p95; goal p95 <= 50 ms);
- ``longest_task_ms``: the longest main-thread task while loading (goal: none over 200 ms);
- ``bytes``: bytes transferred by a calculator page (until ready) and by a content page;
- ``start_on_focus``: time from the reader's first focus to a live result when the
  runtime starts on page load (default) or only on that first focus.

Writes ``bench/results.json`` and prints a table. Usage:
``python bench/calculators.py --site SITE_DIR [--runs 5]``.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import platform
import statistics
import sys
import threading
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))
from conftest import CHROMIUM, CHROMIUM_ARGS, _QuietHandler  # noqa: E402

VRAM = "/calculators/vram/"
CONTENT = "/compare/"
LONGTASKS = """
window.__longtasks = [];
new PerformanceObserver((list) => list.getEntries().forEach((e) => window.__longtasks.push(e.duration)))
  .observe({ type: "longtask", buffered: true });
"""
READY = "document.querySelector('[data-calc-status]').dataset.calcStatus === 'ready'"
BARE = """async (base) => {
  const code = `import { loadPyodide } from "${base}/assets/vendor/pyodide/pyodide.mjs";
    const t0 = performance.now();
    await loadPyodide({ indexURL: "${base}/assets/vendor/pyodide/" });
    postMessage(performance.now() - t0);`;
  const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
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


def serve(site: Path):
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


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


def run(site: Path, runs: int) -> dict:
    from playwright.sync_api import sync_playwright

    server, base = serve(site)
    bare, ready, longest, calc_bytes, recompute = [], [], [], [], []
    focus = {"load": [], "focus": []}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        for _ in range(runs):
            ctx = browser.new_context()
            page = ctx.new_page()
            page.goto(base + CONTENT)
            bare.append(page.evaluate(BARE, base))
            ctx.close()

            ctx = browser.new_context()
            ctx.add_init_script(LONGTASKS)
            page = ctx.new_page()
            sizes = transferred(page)
            page.goto(base + VRAM)
            page.wait_for_function(READY, timeout=300_000)
            ready.append(page.evaluate("performance.now()"))
            longest.append(max(page.evaluate("window.__longtasks"), default=0.0))
            calc_bytes.append(sizes["bytes"])
            recompute += page.evaluate(RECOMPUTE, 20)
            ctx.close()

        for mode in ("load", "focus"):
            for _ in range(max(2, runs // 2)):
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
        browser.close()
    server.shutdown()

    med = statistics.median
    return {
        "runs": runs,
        "machine": f"{platform.machine()}, {platform.system()}, Chromium headless, site on 127.0.0.1 (uncompressed)",
        "bare_load_ms": round(med(bare)),
        "ready_ms": round(med(ready)),
        "ready_ratio": round(med(ready) / med(bare), 2),
        "recompute_ms": {"p50": round(percentile(recompute, 0.5), 1), "p95": round(percentile(recompute, 0.95), 1),
                         "samples": len(recompute)},
        "longest_task_ms": round(med(longest)),
        "longest_task_max_ms": round(max(longest)),
        "bytes": {"calculator_page": int(med(calc_bytes)), "content_page": content_bytes},
        "start_on_focus": {"focus_to_ready_ms_when_loading_on_page_load": round(med(focus["load"])),
                           "focus_to_ready_ms_when_loading_on_first_focus": round(med(focus["focus"]))},
    }


def table(r: dict) -> str:
    rows = [
        ("bare loadPyodide (median)", f"{r['bare_load_ms']} ms", ""),
        ("calculator ready (median, from navigation)", f"{r['ready_ms']} ms", ""),
        ("ready / bare loadPyodide", f"{r['ready_ratio']}", "goal <= 1.2"),
        ("recompute after an input, p50 / p95", f"{r['recompute_ms']['p50']} / {r['recompute_ms']['p95']} ms",
         "goal p95 <= 50 ms"),
        ("longest main-thread task while loading (median / max)",
         f"{r['longest_task_ms']} / {r['longest_task_max_ms']} ms", "goal <= 200 ms"),
        ("bytes, calculator page until ready", f"{r['bytes']['calculator_page']:,}", ""),
        ("bytes, content page (/compare/)", f"{r['bytes']['content_page']:,}", ""),
        ("first focus -> live result, loading on page load",
         f"{r['start_on_focus']['focus_to_ready_ms_when_loading_on_page_load']} ms", ""),
        ("first focus -> live result, loading on first focus",
         f"{r['start_on_focus']['focus_to_ready_ms_when_loading_on_first_focus']} ms", ""),
    ]
    width = max(len(a) for a, _, _ in rows)
    lines = [f"{'measure':<{width}}  {'value':>16}  note", "-" * (width + 30)]
    lines += [f"{a:<{width}}  {b:>16}  {c}" for a, b, c in rows]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", required=True, type=Path, help="a built site (mkdocs build)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "bench" / "results.json")
    args = parser.parse_args(argv)
    results = run(args.site, args.runs)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(table(results))
    print(f"\nWrote {args.out.relative_to(REPO_ROOT) if args.out.is_relative_to(REPO_ROOT) else args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`make bench` still runs: one run of bench/calculators.py against the built site.

The benchmark is not a test and its timings are never asserted here; this only
checks that it completes and measures what it says (it once hung unnoticed
when the site's Content-Security-Policy refused its blob: worker).
The throttled phone profile is left out (``--throttled-runs 0``): at about two minutes a pair of
visits it would more than double this test's time; ``--only throttled`` measures it alone.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys

from conftest import REPO_ROOT


def test_bench_completes_one_run(built_site, tmp_path):
    site = tmp_path / "site"
    # the benchmark adds (and removes) its baseline worker file in the site; the site's own files are linked,
    # not copied, since nothing writes to them
    shutil.copytree(built_site, site, copy_function=os.link)
    out = tmp_path / "results.json"
    cmd = [sys.executable, "-m", "bench.calculators", "--site", str(site), "--runs", "1", "--throttled-runs", "0",
           "--out", str(out)]
    done = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ready / bare loadPyodide" in done.stdout

    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["runs"] == 1
    assert "throttled" not in results  # skipped on request
    for key in ("bare_load_ms", "ready_ms", "ready_ratio"):
        assert math.isfinite(results[key]) and results[key] > 0, key
    assert results["recompute_ms"]["samples"] == 20
    assert 0 < results["recompute_ms"]["p50"] <= results["recompute_ms"]["p95"]
    phases = results["ready_phases_ms"]
    assert 0 < phases["worker_started"] < phases["runtime_ready"] <= phases["first_result"]
    # The calculator page loaded the self-hosted runtime: at least the WebAssembly binary crossed the wire.
    wasm = site / "assets" / "vendor" / "pyodide" / "pyodide.asm.wasm"
    assert results["bytes"]["calculator_page"] > wasm.stat().st_size
    assert 0 < results["bytes"]["content_page"] < results["bytes"]["calculator_page"]
    # The benchmark cleans up after itself.
    assert not any(p.name.startswith("bench-") for p in site.rglob("*")), sorted(site.rglob("bench-*"))

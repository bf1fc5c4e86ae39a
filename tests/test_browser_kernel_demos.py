"""The kernel demos in a real browser: atlas/core/kernels/systolic.py and atlas/core/kernels/roofline.py
under Pyodide, in the calculators' worker, against direct calls on CPython.

Every displayed ``data-result`` value must equal the value a direct call to
the simulator or the roofline model gives for the same inputs.
"""

import json
from urllib.parse import parse_qsl, urlsplit

import pytest
from test_browser_calculators import PYODIDE_FILES, assert_stayed_on_origin, renders, settle, wait_status

from atlas.core import l10n
from atlas.core.kernels import roofline, systolic
from atlas.core.kernelview import systolic_demo
from atlas.data import kernel_tables
from calc_results import lookup

pytestmark = pytest.mark.browser


def demo_url(base: str, lang: str, demo: str, query: str = "") -> str:
    return f"{base}{'/de' if lang == 'de' else ''}/kernels/{demo}/{query}"


def shown(page) -> dict:
    """path -> (raw value, text) of every result value on the page."""
    found = page.eval_on_selector_all(
        "[data-calc-results] [data-result]",
        "els => els.map(e => [e.dataset.result, JSON.parse(e.dataset.value), e.textContent])",
    )
    return {path: (value, text) for path, value, text in found}


def assert_clean(page):
    body = page.inner_text("body")
    for bad in ("NaN", "Infinity", "Traceback"):
        assert bad not in body
    assert page.console_errors == []
    assert page.failed_requests == []


def expected_systolic(size: int, m: int, k: int, n: int) -> dict:
    """The simulator's own figures for X (M x K) times W (K x N) on a size x size array."""
    summary = systolic.summary(m, k, n, size)
    x, w = systolic_demo.operands(m, k, n)
    run = systolic.simulate(x, w, size, trace=True)
    return {"summary": summary, "simulation": {"cycles": run["cycles"], "busy": run["busy"], "max_error": 0.0},
            "pe_cycles": size * size * summary["cycles"], "trace_frames": len(run["frames"]), "frames": run["frames"]}


def assert_systolic_shows(page, lang: str, size: int, m: int, k: int, n: int):
    expected = expected_systolic(size, m, k, n)
    values = shown(page)
    assert {"summary.cycles", "summary.utilisation", "simulation.cycles", "simulation.max_error",
            "trace_frames"} <= set(values)
    for path, (value, _text) in values.items():
        assert value == lookup(expected, path), path
    assert values["summary.cycles"][1] == l10n.format_number(expected["summary"]["cycles"], lang, 0)
    share = l10n.format_significant(100 * expected["summary"]["utilisation"], lang, 3)
    assert values["summary.utilisation"][1] == l10n.t(lang, "kernels.percent", value=share)
    cycles = page.eval_on_selector_all("[data-frame]", "els => els.map(e => Number(e.dataset.cycle))")
    assert cycles == [f["cycle"] for f in expected["frames"]]
    return expected


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_systolic_demo_runs_the_simulator_in_the_page(page, site_server, lang):
    page.goto(demo_url(site_server, lang, "systolic"))
    assert wait_status(page, "ready", "invalid", "failed") == "ready"
    assert page.inner_text("[data-calc-status]") == l10n.t(lang, "kdemo.status.ready")
    assert page.is_visible("[data-calc-run]")
    assert_systolic_shows(page, lang, 8, 8, 8, 8)
    # change the inputs: nothing happens until Run
    before = renders(page)
    page.fill("#kdemo-systolic-size", "4")
    page.fill("#kdemo-systolic-m", "6")
    assert page.inner_text("[data-calc-status]") == l10n.t(lang, "kdemo.status.changed")
    assert renders(page) == before
    page.click("[data-calc-run]")
    settle(page, before)
    assert wait_status(page, "ready") == "ready"
    expected = assert_systolic_shows(page, lang, 4, 6, 8, 8)
    page.wait_for_function("() => location.search.includes('m=6')")
    assert dict(parse_qsl(urlsplit(page.url).query)) == {"size": "4", "m": "6"}
    assert page.get_attribute("[data-calc-share]", "href").endswith("/kernels/systolic/?size=4&m=6")
    # step through the cycles: one grid at a time, its caption from the simulator's frame
    assert page.locator("[data-frame]:visible").count() == 1
    for _ in range(3):
        page.click("[data-step=next]")
    frame = expected["frames"][3]
    visible = page.locator("[data-frame]:visible")
    assert visible.count() == 1 and visible.get_attribute("data-frame") == "3"
    busy = {m for row in frame["active"] for m in row if m is not None}
    assert {int(r) for r in visible.locator("[data-row]").evaluate_all("els => els.map(e => e.dataset.row)")} == busy
    caption = l10n.t(lang, "kdemo.systolic.frame_title", cycle=frame["cycle"], tile=1, tiles=4,
                     busy=sum(1 for row in frame["active"] for m in row if m is not None), pes=16)
    assert visible.locator("strong").inner_text() == caption
    page.click("[data-step=last]")
    assert page.locator("[data-frame]:visible").get_attribute("data-frame") == str(expected["trace_frames"] - 1)
    page.fill("[data-step=to]", "0")
    assert page.locator("[data-frame]:visible").get_attribute("data-frame") == "0"
    assert_stayed_on_origin(page, site_server)
    assert_clean(page)


def test_systolic_link_runs_at_once(page, site_server):
    page.goto(demo_url(site_server, "de", "systolic", "?size=4&m=6&k=6&n=4"))
    page.wait_for_function("() => document.querySelector('[data-calc-results] [data-result=\"summary.cycles\"]')?"
                           ".dataset.value === '32'", timeout=180_000)
    assert wait_status(page, "ready") == "ready"
    assert page.input_value("#kdemo-systolic-k") == "6"
    assert_systolic_shows(page, "de", 4, 6, 6, 4)
    assert page.locator(".atlas-pe-pad").count() > 0  # K = 6 on four cells: the second tile is half padding
    assert_clean(page)


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_systolic_bad_inputs_show_messages_next_to_the_fields(page, site_server, lang):
    page.goto(demo_url(site_server, lang, "systolic"))
    wait_status(page, "ready")
    cycles_before = shown(page)["summary.cycles"]
    before = renders(page)
    page.fill("#kdemo-systolic-m", "2,5")
    page.fill("#kdemo-systolic-k", "abc")
    page.fill("#kdemo-systolic-size", "2000")
    page.press("#kdemo-systolic-size", "Enter")  # Enter runs like the button
    settle(page, before)
    assert page.inner_text("[data-calc-status]") == l10n.t(lang, "kdemo.status.invalid")
    assert page.inner_text("[data-error-for='m']") == l10n.t(lang, "kernels.error.not_whole", value="2,5")
    assert page.inner_text("[data-error-for='k']") == l10n.t(lang, "kernels.error.not_a_number", value="abc")
    assert page.inner_text("[data-error-for='size']") == l10n.t(lang, "kernels.error.too_large", value="2000",
                                                                high=l10n.format_number(1024, lang, 0))
    assert not page.is_visible("[data-error-for='n']")
    assert page.get_attribute("#kdemo-systolic-k", "aria-invalid") == "true"
    assert shown(page)["summary.cycles"] == cycles_before  # the last good result stays, marked stale
    assert page.eval_on_selector("[data-calc-results]", "e => e.classList.contains('atlas-calc-stale')")
    # corrected, it runs again
    before = renders(page)
    page.fill("#kdemo-systolic-m", "3")
    page.fill("#kdemo-systolic-k", "")  # blank: the default
    page.fill("#kdemo-systolic-size", "8")
    page.click("[data-calc-run]")
    settle(page, before)
    assert wait_status(page, "ready") == "ready"
    assert not page.is_visible("[data-error-for='m']")
    assert_systolic_shows(page, lang, 8, 3, 8, 8)
    assert_clean(page)


def expected_roofline(dataset, device_id: str, precision: str, intensity: float) -> dict:
    """``atlas.core.kernels.roofline.explore`` with the peak the build-time roofline tables use."""
    _, peak, bandwidth = kernel_tables.device_roof(dataset.devices, device_id, precision)
    return {"roofline": roofline.explore(peak["value"], bandwidth, intensity)}


@pytest.mark.parametrize("lang, typed", [("en", "2.5"), ("de", "2,5")])
def test_roofline_explorer_follows_the_inputs(page, site_server, dataset, lang, typed):
    page.goto(demo_url(site_server, lang, "roofline"))
    assert wait_status(page, "ready", "invalid", "failed") == "ready"
    assert page.inner_text("[data-calc-status]") == l10n.t(lang, "kdemo.status.ready")
    assert not page.is_visible("[data-calc-run]")  # live: no button
    for path, (value, _) in shown(page).items():
        assert value == lookup(expected_roofline(dataset, "h100-sxm", "bf16", 100), path), path
    before = renders(page)
    page.select_option("#kdemo-roofline-device", "a100-sxm-80gb")
    page.select_option("#kdemo-roofline-precision", "fp16")
    page.fill("#kdemo-roofline-intensity", typed)
    settle(page, before)
    page.wait_for_function("() => location.search.includes('intensity=')")
    assert dict(parse_qsl(urlsplit(page.url).query)) == {"device": "a100-sxm-80gb", "precision": "fp16",
                                                         "intensity": typed}
    expected = expected_roofline(dataset, "a100-sxm-80gb", "fp16", 2.5)
    values = shown(page)
    assert len(values) >= 8
    for path, (value, _) in values.items():
        assert value == lookup(expected, path), path
    r = expected["roofline"]
    assert values["roofline.attainable_tflops"][1] == l10n.format_significant(r["attainable_tflops"], lang, 3)
    assert values["roofline.bound"][1] == l10n.t(lang, "kernels.roofline.bound.memory")
    chart = page.locator("[data-calc-results] svg[data-chart='roofline']")
    assert chart.count() == 1 and chart.locator("[data-device='a100-sxm-80gb']").count() == 1
    assert_stayed_on_origin(page, site_server)
    assert_clean(page)


def test_roofline_link_and_bad_inputs(page, site_server, dataset):
    page.goto(demo_url(site_server, "de", "roofline", "?device=tpu-v5e&precision=fp64&intensity=abc"))
    assert wait_status(page, "ready", "invalid") == "invalid"
    assert page.inner_text("[data-error-for='precision']") == (
        "Für TPU v5e nennt der Datensatz keinen FP64-Wert. Vorhanden sind: BF16, INT8.")
    assert page.inner_text("[data-error-for='intensity']") == l10n.t("de", "kernels.error.not_a_number", value="abc")
    for typed, key in (("-1", "not_positive"), ("1e13", "too_large"), ("", None)):
        before = renders(page)
        page.fill("#kdemo-roofline-intensity", typed)
        settle(page, before)
        if key:
            limit = {"high": l10n.format_number(10**12, "de", 0)} if key == "too_large" else {}
            assert page.inner_text("[data-error-for='intensity']") == l10n.t("de", f"kernels.error.{key}", value=typed,
                                                                             **limit)
        else:
            assert not page.is_visible("[data-error-for='intensity']")
    before = renders(page)
    page.select_option("#kdemo-roofline-precision", "int8")
    settle(page, before)
    assert wait_status(page, "ready") == "ready"
    for path, (value, _) in shown(page).items():
        assert value == lookup(expected_roofline(dataset, "tpu-v5e", "int8", 100), path), path
    assert_clean(page)


def test_unknown_device_in_a_link_is_explained(page, site_server):
    page.goto(demo_url(site_server, "en", "roofline", "?device=h200-sx&colour=blue"))
    assert wait_status(page, "ready", "invalid") == "invalid"
    assert "h200-sxm" in page.inner_text("[data-error-for='device']")
    assert "‘colour’" in page.inner_text("[data-calc-errors]")
    assert page.eval_on_selector("#kdemo-roofline-device", "e => e.value") == "h200-sx"


@pytest.mark.parametrize("lang, demo", [("en", "systolic"), ("de", "roofline")])
def test_prerendered_result_without_javascript(browser, site_server, lang, demo):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(demo_url(site_server, lang, demo))
    assert page.inner_text("[data-calc-status]") == l10n.t(lang, "kdemo.status.static")
    values = shown(page)
    assert len(values) >= 6
    if demo == "systolic":
        assert values["summary.cycles"][0] == systolic.cycles(8, 8, 8, 8)
        assert page.locator("[data-frame]:visible").count() == systolic_demo.run(
            {"size": 8, "m": 8, "k": 8, "n": 8}, {}, lang)[0]["trace_frames"]  # every cycle side by side
        assert not page.is_visible("[data-stepper-controls]") and not page.is_visible("[data-calc-run]")
    else:
        assert values["roofline.attainable_tflops"][0] == 335.0
    assert not [u for u in requests if any(f in u for f in PYODIDE_FILES)]
    context.close()


@pytest.mark.parametrize("lang, demo, missing", [("de", "systolic", "pyodide.asm.wasm"),
                                                 ("en", "roofline", "atlas-python.zip")])
def test_missing_runtime_keeps_the_prerendered_result(page, site_server, lang, demo, missing):
    page.route(f"**/{missing}*", lambda route: route.fulfill(status=404, body="missing"))
    page.goto(demo_url(site_server, lang, demo))
    assert wait_status(page, "failed", "ready") == "failed"
    assert page.inner_text("[data-calc-status]") == l10n.t(lang, "kdemo.status.failed.load")
    path = "summary.cycles" if demo == "systolic" else "roofline.attainable_tflops"
    assert shown(page)[path][0] == (systolic.cycles(8, 8, 8, 8) if demo == "systolic" else 335.0)
    assert not page.is_visible("[data-calc-run]")


def test_the_tpu_page_links_the_simulator(page, site_server):
    page.goto(site_server + "/de/hardware/tpus/")
    link = page.locator("article a[href*='kernels/systolic/#run']")
    assert link.count() == 1
    link.click()
    assert wait_status(page, "ready", "invalid", "failed") == "ready"
    assert urlsplit(page.url).path == "/de/kernels/systolic/"
    assert json.loads(page.get_attribute("[data-result='summary.cycles']", "data-value")) == systolic.cycles(8, 8, 8, 8)

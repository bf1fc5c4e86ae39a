"""The calculators in a real browser: Pyodide in a Web Worker, against the command line.

Every displayed ``data-result`` value must equal the value at the same path
in ``python -m atlas … --json`` for the same inputs.
"""

import json
import subprocess
import sys
from urllib.parse import parse_qsl, urlsplit

import pytest

from atlas.core import l10n
from atlas.core.calculators.api import handle
from calc_results import lookup
from calculators_support import catalog
from conftest import REPO_ROOT

pytestmark = pytest.mark.browser

READY_MS = 180_000  # Pyodide compiles 10 MB of WebAssembly; slow CI machines need time
PAGE_DEFAULTS = {
    "vram": {"model": "llama-3.1-8b"},
    "speed": {"model": "llama-3.1-8b", "device": "h100-sxm", "baseline": "a100-sxm-80gb"},
}
PYODIDE_FILES = ("/vendor/pyodide/", "atlas-python.zip", "atlas-data.json", "pyodide-worker.mjs")


def cli_json(command: str, params: dict, lang: str) -> dict:
    """What ``python -m atlas <command> … --json`` prints for ``params``."""
    args = [sys.executable, "-m", "atlas", command, "--json", "--lang", lang]
    for name, value in params.items():
        args += [f"--{name.replace('_', '-')}", str(value)]
    out = subprocess.run(args, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def page_url(base: str, lang: str, command: str, query: str = "") -> str:
    return f"{base}{'/de' if lang == 'de' else ''}/calculators/{command}/{query}"


def wait_status(page, *states, timeout=READY_MS):
    page.wait_for_function(
        # Null-safe: after a click on a link the next page may not have its calculator yet.
        "states => states.includes(document.querySelector('[data-calc-status]')?.dataset.calcStatus)",
        arg=list(states), timeout=timeout,
    )
    return page.eval_on_selector("[data-calc-status]", "e => e.dataset.calcStatus")


def settle(page, renders_before: int):
    """Wait until the page has shown an answer to its latest input."""
    page.wait_for_function(
        """before => {
          const c = document.querySelector('[data-atlas-calculator]').atlasCalculator;
          return c.renders > before && !c.inflight && !c.queued;
        }""",
        arg=renders_before, timeout=60_000,
    )


def renders(page) -> int:
    return page.evaluate("document.querySelector('[data-atlas-calculator]').atlasCalculator.renders")


def shown_results(page) -> list[tuple[str, object, str]]:
    return page.eval_on_selector_all(
        "[data-calc-results] [data-result]",
        "els => els.map(e => [e.dataset.result, JSON.parse(e.dataset.value), e.textContent])",
    )


def assert_matches_cli(page, command: str, params: dict, lang: str):
    expected = cli_json(command, params, lang)
    shown = shown_results(page)
    assert len(shown) > 10
    for path, value, _ in shown:
        wanted = lookup(expected, path)
        if isinstance(wanted, float) and isinstance(value, float):  # Pyodide's libm may round exp/log 1 ulp apart
            assert value == pytest.approx(wanted, rel=1e-12), path
        else:
            assert value == wanted, path
    texts = dict((p, t) for p, _, t in shown)
    if command == "vram":
        assert texts["total_gib"] == l10n.format_number(expected["total_gib"], lang, 2, trim=False)
    elif expected["speedup"] is not None:
        assert texts["speedup"] == l10n.format_number(expected["speedup"], lang, 2)
    body = page.inner_text("body")
    for bad in ("NaN", "Infinity", "Traceback"):
        assert bad not in body


def assert_stayed_on_origin(page, base: str):
    offsite = [u for u in page.requests_seen if not (u.startswith(base) or u.startswith(("data:", "blob:")))]
    assert offsite == []


LINKS = [
    ("en", "vram", ""),
    ("de", "vram", ""),
    ("en", "vram", "?model=llama-3.1-70b&weights=q4_k_m&context=8192"),
    ("de", "vram", "?model=mixtral-8x7b&mode=qlora&batch=2&num_devices=2"),
    ("de", "vram", "?model=custom&params_b=13&layers=40&hidden=5120&heads=40&kv_heads=40&vocab=32000"),
    ("en", "speed", ""),
    ("de", "speed", ""),
    ("en", "speed", "?model=llama-3.1-70b&workload=prefill&context=2048&device=mi300x&baseline=h100-sxm"),
    ("de", "speed", "?workload=training&tokens=1e12&num_devices=64&price_per_hour=2,5&device=b200"),
]


@pytest.mark.parametrize("lang,command,query", LINKS)
def test_calculator_shows_what_the_command_line_computes(page, site_server, lang, command, query):
    page.goto(page_url(site_server, lang, command, query))
    assert wait_status(page, "ready", "invalid", "failed") == "ready"
    status = page.inner_text("[data-calc-status]")
    assert status == l10n.t(lang, "calc.status.ready")
    params = {**PAGE_DEFAULTS[command], **dict(parse_qsl(query.lstrip("?")))}
    assert_matches_cli(page, command, params, lang)
    assert_stayed_on_origin(page, site_server)
    assert page.console_errors == []
    assert page.failed_requests == []


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_changing_the_form_updates_result_and_link(page, site_server, lang):
    """The issue's example: Llama 3.1 70B, Q4_K_M, 8k context, then the same again from the link."""
    page.goto(page_url(site_server, lang, "vram"))
    wait_status(page, "ready")
    before = renders(page)
    page.select_option("#calc-vram-model", "llama-3.1-70b")
    page.select_option("#calc-vram-weights", "q4_k_m")
    page.fill("#calc-vram-context", "8192")
    settle(page, before)
    page.wait_for_function("() => location.search.includes('context=8192')")  # the address bar follows once typing pauses
    query = dict(parse_qsl(urlsplit(page.url).query))
    assert query == {"model": "llama-3.1-70b", "weights": "q4_k_m", "context": "8192"}
    params = {"model": "llama-3.1-70b", "weights": "q4_k_m", "context": "8192"}
    assert_matches_cli(page, "vram", params, lang)
    fitting = page.eval_on_selector_all("[data-calc-results] tr[data-device]", "rows => rows.map(r => r.dataset.device)")
    assert {"h100-sxm", "a100-sxm-80gb"} <= set(fitting)
    share = page.get_attribute("[data-calc-share]", "href")
    assert share.endswith("/calculators/vram/?model=llama-3.1-70b&weights=q4_k_m&context=8192")
    assert_stayed_on_origin(page, site_server)


def expected_error(command: str, params: dict, field: str, lang: str) -> str:
    response = handle({"command": command, "params": params, "lang": lang}, catalog())
    assert not response["ok"]
    return " ".join(e["message"] for e in response["errors"] if e["field"] == field)


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_bad_inputs_show_a_localized_message_and_nothing_breaks(page, site_server, lang):
    page.goto(page_url(site_server, lang, "vram"))
    wait_status(page, "ready")
    error_line = "[data-error-for='context']"
    for typed in ["-5", "0", "abc", "1e99", "9" * 40, "4096.5"]:
        before = renders(page)
        page.fill("#calc-vram-context", typed)
        settle(page, before)
        params = {**PAGE_DEFAULTS["vram"], "context": typed}
        assert page.is_visible(error_line), typed
        assert page.inner_text(error_line) == expected_error("vram", params, "context", lang)
        assert page.eval_on_selector("#calc-vram-context", "e => e.getAttribute('aria-invalid')") == "true"
        assert page.inner_text("[data-calc-status]") == l10n.t(lang, "calc.status.invalid")
        body = page.inner_text("body")
        for bad in ("NaN", "Infinity", "Traceback"):
            assert bad not in body, typed
    # empty means "the default" (4096 tokens), and the other fields keep working throughout
    before = renders(page)
    page.fill("#calc-vram-context", "")
    page.fill("#calc-vram-batch", "2")
    settle(page, before)
    assert not page.is_visible(error_line)
    assert_matches_cli(page, "vram", {**PAGE_DEFAULTS["vram"], "batch": "2"}, lang)
    assert page.console_errors == []


def test_unknown_names_in_the_link_are_explained(page, site_server):
    page.goto(page_url(site_server, "de", "speed", "?model=gpt-9&device=h100-sxm&colour=blue"))
    assert wait_status(page, "ready", "invalid") == "invalid"
    params = {**PAGE_DEFAULTS["speed"], "model": "gpt-9"}
    assert page.inner_text("[data-error-for='model']") == expected_error("speed", params, "model", "de")
    assert "Meintest du: gpt-oss-20b?" in page.inner_text("[data-error-for='model']")
    assert page.eval_on_selector("#calc-speed-model", "e => e.value") == "gpt-9"
    assert "„colour“" in page.inner_text("[data-calc-errors]")  # unknown parameter, in German
    assert page.eval_on_selector("[data-calc-results]", "e => e.hidden")  # no result for other inputs
    # choosing a real model recovers; the link drops the unknown parameter
    before = renders(page)
    page.select_option("#calc-speed-model", "llama-3.1-8b")
    settle(page, before)
    assert wait_status(page, "ready") == "ready"
    page.wait_for_function("() => !location.search.includes('gpt-9')")
    assert "colour" not in page.url
    assert page.eval_on_selector_all("#calc-speed-model option", "os => os.map(o => o.value)").count("gpt-9") == 0


@pytest.mark.parametrize("lang,command", [("en", "vram"), ("de", "speed")])
def test_prerendered_result_without_javascript(browser, site_server, lang, command):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(page_url(site_server, lang, command))
    assert page.inner_text("[data-calc-status]") == l10n.t(lang, "calc.status.static")
    expected = cli_json(command, PAGE_DEFAULTS[command], lang)
    shown = page.eval_on_selector_all(
        "[data-calc-results] [data-result]", "els => els.map(e => [e.dataset.result, JSON.parse(e.dataset.value)])")
    assert len(shown) > 10
    for path, value in shown:
        assert value == lookup(expected, path), path
    assert not [u for u in requests if any(f in u for f in PYODIDE_FILES)]
    context.close()


@pytest.mark.parametrize(
    "lang,missing",
    [("en", "pyodide.asm.wasm"), ("de", "pyodide.mjs"), ("en", "atlas-python.zip"), ("de", "pyodide-start.js"),
     ("en", "pyodide-worker.mjs")],
)
def test_missing_runtime_file_shows_the_failure_and_keeps_the_result(page, site_server, lang, missing):
    page.route(f"**/{missing}*", lambda route: route.fulfill(status=404, body="missing"))
    page.goto(page_url(site_server, lang, "vram"))
    assert wait_status(page, "failed", "ready") == "failed"
    assert page.inner_text("[data-calc-status]") == l10n.t(lang, "calc.status.failed.load")
    total = page.eval_on_selector("[data-calc-results] [data-result='total_gib']", "e => JSON.parse(e.dataset.value)")
    assert total == cli_json("vram", PAGE_DEFAULTS["vram"], lang)["total_gib"]


def test_no_webassembly_says_so(browser, site_server):
    context = browser.new_context()
    context.add_init_script("delete globalThis.WebAssembly;")
    page = context.new_page()
    page.goto(page_url(site_server, "de", "speed"))
    assert wait_status(page, "failed", timeout=30_000) == "failed"
    assert page.inner_text("[data-calc-status]") == l10n.t("de", "calc.status.failed.no-wasm")
    assert page.locator("[data-calc-results] [data-result='speedup']").count() == 1
    context.close()


def test_calculator_survives_navigating_away_and_back(page, site_server):
    query = "?model=qwen2.5-32b&weights=q8_0"
    page.goto(page_url(site_server, "en", "vram", query))
    wait_status(page, "ready")
    page.goto(site_server + "/compare/")
    page.go_back()
    assert wait_status(page, "ready") == "ready"
    assert urlsplit(page.url).query == query.lstrip("?")
    assert_matches_cli(page, "vram", {"model": "qwen2.5-32b", "weights": "q8_0"}, "en")
    # Material's lifecycle may announce the same document again: nothing is started twice
    page.evaluate("document$.next(document)")
    assert page.evaluate("document.querySelectorAll('[data-atlas-calculator]')[0].atlasCalculator.renders") >= 1
    assert len([w for w in page.workers if w.url.endswith("pyodide-worker.mjs")]) == 1


# --- reader journeys of issue 30, on a phone (390 px), in both languages --------------------------------

PHONE = {"width": 390, "height": 844}
MISTRAL_12B = {"architectures": ["MistralForCausalLM"], "model_type": "mistral", "hidden_size": 5120,
               "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
               "intermediate_size": 14336, "vocab_size": 131072, "max_position_embeddings": 131072}


@pytest.fixture
def phone(browser, site_server):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    pg = context.new_page()
    pg.console_errors = []
    pg.on("console", lambda m: pg.console_errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
    yield pg
    context.close()


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_a_pasted_config_json_of_a_model_outside_the_catalogue_computes(phone, site_server, lang):
    phone.goto(page_url(site_server, lang, "vram"))
    wait_status(phone, "ready")
    phone.click("[data-calc-import] summary")
    phone.fill("[data-import-text]", json.dumps(MISTRAL_12B, indent=2))
    before = renders(phone)
    phone.click("[data-import-run]")
    settle(phone, before)
    assert phone.is_hidden("[data-import-error]")
    assert phone.input_value("#calc-vram-params-b") == ("12,25" if lang == "de" else "12.25")
    assert wait_status(phone, "ready", "invalid") == "ready"
    fields = phone.evaluate("""() => Object.fromEntries([...document.querySelector('form[data-calc-form]').elements]
        .filter(f => f.name && !f.disabled && !f.closest('fieldset[disabled]')).map(f => [f.name, f.value]))""")
    expected = handle({"command": "vram", "params": fields, "lang": lang}, catalog())
    assert expected["ok"] and expected["result"]["params_b"] == pytest.approx(12.25)
    shown = dict((p, v) for p, v, _ in shown_results(phone))
    assert shown["total_gib"] == pytest.approx(expected["result"]["total_gib"], rel=1e-12)
    assert phone.console_errors == []


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_a_broken_config_json_says_so_in_the_readers_language(phone, site_server, lang):
    phone.goto(page_url(site_server, lang, "vram"))
    wait_status(phone, "ready")
    phone.click("[data-calc-import] summary")
    phone.fill("[data-import-text]", json.dumps(MISTRAL_12B)[:70])
    phone.click("[data-import-run]")
    phone.wait_for_selector("[data-import-error]:not([hidden])")
    assert phone.inner_text("[data-import-error]") == l10n.t(lang, "import.config.truncated")


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("role", ["device", "baseline"])
def test_the_m4_max_in_the_speed_calculator(phone, site_server, lang, role):
    """The M4 Max answers with its GPU's compute peak (an FP16 vector figure); the Alveo V80 states none."""
    from atlas.core.calcview import numbers

    for device_id, name in (("apple-m4-max", "Apple M4 Max"), ("alveo-v80", "Alveo V80")):
        phone.goto(page_url(site_server, lang, "speed", f"?{role}={device_id}"))
        assert wait_status(phone, "ready", "invalid", "failed") == "ready"
        body = phone.inner_text("[data-calc-results]")
        assert l10n.t(lang, "runtime.internal_error") not in body and "None" not in body
        params = {**PAGE_DEFAULTS["speed"], role: device_id}
        peak = handle({"command": "speed", "params": params, "lang": lang}, catalog())["result"][role]["peak_tflops"]
        shown = phone.inner_text(f"[data-result='{role}.peak_tflops']")
        if device_id == "apple-m4-max":
            assert peak > 10 and shown == numbers.significant(peak, lang, 4)
            assert l10n.t(lang, "note.no_compute_peak", device=name) not in body
        else:
            assert peak is None and shown == "—"
            assert l10n.t(lang, "note.no_compute_peak", device=name) in body
    assert phone.console_errors == []


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_a_shared_link_never_shows_the_default_answer_while_python_loads(phone, site_server, lang):
    held = []
    phone.route("**/atlas-python.zip*", lambda route: held.append(route))  # hold the runtime back
    phone.goto(page_url(site_server, lang, "vram", "?model=llama-3.1-70b&weights=q4_k_m&context=8192"),
               wait_until="domcontentloaded")
    phone.wait_for_selector("[data-calc-results][data-calc-pending]", state="attached")
    results = phone.inner_text("[data-calc-results]")
    assert l10n.t(lang, "calc.pending") in results
    assert "Llama 3.1 70B" in results and "8192" in results
    assert phone.eval_on_selector_all("[data-calc-results] [data-result]", "els => els.length") == 0
    assert phone.get_attribute("[data-calc-results]", "aria-busy") == "true"
    assert held, "the page did not ask for the runtime"
    for route in held:
        route.continue_()
    phone.unroute("**/atlas-python.zip*")
    assert wait_status(phone, "ready", "invalid", "failed") == "ready"
    assert phone.get_attribute("[data-calc-results]", "data-calc-pending") is None
    assert phone.eval_on_selector("[data-result='total_gib']", "e => JSON.parse(e.dataset.value)") == pytest.approx(
        handle({"command": "vram", "params": {"model": "llama-3.1-70b", "weights": "q4_k_m", "context": "8192"},
                "lang": lang}, catalog())["result"]["total_gib"], rel=1e-12)


def test_a_link_that_equals_the_defaults_keeps_the_prerendered_answer(phone, site_server):
    phone.route("**/atlas-python.zip*", lambda route: route.abort())  # no runtime at all
    phone.goto(page_url(site_server, "de", "vram", "?model=llama-3.1-8b"), wait_until="domcontentloaded")
    phone.wait_for_selector("[data-calc-results] [data-result='total_gib']", state="attached")
    assert phone.get_attribute("[data-calc-results]", "data-calc-pending") is None

"""The in-page calculators under attack and failure, and by keyboard (complements test_browser_calculators.py).

- hostile URL state: markup and script in every kind of parameter runs nothing, even with the
  Content-Security-Policy switched off, and shows up only as text;
- failure modes the other file does not cover: the WebAssembly download aborted (a network error, not a
  404) and the worker crashing after it was ready — the result stays and a localized notice appears;
- keyboard: every field is reached with Tab in order, has a label, and an error is announced (role=alert)
  and tied to its field (aria-invalid, aria-describedby).
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from atlas.core import l10n

pytestmark = pytest.mark.browser

READY_MS = 180_000
PWN = "window.__pwned=1"
HOSTILE = [
    f'"><img src=x onerror="{PWN}">',
    f"<script>{PWN}</script>",
    f"javascript:{PWN}",
    f"' onfocus='{PWN}' autofocus x='",
    "\u202e{{ 7*7 }}</textarea></select>",
]


def url(base: str, lang: str, command: str, params: dict | None = None) -> str:
    query = f"?{urlencode(params)}" if params else ""
    return f"{base}{'/de' if lang == 'de' else ''}/calculators/{command}/{query}"


def status(page, *states, timeout=READY_MS) -> str:
    page.wait_for_function(
        "states => states.includes(document.querySelector('[data-calc-status]').dataset.calcStatus)",
        arg=list(states),
        timeout=timeout,
    )
    return page.eval_on_selector("[data-calc-status]", "e => e.dataset.calcStatus")


def total_shown(page):
    return page.eval_on_selector("[data-calc-results] [data-result='total_gib']", "e => JSON.parse(e.dataset.value)")


# Parameters of each kind: a preset name, a device, a number, a price with a decimal comma, an unknown name.
FIELDS = {"vram": ("model", "context", "weights", "colour"), "speed": ("device", "baseline", "price_per_hour", "batch")}


@pytest.mark.parametrize("command", FIELDS)
def test_hostile_url_state_runs_nothing(browser, site_server, command):
    context = browser.new_context(bypass_csp=True)  # escaping alone must hold
    page = context.new_page()
    dialogs, errors = [], []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        for i, value in enumerate(HOSTILE):
            lang = l10n.LANGUAGES[i % 2]
            page.goto(url(site_server, lang, command, dict.fromkeys(FIELDS[command], value)))
            assert status(page, "invalid", "ready") == "invalid", value
            shown = page.inner_text("[data-atlas-calculator]")
            assert page.evaluate("() => window.__pwned") is None, value
            injected = "[data-atlas-calculator] :is(img, iframe, object, script:not([src], [type='application/json']))"
            assert page.locator(injected).count() == 0, value
            for bad in ("NaN", "Infinity", "Traceback"):
                assert bad not in shown
            typed = [
                page.locator(f"#calc-{command}-{field.replace('_', '-')}").input_value()
                for field in FIELDS[command]
                if page.locator(f"input#calc-{command}-{field.replace('_', '-')}").count()
            ]
            assert typed and all(v == value for v in typed), typed  # text fields keep it as typed, as text
            page.keyboard.press("Tab")  # an injected autofocus/onfocus handler would fire now
            assert page.evaluate("() => window.__pwned") is None, value
    finally:
        context.close()
    assert not dialogs and not errors, (dialogs, errors)


def test_aborted_webassembly_download_keeps_the_result(page, site_server):
    page.route("**/*.wasm", lambda route: route.abort("connectionreset"))
    page.goto(url(site_server, "de", "vram"))
    assert status(page, "failed", "ready") == "failed"
    assert page.inner_text("[data-calc-status]") == l10n.t("de", "calc.status.failed.load")
    assert total_shown(page) > 0


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_worker_crash_after_ready_keeps_the_result_and_says_so(page, site_server, lang):
    page.goto(url(site_server, lang, "vram"))
    assert status(page, "ready") == "ready"
    before = total_shown(page)
    workers = [w for w in page.workers if w.url.endswith("pyodide-worker.mjs")]
    assert len(workers) == 1
    workers[0].evaluate("() => { setTimeout(() => { throw new Error('simulated crash'); }, 0); }")
    assert status(page, "failed", timeout=30_000) == "failed"
    notice = page.inner_text("[data-calc-status]")
    assert notice.startswith(l10n.t(lang, "calc.status.failed.load").split(".")[0])
    # The reader keeps working with the page: input changes neither throw nor hang, the result stays.
    page.fill("#calc-vram-context", "8192")
    page.wait_for_timeout(300)
    assert total_shown(page) == before
    assert page.eval_on_selector("[data-calc-status]", "e => e.dataset.calcStatus") == "failed"
    assert not [e for e in page.console_errors if "simulated crash" not in e]


def visible_controls(page, command: str) -> list[str]:
    return page.eval_on_selector_all(
        "[data-atlas-calculator] form :is(input, select, summary, a, button, textarea)",
        """els => els.filter(e => e.checkVisibility() && !e.matches(':disabled') && e.tabIndex >= 0)
                   .map(e => e.id || (e.tagName === 'SUMMARY' ? e.textContent : e.textContent.trim()))""",
    )


@pytest.mark.parametrize("lang, command", [("en", "vram"), ("de", "speed")])
def test_keyboard_reaches_every_field_in_order_with_its_label(page, site_server, lang, command):
    page.goto(url(site_server, lang, command))
    assert status(page, "ready") == "ready"
    expected = visible_controls(page, command)
    assert len(expected) >= 4
    page.focus(f"#{expected[0]}")
    reached = [expected[0]]
    for _ in range(len(expected) - 1):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("() => document.activeElement.id || document.activeElement.textContent"))
    assert reached == expected, "\n".join(f"{a} / {b}" for a, b in zip(reached, expected, strict=True))
    unlabelled = page.eval_on_selector_all(
        "[data-atlas-calculator] form :is(input, select)",
        """els => els.filter(e => (!e.labels || e.labels.length === 0 || !e.labels[0].textContent.trim())
                                 && !(e.getAttribute('aria-label') || '').trim()).map(e => e.id)""",
    )
    assert unlabelled == []


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_an_error_typed_by_keyboard_is_announced_and_tied_to_its_field(page, site_server, lang):
    page.goto(url(site_server, lang, "vram"))
    assert status(page, "ready") == "ready"
    page.focus("#calc-vram-context")
    page.keyboard.press("Control+A")
    page.keyboard.type("-5")
    assert status(page, "invalid", timeout=30_000) == "invalid"
    field = page.locator("#calc-vram-context")
    error_id = next(i for i in field.get_attribute("aria-describedby").split() if i.endswith("-error"))
    error = page.locator(f"#{error_id}")
    assert field.get_attribute("aria-invalid") == "true"
    assert error.get_attribute("role") == "alert" and error.is_visible()
    assert error.inner_text().strip()
    assert page.get_attribute("[data-calc-status]", "role") == "status"
    # Fixing it by keyboard clears both.
    page.keyboard.press("Control+A")
    page.keyboard.type("8192")
    assert status(page, "ready", timeout=30_000) == "ready"
    assert field.get_attribute("aria-invalid") is None and not error.is_visible()

"""'Detect my GPU' in a real browser, with a fake WebGPU adapter put in place before the page's scripts run.

Chromium here has no usable GPU, so ``navigator.gpu`` is replaced (``page.add_init_script``): an adapter that
describes itself as an RTX 4090 is picked in the device list, in both languages; without ``navigator.gpu`` the
button is never shown; a hostile adapter description is shown as text and matches nothing.
"""

import json

import pytest
from test_browser_calculators import assert_stayed_on_origin, page_url, renders, settle, wait_status

from atlas.core import l10n

pytestmark = pytest.mark.browser

RTX_4090 = {"vendor": "nvidia", "architecture": "ada", "device": "", "description": "NVIDIA GeForce RTX 4090"}
HOSTILE = {"vendor": "<svg onload=\"window.__pwned = 2\">", "architecture": "", "device": "",
           "description": "<img src=x onerror=\"window.__pwned = 1\">"}


def fake_gpu(info: dict | None) -> str:
    """An init script: ``navigator.gpu`` whose adapter reports ``info`` (``adapter.info``), or none at all."""
    if info is None:
        return "delete Navigator.prototype.gpu; delete navigator.gpu;"
    return f"""(() => {{
      const adapter = {{ info: Object.freeze({json.dumps(info)}), features: new Set(), limits: {{}} }};
      const gpu = {{ requestAdapter: async () => adapter }};
      Object.defineProperty(Navigator.prototype, "gpu", {{ get: () => gpu, configurable: true }});
    }})();"""


def open_with(page, base, lang, command, info):
    page.add_init_script(fake_gpu(info))
    page.goto(page_url(base, lang, command))
    assert wait_status(page, "ready", "failed") == "ready"


def detect(page, command):
    """Click the button and wait for its answer; the answer's lines."""
    box = f"[data-gpu-detect='calc-{command}-device']"
    page.click(f"{box} [data-gpu-detect-run]")
    page.wait_for_function("sel => document.querySelector(sel).children.length > 0",
                           arg=f"{box} [data-gpu-detect-answer]", timeout=60_000)
    return page.eval_on_selector_all(f"{box} [data-gpu-detect-answer] > *", "els => els.map(e => [e.tagName, e.textContent])")


@pytest.mark.parametrize("lang,command", [("en", "vram"), ("de", "speed")])
def test_a_detected_rtx_4090_is_picked_and_said(page, site_server, lang, command):
    open_with(page, site_server, lang, command, RTX_4090)
    button = page.locator(f"[data-gpu-detect='calc-{command}-device'] [data-gpu-detect-run]")
    assert button.is_visible()
    assert button.text_content() == l10n.t(lang, "gpu_detect.button")
    assert page.locator("[data-gpu-detect-run]").count() == 1  # the speed page's baseline has none
    before = renders(page)
    lines = detect(page, command)
    assert lines == [["P", l10n.t(lang, "gpu_detect.found", name="NVIDIA GeForce RTX 4090")],
                     ["P", l10n.t(lang, "gpu_detect.private")],
                     ["P", l10n.t(lang, "gpu_detect.memory_unknown")]]
    assert page.eval_on_selector(f"#calc-{command}-device", "s => s.value") == "rtx-4090"
    settle(page, before)  # the pick is a reader's change: the result and the link follow it
    assert "device=rtx-4090" in page.get_attribute("[data-calc-share]", "href")
    assert page.eval_on_selector("[data-calc-status]", "e => e.dataset.calcStatus") == "ready"
    assert_stayed_on_origin(page, site_server)
    assert page.console_errors == []


def test_without_webgpu_there_is_no_button(page, site_server):
    open_with(page, site_server, "en", "vram", None)
    assert page.evaluate("() => 'gpu' in navigator") is False
    assert page.locator("[data-gpu-detect]").count() == 1  # in the markup, but hidden
    assert page.locator("[data-gpu-detect]").is_hidden()
    assert not any("gpu-detect.mjs" in url for url in page.requests_seen)  # not even loaded
    assert page.console_errors == []


def test_a_hostile_adapter_description_is_text_that_matches_nothing(page, site_server):
    open_with(page, site_server, "de", "vram", HOSTILE)
    lines = detect(page, "vram")
    said = HOSTILE["description"]
    assert lines == [["P", l10n.t("de", "gpu_detect.none", what=said)], ["P", l10n.t("de", "gpu_detect.private")]]
    assert page.locator("[data-gpu-detect] img").count() == 0
    assert page.evaluate("() => window.__pwned") is None
    assert page.eval_on_selector("#calc-vram-device", "s => s.value") == ""  # nothing picked
    assert not any(url.rstrip("/").endswith("/x") for url in page.requests_seen)
    assert page.console_errors == []

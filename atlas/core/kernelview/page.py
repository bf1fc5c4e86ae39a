"""One whole demo as HTML: status line, form, pre-computed result, link.

Only the build calls this (the browser replaces just the result). The frame
is the calculators' (``atlas.core.calcview.page.widget_html``), so the one page script
``calculator.mjs`` runs both on the one runtime: ``config`` tells it which
entry point to call, when (on every input, or on the Run button) and the
status texts in the page's language; it is embedded as
``<script type="application/json">`` (no inline script, so a strict
Content-Security-Policy works). The page works without JavaScript: the
result for the default inputs is already there.
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.calcview.page import DefaultsError, widget_html
from atlas.core.kernelview import render
from atlas.core.kernelview.form import RUN_ON_SUBMIT, form_html
from atlas.core.kernelview.inputs import defaults

ENTRY_POINTS = {"systolic": "kernels.systolic", "roofline": "kernels.roofline"}
STATUS_KEYS = ("loading", "loading_link", "ready", "changed", "failed.load", "failed.no-wasm", "failed.python",
               "invalid")


def page_config(demo: str, lang: str) -> dict:
    """What the page script needs: demo, entry point, when to run, status and fallback texts in ``lang``."""
    return {
        "command": demo,
        "entry": ENTRY_POINTS[demo],
        "lang": lang,
        "trigger": "submit" if demo in RUN_ON_SUBMIT else "input",
        "status": {key: l10n.t(lang, f"kdemo.status.{key}") for key in STATUS_KEYS},
        "messages": {"runtime.internal_error": l10n.t(lang, "kdemo.internal_error")},
    }


def demo_html(demo: str, lang: str, catalog, script_src: str) -> str:
    """The demo ``demo`` ("systolic" or "roofline") with its default inputs and their result pre-computed."""
    values = defaults(demo)
    response = render({"command": demo, "params": {}, "lang": lang}, catalog)
    if not response["ok"]:
        problems = "; ".join(e["message"] for e in response["errors"])
        raise DefaultsError(f"default inputs of the {demo} demo give no result: {problems}")
    texts = {key: l10n.t(lang, f"kdemo.{key}") for key in ("results_label", "share")}
    texts["static"] = l10n.t(lang, "kdemo.status.static")
    return widget_html(demo, page_config(demo, lang), lang, form_html(demo, values, lang, catalog), response["html"],
                       script_src, texts, extra_class="atlas-kdemo")

"""One whole calculator as HTML: status line, form, pre-computed result, explanation.

Build time only calls this (the browser replaces just the result). The page
works without JavaScript: the result for the page's default inputs is
already there. ``config`` is what ``calculator.mjs`` needs, embedded as
``<script type="application/json">`` (no inline script, so a strict
Content-Security-Policy works): the command, the entry point and the status
texts in the page's language. What starts the runtime (``runtime_options``)
goes into the page's ``<head>``, so the worker starts before the body has
loaded (see ``overrides/main.html``).
"""

from __future__ import annotations

import json

from atlas.core import l10n
from atlas.core.calcview import render
from atlas.core.calcview.explain import explain_html
from atlas.core.calcview.form import form_html, initial_values
from atlas.core.calcview.markup import el, prose, text

ENTRY_POINT = "calculators.render"
STATUS_KEYS = ("loading", "loading_link", "ready", "failed.load", "failed.no-wasm", "failed.python", "invalid")


class DefaultsError(ValueError):
    """A page's default inputs do not give a result: the build must stop."""


def config_json(config: dict) -> str:
    """JSON safe inside ``<script type="application/json">`` (no ``</script>`` can close it)."""
    return json.dumps(config, ensure_ascii=False, sort_keys=True).replace("</", "<\\/")


def runtime_options(versions: dict, warm=(ENTRY_POINT,)) -> dict:
    """What the page declares in ``<meta name="atlas-runtime">`` to start the Python runtime:
    the versions of the bundle and the data export (cache keys; a page without ``"data"`` in
    ``versions`` fetches no data export) and the entry points to warm up."""
    return {
        "bundle": versions.get("bundle", ""),
        "data": {"atlas-data.json": versions["data"]} if "data" in versions else {},
        "warm": list(warm),
    }


def page_config(command: str, lang: str) -> dict:
    """What the page script needs: command, entry point, status and fallback texts in ``lang``."""
    return {
        "command": command,
        "entry": ENTRY_POINT,
        "lang": lang,
        "status": {key: l10n.t(lang, f"calc.status.{key}") for key in STATUS_KEYS},
        "messages": {"runtime.internal_error": l10n.t(lang, "runtime.internal_error"),
                     "calc.hint.required": l10n.t(lang, "calc.hint.required"),
                     "calc.device_search.none": l10n.t(lang, "calc.device_search.none"),
                     "calc.import.done": l10n.t(lang, "calc.import.done"),
                     "calc.import.empty": l10n.t(lang, "calc.import.empty"),
                     "calc.pending": l10n.t(lang, "calc.pending"),
                     "calc.pending.inputs": l10n.t(lang, "calc.pending.inputs"),
                     "calc.pending.empty": l10n.t(lang, "calc.pending.empty"),
                     "yes": l10n.t(lang, "yes"), "no": l10n.t(lang, "no")},
    }


def widget_html(name: str, config: dict, lang: str, form: str, result_html: str, script_src: str, texts: dict,
                after: str = "", extra_class: str | None = None, summary: str | None = None) -> str:
    """The frame every in-page computation shares (the calculators, the kernel demos): its config
    for the page script, the status line, ``form``, the error box, the pre-computed ``result_html``,
    the link to the result, ``after`` (an explanation) and the module script ``script_src``.

    ``texts`` holds the status line without JavaScript (``static``), the result region's label
    (``results_label``) and the link's text (``share``), in ``lang``. With ``summary`` (the one-line
    answer as plain text) the form and the result sit side by side on wide screens, and the answer
    stays in a bar at the top of the screen on narrow ones while the reader changes the form.
    """
    config_tag = el("script", config_json(config), type="application/json", data_calc_config=True)
    status = el("p", text(texts["static"]), class_="atlas-calc-status", role="status", aria_live="polite",
                data_calc_status="static")
    errors = el("div", "", class_="atlas-calc-errors", data_calc_errors=True, hidden=True, role="alert")
    # Only the status line is a live region: announcing the whole result on every keystroke would drown a screen reader.
    results = el("section", result_html, class_="atlas-calc-results", data_calc_results=name,
                 aria_label=texts["results_label"])
    share = el("p", el("a", text(texts["share"]), href="./", data_calc_share=True), class_="atlas-calc-share")
    if summary is None:
        body = config_tag + status + form + errors + results + share + after
    else:
        bar = el("p", prose(summary), class_="atlas-calc-summary-bar", data_calc_summary=True, aria_hidden="true")
        output = el("div", errors + results + share, class_="atlas-calc-output")
        body = config_tag + bar + status + el("div", form + output, class_="atlas-calc-layout") + after
    classes = "atlas-calc" + (f" {extra_class}" if extra_class else "")
    section = el("div", body, class_=classes, data_atlas_calculator=name, lang=lang)
    return section + el("script", "", type="module", src=script_src)


def calculator_html(command: str, page_defaults: dict, lang: str, catalog, script_src: str) -> str:
    """The calculator ``command`` with ``page_defaults`` filled in and its result pre-computed."""
    values = initial_values(command, page_defaults, catalog)
    params = {k: v for k, v in values.items() if v is not None}
    response = render({"command": command, "params": params, "lang": lang}, catalog)
    if not response["ok"]:
        problems = "; ".join(e["message"] for e in response["errors"])
        raise DefaultsError(f"default inputs of the {command} calculator give no result: {problems}")
    texts = {key: l10n.t(lang, f"calc.{key}") for key in ("results_label", "share")}
    texts["static"] = l10n.t(lang, "calc.status.static")
    return widget_html(command, page_config(command, lang), lang, form_html(command, values, lang, catalog),
                       response["html"], script_src, texts, after=explain_html(command, lang),
                       summary=response["summary"])

"""The in-page calculators: form, result and explanation as HTML, standard library only.

The same code renders each calculator page at build time (``macros/
calculator_macros.py``, the pre-computed result a reader sees with
JavaScript off) and every live result in the browser, where Pyodide runs it
in a Web Worker (entry point ``calculators.render`` -> ``atlas.core.calcview.browser``).
All numbers come from ``atlas.core.calculators.api.handle``; this package only shows
them. Modules: ``form`` (the fields), ``results`` (numbers, charts, notes),
``explain`` ("How is this calculated?"), ``page`` (the whole calculator).
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.calculators.api import handle
from atlas.core.calculators.inputs import BY_NAME, FILL_IN_KEYS, suggestions
from atlas.core.calculators.messages import display, error, field_label
from atlas.core.calcview.markup import el, prose, text
from atlas.core.calcview.results import memory_html, memory_verdict, speed_comparison, speed_html, speed_verdict


def render(request: dict, catalog) -> dict:
    """``handle(request, catalog)`` plus the result as HTML.

    Returns the response of ``atlas.core.calculators.api.handle`` (``ok``, ``result`` or
    ``errors``) with ``html`` (the rendered result, only when ``ok``), ``summary`` (the one-line answer as plain
    text) and ``summary_html`` (the same as HTML, each command-line option in it kept on one line), and
    ``warnings``: parameters the calculators do not know (a mistyped URL)
    are left out of the calculation and reported there, localized, so the
    rest of the link still works.
    """
    lang = request.get("lang") if isinstance(request, dict) else None
    lang = lang if lang in l10n.LANGUAGES else l10n.DEFAULT_LANGUAGE
    params = request.get("params") if isinstance(request, dict) else None
    warnings = []
    if isinstance(params, dict):
        known = {}
        for key, value in params.items():
            if key in BY_NAME:
                known[key] = value
            else:
                warnings.append(error(str(key)[:60], "error.unknown_param", name=str(key)[:60],
                                      suggestions=suggestions(str(key), BY_NAME)).render(lang))
        request = {**request, "params": known}
    response = handle(request, catalog)
    out = {**response, "warnings": warnings}
    if not response["ok"]:  # "fill this in" is a hint before the reader has touched the field (calculator.mjs)
        out["errors"] = [{**e, "fill_in": e["key"] in FILL_IN_KEYS} for e in response["errors"]]
    if response["ok"]:
        result = response["result"]
        if request["command"] == "vram":
            out["html"] = memory_html(result, lang)
            out["summary"] = memory_verdict(result, lang).plain()
        else:
            out["html"] = speed_html(result, lang)
            comparison = speed_comparison(result, lang)
            out["summary"] = speed_verdict(result, lang).plain() + (" " + comparison.plain() if comparison else "")
        out["html"] = defaults_used_html(request, lang) + out["html"]
        out["summary_html"] = prose(out["summary"])  # the sticky bar on phones: options kept on one line
    return out


def defaults_used_html(request: dict, lang: str) -> str:
    """Which fields the reader left empty and the default each then takes ("Context length 4,096"), so an
    empty field never silently means a number."""
    params = request.get("params") or {}
    used = [f"{field_label(name, lang)} {display(name, BY_NAME[name].default, lang)}"
            for name, raw in params.items()
            if isinstance(raw, str) and not raw.strip() and BY_NAME[name].default is not None
            and BY_NAME[name].kind in ("int", "float")
            and f"calc.placeholder.{name}" not in l10n.labels(lang)]  # its placeholder says what happens instead
    if not used:
        return ""
    return el("p", text(l10n.t(lang, "calc.empty_default", fields="; ".join(used))), class_="atlas-calc-defaults")

"""The in-page kernel demos: the systolic-array simulator and the roofline
explorer, as form and result HTML. Standard library only.

The same code renders each demo at build time (``macros/kernel_demo_macros.py``,
the pre-computed result a reader sees with JavaScript off) and every live
result in the browser, where Pyodide runs it in the calculators' Web Worker
(entry points ``atlas.core.kernels.systolic`` and ``atlas.core.kernels.roofline`` ->
``atlas.core.kernelview.browser``). The numbers come from ``atlas/core/kernels/systolic.py`` and
``atlas/core/kernels/roofline.py`` — the files the kernel pages display, shipped to the
browser unchanged — and from the data set's export for the device peaks;
this package only reads the inputs and shows the results. Modules:
``inputs`` (parameters, errors), ``systolic_demo`` and ``roofline_demo``
(each demo's result), ``form``, ``page`` (the whole demo).

A response is ``{"ok", "result", "html", "errors", "warnings"}`` like the
calculators' (``atlas.core.calcview.render``): ``errors`` and ``warnings`` are
``{"field", "key", "params", "message"}`` with the message in the request's
language.
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.kernelview import inputs, roofline_demo, systolic_demo

DEMOS = ("systolic", "roofline")


def render(request: dict, catalog=None) -> dict:
    """Run the demo ``request["command"]`` on ``request["params"]`` in ``request["lang"]``.

    ``catalog`` (``atlas.core.calculators.catalog.Catalog``) is needed by the roofline
    explorer only: it looks the device's peak and bandwidth up there.
    """
    lang = request.get("lang") if isinstance(request, dict) else None
    lang = lang if lang in l10n.LANGUAGES else l10n.DEFAULT_LANGUAGE
    demo = request.get("command") if isinstance(request, dict) else None
    if demo not in DEMOS:
        problem = inputs.message(None, "error.unknown_value", lang, field="command", value=str(demo)[:60],
                                 suggestions=list(DEMOS))
        return {"ok": False, "result": None, "errors": [problem], "warnings": []}
    params = request.get("params")
    values, typed, warnings = inputs.read(demo, params if isinstance(params, dict) else {}, lang)
    if demo == "systolic":
        result, errors = systolic_demo.run(values, typed, lang)
    else:
        result, errors = roofline_demo.run(values, typed, lang, catalog)
    if errors:
        return {"ok": False, "result": None, "errors": errors, "warnings": warnings}
    draw = systolic_demo.result_html if demo == "systolic" else roofline_demo.result_html
    return {"ok": True, "result": result, "errors": [], "warnings": warnings, "html": draw(result, lang)}

"""The Python side of the in-page runtime: Pyodide in a module Web Worker.

Standard library only; shipped to the browser in ``assets/python/atlas-python.zip``.

The worker (``docs/assets/javascripts/pyodide-worker.mjs``) never runs
arbitrary code. It calls exactly one function, :func:`call`, with the name of
an entry point and a JSON payload, and gets JSON back. Only names listed in
``ENTRY_POINTS`` can be called.

To put another pure-Python feature on the same runtime (e.g. a kernel demo):

1. write a function ``f(payload: dict) -> dict`` in your stdlib-only package;
   it receives what the page sent and returns something JSON can encode
   (finite numbers only);
2. put that package under ``atlas/core/`` (the build zips this folder whole,
   so everything in it ships and must need the standard library only) and add
   ``"your.name": "atlas.core.yourpackage.module:f"`` to ``ENTRY_POINTS``; a
   ``warm()`` function in that module, if present, runs while the page still
   shows "loading" (read data, import heavy code);
3. in the page, ``import { startRuntime } from ".../pyodide-client.mjs"`` and
   ``await runtime.call("your.name", payload)``.

Data files that the build writes next to the bundle (``atlas-data.json``)
are fetched by the worker and stored under ``DATA_DIR``; read them with
:func:`data_path`.
"""

from __future__ import annotations

import importlib
import json
import math
import traceback

# What the browser gets: the folder ``atlas/core/`` zipped whole (its .py and .json files), with the one-line
# ``atlas/__init__.py`` above it; ``atlas.data.webbundle`` builds the zip.
BUNDLED_PACKAGE = "atlas.core"

# Entry points the page may call: public name -> "module:function".
ENTRY_POINTS: dict[str, str] = {
    "pyweb.ping": "atlas.core.pyweb:ping",
    "calculators.render": "atlas.core.calcview.browser:render_entry",
    "calculators.import_model": "atlas.core.calcview.browser:import_model_entry",
    "calculators.import_fields": "atlas.core.calcview.browser:import_fields_entry",
    "calculators.gpu_detect": "atlas.core.calcview.browser:gpu_detect_entry",
    "kernels.systolic": "atlas.core.kernelview.browser:systolic_entry",
    "kernels.roofline": "atlas.core.kernelview.browser:roofline_entry",
}

# Where the worker writes the data files it fetched (Emscripten file system).
DATA_DIR = "/atlas/data"


def ping(payload: dict) -> dict:
    """Echo ``payload`` back with the Python version: a health check for the runtime."""
    import sys

    return {"ok": True, "python": ".".join(map(str, sys.version_info[:3])), "echo": payload}


def data_path(name: str) -> str:
    """Absolute path of a data file the worker fetched, e.g. ``data_path("atlas-data.json")``."""
    if "/" in name or name.startswith("."):
        raise ValueError(f"not a plain file name: {name!r}")
    return f"{DATA_DIR}/{name}"


def resolve(name: str):
    """The function behind entry point ``name``; ``KeyError`` if it is not registered."""
    module_name, _, func_name = ENTRY_POINTS[name].partition(":")
    return getattr(importlib.import_module(module_name), func_name)


def _internal_error(payload, exc: BaseException) -> dict:
    lang = payload.get("lang") if isinstance(payload, dict) else None
    try:
        from atlas.core import l10n

        lang = lang if lang in l10n.LANGUAGES else l10n.DEFAULT_LANGUAGE
        message = l10n.t(lang, "runtime.internal_error")
    except Exception:  # the message table itself is broken: still answer
        message = "Internal error"
    return {
        "ok": False,
        "errors": [{"field": None, "key": "runtime.internal_error", "params": {}, "message": message}],
        "detail": "".join(traceback.format_exception_only(type(exc), exc)).strip(),
    }


def _finite(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(_finite(v) for v in value)
    return True


def call(name: str, payload_json: str) -> str:
    """Run entry point ``name`` on the JSON ``payload_json``; return JSON.

    Never raises: an unknown name, bad JSON, an exception in the entry point
    or a non-finite number in its answer all come back as
    ``{"ok": false, "errors": [{"key": "runtime.internal_error", ...}], "detail": ...}``
    with the message in the payload's ``lang``. ``detail`` names the
    exception type and message for the browser console; it is never shown on
    the page.
    """
    payload = None
    try:
        payload = json.loads(payload_json)
        result = resolve(name)(payload)
        if not _finite(result):
            raise ValueError(f"entry point {name!r} returned a non-finite number")
        return json.dumps(result, allow_nan=False, ensure_ascii=False)
    except Exception as exc:  # the page must get an answer, never a traceback
        return json.dumps(_internal_error(payload, exc), ensure_ascii=False)


def warm(names: list[str]) -> list[str]:
    """Import the modules behind the entry points ``names`` ahead of the first call,
    and run each module's ``warm()`` if it has one (e.g. to read its data)."""
    for name in names:
        module = importlib.import_module(ENTRY_POINTS[name].partition(":")[0])
        resolve(name)
        if callable(getattr(module, "warm", None)):
            module.warm()
    return list(names)

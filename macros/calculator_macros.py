"""Macros for the in-page calculators: ``{{ calculator("vram", model="llama-3.1-8b") }}``.

Renders the whole calculator with ``atlas.core.calcview.page`` (form, the result for the
page's defaults computed by ``atlas.core.calculators.api.handle``, the explanation) and
the module script that brings it to life; sets ``page.meta.atlas_runtime``,
``atlas_start`` and ``atlas_modules``, which ``overrides/main.html`` writes into
the page's ``<head>``. Default inputs that give no result stop the build.
"""

from __future__ import annotations

import posixpath

from atlas.core.calcview.page import calculator_html, config_json, runtime_options
from atlas.data import webbundle

SCRIPT = "assets/javascripts/calculator.mjs"
START = "assets/javascripts/pyodide-start.js"


def relative_to_page(target: str, page_url: str) -> str:
    """``target`` (a path from the site root) relative to a page at ``page_url`` ("de/calculators/vram/")."""
    base = page_url if page_url.endswith("/") else posixpath.dirname(page_url) + "/"
    return posixpath.relpath(target, base.rstrip("/") or ".")


def register(env, ctx):
    @env.macro
    def calculator(command, **defaults):
        """The ``command`` calculator ("vram" or "speed") with ``defaults`` as its initial inputs."""
        versions = {"bundle": webbundle.site_bundle()[1], "data": webbundle.site_data(ctx.dataset)[1]}
        script = relative_to_page(SCRIPT, env.page.url)
        # overrides/main.html writes these into <head>: the runtime starts before the body loads
        env.page.meta["atlas_runtime"] = config_json(runtime_options(versions))
        env.page.meta["atlas_start"] = relative_to_page(START, env.page.url)
        env.page.meta["atlas_modules"] = [script]
        return calculator_html(command, defaults, ctx.lang(), ctx.catalog(), script)

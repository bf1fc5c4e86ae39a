"""Macros that put the estimators' answers into prose, with a link to the calculator.

Every number comes from ``atlas.core.calculators.api.handle`` (through
``atlas.data.chart_estimates.estimate``, which the charts use too) — the same entry
point the in-page calculators and the command line use — so no formula is
repeated here. Parameter names are the calculators' (``model``, ``weights``,
``kv_cache``, ``context``, ``batch``, ``mode``, ``device``, ``baseline``,
``workload``, …). A request the estimators reject stops the build with their
localized error messages.

- ``vram_total(**params)`` — total memory, e.g. "42.5 GiB".
- ``devices_needed(device_id, **params)`` — how many of a device hold the estimate.
- ``tokens_per_s(device, per_sequence=False, **params)`` — decode speed on one device: in total over
  ``batch`` concurrent sequences, or each sequence's own with ``per_sequence=True``.
- ``speedup(device, baseline, **params)`` — e.g. "1.64×".
- ``chips_for_model(device_id, model, weights, context=None, batch=None)`` — a
  sentence: how many of a device hold the model for inference (the estimators'
  ``fits`` count: weights, KV cache and workspace) and how much of it the
  weights are, with a link to the memory calculator pre-filled the same way.
- ``calc_link(command, text=None, **params)`` — a Markdown link to the calculator,
  pre-filled (empty until the calculator page exists in ``docs/``); ``text`` is the
  link text in the page's language, by default "Open this example in …".
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from urllib.parse import urlencode

from atlas.core import l10n
from atlas.core.calculators.catalog import Catalog
from atlas.data.chart_estimates import EstimateError, estimate
from atlas.data.safe import inline_text

CALCULATOR_PAGES = {"vram": "calculators/vram.md", "speed": "calculators/speed.md"}


def gib_text(value_gib: float, lang: str) -> str:
    """'42.5 GiB' with one decimal in the page's number format."""
    return f"{l10n.format_number(value_gib, lang, 1)}\u00a0{l10n.t(lang, 'unit.gib')}"


def fit_count(result: dict, device_id: str) -> int:
    """How many of ``device_id`` the estimate's ``fits`` list needs; error if it does not fit at all."""
    for entry in result["fits"]:
        if entry["device"] == device_id:
            if entry["count"] is None:
                raise EstimateError(f"{result['model']} does not fit on any practical number of {device_id}")
            return entry["count"]
    raise EstimateError(f"device {device_id!r} is not in the estimate's fits list")


def chips_sentence(catalog: Catalog, device_id: str, params: dict, lang: str) -> str:
    """'Llama 3.1 70B in INT8 with one sequence of 4,096 tokens needs 322 chips for its weights,
    KV cache and workspace; the weights alone are 67.7 GiB.' (inference; ``params`` as the memory
    calculator takes them)."""
    result = estimate("vram", params, lang, catalog)
    key = "estimate.chips" if result["batch"] == 1 else "estimate.chips_batch"
    return l10n.t(
        lang,
        key,
        model=inline_text(result["model_name"]),  # from data/models: plain text in running Markdown
        weights=l10n.t(lang, f"format.{result['weights']}"),
        context=l10n.format_number(result["context"], lang, 0),
        batch=l10n.format_number(result["batch"], lang, 0),
        count=l10n.format_number(fit_count(result, device_id), lang, 0),
        size=gib_text(result["breakdown"]["weights_gib"], lang),
    )


def speed_text(catalog: Catalog, device: str, params: dict, lang: str, per_sequence: bool = False) -> str:
    """Tokens per second of a speed estimate (decode unless ``params`` says otherwise; three significant digits):
    the total over ``batch`` concurrent sequences, or one sequence's own with ``per_sequence``."""
    result = estimate("speed", {"workload": "decode", **params, "device": device}, lang, catalog)
    key = "tokens_per_s_per_sequence" if per_sequence else "tokens_per_s"
    return l10n.format_significant(result["device"][key], lang, 3)


def calculator_href(command: str, params: dict, page_src: str) -> str:
    """Relative Markdown link target from the page ``page_src`` to the pre-filled calculator."""
    if command not in CALCULATOR_PAGES:
        raise ValueError(f"unknown calculator {command!r}; expected one of {', '.join(CALCULATOR_PAGES)}")
    target = posixpath.relpath(CALCULATOR_PAGES[command], posixpath.dirname(page_src) or ".")
    return f"{target}?{urlencode(params)}"


def calculator_html_href(command: str, params: dict, page_src: str) -> str:
    """Relative URL from the built page of ``page_src`` to the pre-filled calculator, for links inside HTML
    (MkDocs rewrites ``.md`` targets only in Markdown links). Pages and calculators share the language prefix,
    so the path between them is the same in every language; the site uses directory URLs."""
    if command not in CALCULATOR_PAGES:
        raise ValueError(f"unknown calculator {command!r}; expected one of {', '.join(CALCULATOR_PAGES)}")
    page = posixpath.splitext(page_src)[0].removesuffix(".de")
    page_dir = posixpath.dirname(page) if posixpath.basename(page) == "index" else page
    target = posixpath.splitext(CALCULATOR_PAGES[command])[0]
    return f"{posixpath.relpath(target, page_dir or '.')}/?{urlencode(params)}"


def calculator_page_exists(command: str, docs_dir: str) -> bool:
    """Whether the English page of calculator ``command`` exists under ``docs_dir``."""
    if command not in CALCULATOR_PAGES:
        raise ValueError(f"unknown calculator {command!r}; expected one of {', '.join(CALCULATOR_PAGES)}")
    return (Path(docs_dir) / CALCULATOR_PAGES[command]).is_file()


def register(env, ctx):
    def run(command, params):
        return estimate(command, params, ctx.lang(), ctx.catalog())

    @env.macro
    def vram_total(**params):
        """Total memory of a vram estimate, e.g. '42.5 GiB'."""
        return gib_text(run("vram", params)["total_gib"], ctx.lang())

    @env.macro
    def devices_needed(device_id, **params):
        """How many of ``device_id`` hold the vram estimate (from the estimators' fits list)."""
        return l10n.format_number(fit_count(run("vram", params), device_id), ctx.lang(), 0)

    @env.macro
    def tokens_per_s(device, per_sequence=False, **params):
        """Decode speed in tokens per second on one ``device`` (three significant digits): in total over the
        ``batch`` concurrent sequences (default 1), or each sequence's own with ``per_sequence=True``."""
        return speed_text(ctx.catalog(), device, params, ctx.lang(), per_sequence)

    @env.macro
    def speedup(device, baseline, **params):
        """How many times faster ``device`` is than ``baseline`` for the workload, e.g. '1.64×'."""
        result = run("speed", {**params, "device": device, "baseline": baseline})
        return f"{l10n.format_number(result['speedup'], ctx.lang(), 2)}×"

    @env.macro
    def chips_for_model(device_id, model, weights, context=None, batch=None):
        """How many ``device_id`` hold ``model`` in ``weights`` for inference, as a sentence with a link
        to the memory calculator showing the same estimate; ``context``/``batch``: the calculator's
        defaults when None."""
        params = {"model": model, "weights": weights}
        params.update({k: v for k, v in (("context", context), ("batch", batch)) if v is not None})
        sentence = chips_sentence(ctx.catalog(), device_id, params, ctx.lang())
        link = calc_link("vram", **params)
        return f"{sentence} {link}" if link else sentence

    @env.macro
    def calc_link(command, text=None, **params):
        """A Markdown link that opens the calculator with ``params`` filled in.

        ``text`` is the link text, written in the page's language (no
        calculator parameter is called ``text``); without it the link reads
        "Open this example in the … calculator". Empty while the calculator
        page is not in ``docs/`` yet (strict builds refuse links to missing
        pages); it appears once the page does.
        """
        if not calculator_page_exists(command, env.conf["docs_dir"]):
            return ""
        label = text if text is not None else l10n.t(ctx.lang(), f"estimate.link.{command}")
        return f"[{label}]({calculator_href(command, params, env.page.file.src_uri)})"

"""Macros that put the estimators' answers into prose, with a link to the calculator.

Every number comes from ``calculators.api.handle`` — the same entry point the
in-page calculators and the command line use — so no formula is repeated
here. Parameter names are the calculators' (``model``, ``weights``,
``kv_cache``, ``context``, ``batch``, ``mode``, ``device``, ``baseline``,
``workload``, …). A request the estimators reject stops the build with their
localized error messages.

- ``vram_total(**params)`` — total memory, e.g. "42.5 GiB".
- ``devices_needed(device_id, **params)`` — how many of a device hold the estimate.
- ``tokens_per_s(device, **params)`` — decode speed on one device.
- ``speedup(device, baseline, **params)`` — e.g. "1.64×".
- ``chips_for_model(device_id, model, weights)`` — a sentence: the weights alone
  and how many devices their memory needs (for SRAM-only chips).
- ``memory_chart(examples, devices=(), caption=None)`` — the estimators' memory
  breakdown of each example (``{"label": ..., "params": {...}}``) as a stacked-bar
  chart, with the capacities of ``devices`` as lines.
- ``calc_link(command, **params)`` — a Markdown link to the calculator, pre-filled
  (empty until the calculator page exists in ``docs/``).
"""

from __future__ import annotations

import posixpath
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlencode

import charts
import l10n
from atlas import sizing
from atlas.export import export_dataset
from calculators.api import handle
from calculators.catalog import Catalog

CALCULATOR_PAGES = {"vram": "calculators/vram.md", "speed": "calculators/speed.md"}


class EstimateError(ValueError):
    """The estimators rejected a request written on a page."""


def estimate(catalog: Catalog, command: str, params: dict, lang: str) -> dict:
    """The result object of one estimator request; ``EstimateError`` with its messages otherwise."""
    response = handle({"command": command, "params": dict(params), "lang": lang}, catalog)
    if not response.get("ok"):
        messages = "; ".join(f"{e.get('field')}: {e.get('message')}" for e in response.get("errors", []))
        raise EstimateError(f"{command} {params}: {messages}")
    return response["result"]


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


def chips_sentence(catalog: Catalog, device: dict, model: str, weights: str, lang: str) -> str:
    """'Llama 3.1 70B in INT8: 65.8 GiB of weights alone fill at least 307 chips.'"""
    result = estimate(catalog, "vram", {"model": model, "weights": weights, "context": 1, "batch": 1}, lang)
    weights_gib = result["breakdown"]["weights_gib"]
    count = sizing.devices_to_hold(weights_gib * sizing.GIB, sizing.device_figure(device, "memory"))
    return l10n.t(
        lang,
        "estimate.chips",
        model=result["model_name"],
        weights=weights.upper(),
        size=gib_text(weights_gib, lang),
        count=l10n.format_number(count, lang, 0),
    )


def calculator_href(command: str, params: dict, page_src: str) -> str:
    """Relative Markdown link target from the page ``page_src`` to the pre-filled calculator."""
    if command not in CALCULATOR_PAGES:
        raise ValueError(f"unknown calculator {command!r}; expected one of {', '.join(CALCULATOR_PAGES)}")
    target = posixpath.relpath(CALCULATOR_PAGES[command], posixpath.dirname(page_src) or ".")
    return f"{target}?{urlencode(params)}"


def breakdown_bars(catalog: Catalog, examples: list, lang: str) -> list[dict]:
    """Chart bars from estimator requests: ``[{"label", "params"}]`` -> ``[{"label", "parts"}]``."""
    return [{"label": ex["label"], "parts": estimate(catalog, "vram", ex["params"], lang)["breakdown"]} for ex in examples]


def capacity_lines(devices: list[dict]) -> list[dict]:
    """Capacity lines for the breakdown chart, labelled with each device's short name."""
    return [{"label": d.get("short_name", d["name"]), "capacity_gib": d["memory"]["capacity_gib"]} for d in devices]


def calculator_page_exists(command: str, docs_dir: str) -> bool:
    """Whether the English page of calculator ``command`` exists under ``docs_dir``."""
    if command not in CALCULATOR_PAGES:
        raise ValueError(f"unknown calculator {command!r}; expected one of {', '.join(CALCULATOR_PAGES)}")
    return (Path(docs_dir) / CALCULATOR_PAGES[command]).is_file()


def register(env, ctx):
    @lru_cache(maxsize=1)
    def catalog() -> Catalog:
        return Catalog.from_dict(export_dataset(ctx.dataset))

    def run(command, params):
        return estimate(catalog(), command, params, ctx.lang())

    @env.macro
    def vram_total(**params):
        """Total memory of a vram estimate, e.g. '42.5 GiB'."""
        return gib_text(run("vram", params)["total_gib"], ctx.lang())

    @env.macro
    def devices_needed(device_id, **params):
        """How many of ``device_id`` hold the vram estimate (from the estimators' fits list)."""
        return l10n.format_number(fit_count(run("vram", params), device_id), ctx.lang(), 0)

    @env.macro
    def tokens_per_s(device, **params):
        """Decode speed in tokens per second on one ``device`` (three significant digits)."""
        result = run("speed", {"workload": "decode", **params, "device": device})
        return l10n.format_significant(result["device"]["tokens_per_s"], ctx.lang(), 3)

    @env.macro
    def speedup(device, baseline, **params):
        """How many times faster ``device`` is than ``baseline`` for the workload, e.g. '1.64×'."""
        result = run("speed", {**params, "device": device, "baseline": baseline})
        return f"{l10n.format_number(result['speedup'], ctx.lang(), 2)}×"

    @env.macro
    def chips_for_model(device_id, model, weights):
        """A sentence: the model's weights and how many ``device_id`` their size alone needs."""
        return chips_sentence(catalog(), ctx.dataset.device(device_id), model, weights, ctx.lang())

    @env.macro
    def memory_chart(examples, devices=(), caption=None):
        """Stacked memory breakdown of estimator examples, with device capacities as lines."""
        bars = breakdown_bars(catalog(), examples, ctx.lang())
        lines = capacity_lines([ctx.dataset.device(i) for i in devices])
        return charts.memory_breakdown_figure(bars, ctx.lang(), capacities=lines or None, caption=caption)

    @env.macro
    def calc_link(command, **params):
        """A Markdown link that opens the calculator with ``params`` filled in.

        Empty while the calculator page is not in ``docs/`` yet (strict
        builds refuse links to missing pages); it appears once the page does.
        """
        if not calculator_page_exists(command, env.conf["docs_dir"]):
            return ""
        text = l10n.t(ctx.lang(), f"estimate.link.{command}")
        return f"[{text}]({calculator_href(command, params, env.page.file.src_uri)})"

"""The "How is this calculated?" section: the formulas and every default with its source.

The formulas are sentences in the translation tables (``calc.explain.*``);
the defaults come from ``atlas.core.calculators.assumptions.all_defaults()``, the very
figures the estimators use, each with its value, unit and source link. Labels
and units are translated here, so the section reads as native text in both
languages.
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.calculators import assumptions
from atlas.core.calculators import defaults as d
from atlas.core.calcview import numbers
from atlas.core.calcview.markup import el, text

# Formula items per calculator: each has ``calc.explain.<command>.<item>`` (sentence) and
# ``calc.explain.<command>.<item>.formula`` (the formula as plain text).
FORMULAS = {
    "vram": ("weights", "kv_cache", "workspace", "activations", "training_state", "overhead", "fits"),
    "speed": ("roofline", "decode", "prefill", "training", "intensity", "speedup"),
}

# Figures an explanation states, from the defaults that hold them (``calc.explain.<command>.<item>`` placeholders).
FIGURES = {
    "training": {"full": d.TRAINING_FLOPS_PER_TOKEN.value, "adapters": d.TRAINING_FLOPS_ADAPTERS.value,
                 "recompute": d.TRAINING_FLOPS_RECOMPUTE.value - d.TRAINING_FLOPS_PER_TOKEN.value},
}

# Units of the defaults (as ``atlas.core.calculators.defaults`` writes them) -> translation key.
UNIT_KEYS = {
    "GiB per device": "calc.dunit.gib_per_device",
    "tokens per forward pass": "calc.dunit.tokens_per_pass",
    "bytes per token and hidden unit per layer": "calc.dunit.bytes_per_sbh",
    "bytes per token and vocabulary entry": "calc.dunit.bytes_per_logit",
    "FLOPs per active parameter and token": "calc.dunit.flops_per_param_token",
    "rank": "calc.dunit.rank",
    "x hidden": "calc.dunit.x_hidden",
    "bytes per trainable parameter": "calc.dunit.bytes_per_trainable",
    "fraction of peak bandwidth": "calc.dunit.fraction_bandwidth",
    "fraction of peak FLOP/s": "calc.dunit.fraction_flops",
    "bits per weight": "calc.dunit.bits_per_weight",
    "bytes per element": "calc.dunit.bytes_per_element",
    "elements per token and layer": "calc.dunit.elements_per_token_layer",
    "share of experts one decode step reads": "calc.dunit.expert_share",
    "dense peak / sparse peak": "calc.dunit.dense_per_sparse",
    "words per minute": "calc.dunit.words_per_minute",
    "words per token": "calc.dunit.words_per_token",
    "tokens per target-model run": "calc.dunit.tokens_per_run",
    "share of drafted tokens accepted": "calc.dunit.accepted_share",
    "tokens drafted per target-model run": "calc.dunit.drafted_per_run",
}


def default_label(key: str, lang: str) -> str:
    """What a default is, in ``lang`` (``weights.q4_k_m`` -> "Weight format Q4_K_M")."""
    head, _, rest = key.partition(".")
    if head in ("weights", "kv_cache"):
        return l10n.t(lang, f"calc.default.{head}", format=l10n.t(lang, f"format.{rest}"))
    if head == "efficiency":
        workload, _, kind = rest.partition(".")
        return l10n.t(lang, f"calc.default.efficiency_{kind}", workload=l10n.t(lang, f"workload.{workload}"))
    return l10n.t(lang, f"calc.default.{key}")


def default_value(value, lang: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return numbers.significant(value, lang, 4)


def defaults_table(lang: str) -> str:
    """Every default the estimators use: what, value, unit, source."""
    head = "".join(el("th", text(l10n.t(lang, f"calc.explain.col.{c}")), scope="col")
                   for c in ("what", "value", "unit", "source"))
    rows = []
    for item in assumptions.all_defaults():
        shown = default_value(item.value, lang)
        value_html = el("code", text(shown)) if isinstance(item.value, str) else text(shown)
        rows.append(el(
            "tr",
            el("th", text(default_label(item.key, lang)), scope="row")
            + el("td", value_html)
            + el("td", text(l10n.t(lang, UNIT_KEYS[item.unit])))
            + el("td", el("a", text(item.source.title), href=item.source.url)),
            data_default_key=item.key,
        ))
    return el("table", el("thead", el("tr", head)) + el("tbody", "".join(rows)))


def explain_html(command: str, lang: str) -> str:
    """The collapsible section for ``command`` ("vram" or "speed") in ``lang``."""
    items = "".join(
        el("li", text(l10n.t(lang, f"calc.explain.{command}.{item}", **FIGURES.get(item, {}))) + "<br>"
           + el("code", text(l10n.t(lang, f"calc.explain.{command}.{item}.formula", **FIGURES.get(item, {})))))
        for item in FORMULAS[command]
    )
    body = (
        el("p", text(l10n.t(lang, f"calc.explain.{command}.intro")))
        + el("ol", items)
        + el("p", text(l10n.t(lang, "calc.explain.defaults_intro")))
        + defaults_table(lang)
    )
    summary = el("summary", text(l10n.t(lang, "calc.explain.summary")))
    return el("details", summary + body, class_="atlas-calc-explain")

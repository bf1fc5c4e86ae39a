"""What a quantised KV cache costs: the memory it saves and the quality change others measured.

``answer(model, kv_cache, context, batch, rows)`` puts side by side the KV-cache memory in the chosen format and
in FP16 (``atlas.core.calculators.memory.kv_cache_bytes``, the figure of the memory breakdown) and the quality changes
published for that format (``data/kv-quality/``, exported by ``atlas.data.export.kv_quality_rows``). The measurements
are listed as measured — each with its model, engine, metric and source — never transferred to the reader's
model or turned into a predicted loss. Standard library only.
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.calculators import defaults as d
from atlas.core.calculators.memory import kv_cache_bytes

# Formats with nothing to show: the 16-bit caches are the reference the measurements compare against.
REFERENCE_FORMATS = ("fp16", "bf16")

# Metrics whose source states the 16-bit cache's value beside the quantised one (a change can be shown); the
# others (divergence, top-token agreement) are measured against the 16-bit cache and stand on their own.
WITH_BASELINE = ("perplexity", "humaneval_pass1_percent")

ROW_KEYS = ("kv_cache", "same_scheme", "as_named", "engine", "model", "weights", "metric", "baseline", "quantised",
            "dataset", "context_tokens")


def rows_of(catalog) -> list | None:
    """The exported measurements: ``catalog["kv_quality"]`` of an export document, or a catalog's ``kv_quality``
    attribute; None when the data carries no such table (then nothing is said about quality)."""
    rows = catalog.get("kv_quality") if isinstance(catalog, dict) else getattr(catalog, "kv_quality", None)
    return [row for row in rows if isinstance(row, dict)] if isinstance(rows, list) else None


def _measurement(row: dict) -> dict:
    out = {key: row.get(key) for key in ROW_KEYS}
    source = row.get("source") or {}
    out["source"] = {key: source.get(key) for key in ("id", "url", "title", "publisher", "where")}
    baseline, quantised = out["baseline"], out["quantised"]
    if out["metric"] in WITH_BASELINE and isinstance(baseline, (int, float)) and baseline:
        out["change"] = quantised - baseline
        out["change_percent"] = 100 * (quantised - baseline) / baseline
    else:
        out["change"] = out["change_percent"] = None
    return out


def answer(model, kv_cache: str, context: int, batch: int, rows: list | None) -> dict | None:
    """The memory saved against FP16 and the measured quality changes of ``kv_cache``; None for a 16-bit cache.

    ``{"kv_cache", "kv_cache_gib", "fp16_gib", "saved_gib", "saved_percent", "measurements": [...],
    "same_scheme": bool}``: ``measurements`` lists first the sources that measured exactly this format, then
    those of a related scheme of the same width (``same_scheme`` false, named in ``as_named``); ``same_scheme``
    says whether any measurement is of exactly this format. An empty list means no source in ``data/kv-quality/``
    measured it; None (``rows`` None) means the data given carried no measurements to look in."""
    if kv_cache in REFERENCE_FORMATS or kv_cache not in d.KV_FORMATS:
        return None
    fp16 = kv_cache_bytes(model, "fp16", context, batch)
    chosen = kv_cache_bytes(model, kv_cache, context, batch)
    listed = None
    if rows is not None:
        listed = [_measurement(row) for row in rows if row.get("kv_cache") == kv_cache]
        listed.sort(key=lambda m: not m["same_scheme"])  # stable: exact matches first, file order kept
    return {
        "kv_cache": kv_cache,
        "kv_cache_gib": chosen / d.GIB,
        "fp16_gib": fp16 / d.GIB,
        "saved_gib": (fp16 - chosen) / d.GIB,
        "saved_percent": 100 * (fp16 - chosen) / fp16 if fp16 else 0.0,
        "measurements": listed,
        "same_scheme": any(m["same_scheme"] for m in listed or ()),
    }


def _decimals(value: float) -> int:
    """The fraction digits ``value`` was stated with (6.232196 -> 6, 74.9 -> 1)."""
    text = repr(float(value))
    return 0 if "e" in text else len(text.partition(".")[2].rstrip("0"))


def _stated(value, lang: str) -> str:
    return l10n.format_number(value, lang, _decimals(value)) if isinstance(value, (int, float)) else "-"


def _signed(text: str, value: float) -> str:
    return ("+" if value > 0 else "") + text


def saved_sentence(answer_: dict, lang: str) -> str:
    """"KV cache in Q8_0: 0.53 GiB instead of 1 GiB in FP16, 0.47 GiB (46.9 %) less." in ``lang``."""
    gib = lambda v: l10n.format_number(v, lang, 2)  # noqa: E731
    return l10n.t(lang, "kvq.saved", format=l10n.t(lang, f"format.{answer_['kv_cache']}"), gib=gib(answer_["kv_cache_gib"]),
                  fp16_gib=gib(answer_["fp16_gib"]), saved_gib=gib(answer_["saved_gib"]),
                  percent=l10n.format_number(answer_["saved_percent"], lang, 1))


def described(m: dict, lang: str) -> dict:
    """One measurement as display strings: model, engine, cache, metric, fp16, quantised, change."""
    change = "-"
    if m["change"] is not None:
        digits = max(_decimals(m["baseline"]), _decimals(m["quantised"]))
        percent = l10n.format_significant(abs(m["change_percent"]), lang, 2) if m["change_percent"] else "0"
        sign = "+" if m["change_percent"] > 0 else "−" if m["change_percent"] < 0 else ""
        space = "\u202f" if lang == "de" else "\u00a0"
        change = _signed(l10n.format_number(m["change"], lang, digits), m["change"]).replace("-", "−")
        if not m["metric"].endswith("_percent"):  # a relative change of a percentage would mislead
            change += f" ({sign}{percent}{space}%)"
    return {
        "model": f"{m['model']} ({m['weights']})",
        "engine": m["engine"],
        "cache": m["as_named"],
        "metric": l10n.t(lang, f"kvq.metric.{m['metric']}"),
        "fp16": _stated(m["baseline"], lang) if m["baseline"] is not None else l10n.t(lang, "kvq.against_fp16"),
        "quantised": _stated(m["quantised"], lang),
        "change": change,
    }


def lines(answer_: dict | None, lang: str) -> list[str]:
    """The section as plain-text lines for the command line ([] when there is none)."""
    if not answer_:
        return []
    fmt = l10n.t(lang, f"format.{answer_['kv_cache']}")
    out = ["", l10n.t(lang, "kvq.cli_heading") + ":", saved_sentence(answer_, lang)]
    listed = answer_["measurements"]
    if listed is None:
        return out
    if not listed:
        return out + [l10n.t(lang, "kvq.none", format=fmt)]
    out.append(l10n.t(lang, "kvq.intro", format=fmt))
    if not answer_["same_scheme"]:
        out.append(l10n.t(lang, "kvq.related", format=fmt))
    for m in listed:
        s = described(m, lang)
        shown = f"{s['fp16']} → {s['quantised']}" if m["baseline"] is not None else s["quantised"]
        out.append(f"- {s['model']}, {s['engine']}, {s['cache']}: {s['metric']} {shown}"
                   + (f", {s['change']}" if m["change"] is not None else "")
                   + f"; {m['source']['publisher']} <{m['source']['url']}>")
    return out

"""Tables for the page "Quantisation explained": weight formats and their bits per weight, the ggml block types,
the KV-cache formats, which architectures state low-precision matrix figures, llama.cpp's published perplexity
deltas, and single measurements from ``data/inference``.

Nothing here restates a format's size: bits and bytes are the calculators' own (``atlas.core.calculators.defaults`` and the
``vram`` estimate through ``atlas.core.calculators.api.handle``, which the in-page calculator runs too), so the page cannot
drift from them. The only figures kept here are the perplexity deltas llama.cpp prints for its file types, with
their source. Tables are Markdown, so that MkDocs resolves the calculator links in them; every cell is built from
translation strings, ids and numbers, never from free text in the data set.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from atlas.core import l10n
from atlas.core.calculators import defaults as d
from atlas.core.calculators.catalog import Catalog
from atlas.core.calculators.defaults import Source
from atlas.core.calculators.memory import bits_per_weight
from atlas.data.chart_estimates import estimate

# Weight formats of the main table, in the order the page explains them. int4 is left out: the calculators
# store it exactly as gptq (same bits, same source).
FORMATS = (
    "bf16", "fp16", "fp8", "fp8_block", "int8", "gptq", "awq", "nf4",
    "q8_0", "q6_k", "q5_k_m", "q4_k_m", "q4_k_s", "q4_0", "iq4_xs", "q3_k_m", "iq3_m", "q2_k", "iq2_xs",
    "iq2_xxs", "iq1_s",
    "mxfp4", "nvfp4", "exl2", "mlx_4bit",
)
FAMILY = {"float": "float", "int": "int", "int4": "int", "nf4": "nf4", "fp8_block": "float", "mx": "micro",
          "nvfp4": "micro", "exl": "exl", "mlx": "mlx"}
REFERENCE_MODEL = "llama-3.1-8b"  # the model the format and KV tables size

# ggml block types of the block table (atlas.core.calculators.defaults.GGML_TYPES), grouped as llama.cpp names them.
BLOCK_TYPES = ("q4_0", "q4_1", "q5_0", "q8_0", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k",
               "iq1_s", "iq2_xxs", "iq2_xs", "iq3_xxs", "iq4_nl", "iq4_xs", "mxfp4", "nvfp4")

# Precisions below 16 bits whose matrix figures the hardware table looks for.
LOW_PRECISIONS = ("fp8", "fp6", "fp4", "int8", "int4")

LLAMA_CPP_PPL_SOURCE = Source(
    "https://github.com/ggml-org/llama.cpp/blob/master/tools/quantize/quantize.cpp",
    "llama.cpp, tools/quantize/quantize.cpp (QUANT_OPTIONS)",
    'Q8_0 " 7.96G, +0.0026 ppl @ Llama-3-8B"; Q6_K " 6.14G, +0.0217 ppl"; Q5_K_M " 5.33G, +0.0569 ppl"; '
    'Q5_K_S " 5.21G, +0.1049 ppl"; Q4_K_M " 4.58G, +0.1754 ppl"; Q4_K_S " 4.37G, +0.2689 ppl"; '
    'Q4_0 " 4.34G, +0.4685 ppl"; Q3_K_L " 4.03G, +0.5562 ppl"; Q3_K_M " 3.74G, +0.6569 ppl"; '
    'Q3_K_S " 3.41G, +1.6321 ppl"; Q2_K " 2.96G, +3.5199 ppl" (all @ Llama-3-8B).',
)
# Perplexity increase over the 16-bit model, as llama.cpp's quantize lists it for Llama-3-8B (the test text is not
# named there). Keys are the calculators' format names.
LLAMA_CPP_PPL = {
    "q8_0": 0.0026, "q6_k": 0.0217, "q5_k_m": 0.0569, "q5_k_s": 0.1049, "q4_k_m": 0.1754, "q4_k_s": 0.2689,
    "q4_0": 0.4685, "q3_k_l": 0.5562, "q3_k_m": 0.6569, "q3_k_s": 1.6321, "q2_k": 3.5199,
}

Link = Callable[[str, dict], str]  # (command, params) -> Markdown link target


def _num(value: float, lang: str, decimals: int) -> str:
    return l10n.format_number(value, lang, decimals, trim=False)


def unit_space(lang: str) -> str:
    """Between a number and its unit: a no-break space, in both languages (CONTRIBUTING.de.md: U+202F only
    before %)."""
    return "\u00a0"


def gib(value: float, lang: str, decimals: int = 2) -> str:
    return f"{_num(value, lang, decimals)}{unit_space(lang)}{l10n.t(lang, 'unit.gib')}"


def _md_table(head: list[str], body: list[list[str]]) -> str:
    """A Markdown table without column alignment: Markdown would align with style attributes, which the site's
    Content-Security-Policy (style-src 'self') blocks."""
    lines = ["| " + " | ".join(map(_cell, head)) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    lines += ["| " + " | ".join(map(_cell, cells)) + " |" for cells in body]
    return "\n".join(lines)


_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!>~])")


def md_text(value) -> str:
    """Text from the data set inside Markdown: its Markdown punctuation backslash-escaped, so a name can never
    become a link, an image or emphasis."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", str(value))


def _cell(value: str) -> str:
    """One table cell: names from the data set stay text (HTML escaped, a "|" cannot end the cell); the
    Markdown links built here keep working."""
    return html.escape(str(value), quote=False).replace("|", "\\|").replace("\n", " ")


def family(name: str) -> str:
    """Translation key suffix of a weight format's family (gguf split into legacy, K- and I-quants)."""
    fmt = d.WEIGHT_FORMATS[name]
    if fmt.kind == "gguf":
        return "gguf_iq" if name.startswith("iq") else "gguf_k" if "_k" in name else "gguf_legacy"
    return FAMILY[fmt.kind]


def format_rows(catalog: Catalog, lang: str, model: str = REFERENCE_MODEL) -> list[dict]:
    """One row per format of ``FORMATS``: the calculator's bits per quantised weight, its average over all of
    ``model``'s tensors and the weights' size, from one ``vram`` estimate each."""
    rows = []
    for name in FORMATS:
        params = {"model": model, "weights": name}
        result = estimate("vram", params, lang, catalog)
        rows.append({"format": name, "family": family(name), "bits": result["bits_per_weight"],
                     "average_bits": result["average_bits_per_weight"],
                     "weights_gib": result["breakdown"]["weights_gib"], "params": params,
                     "model_name": result["model_name"]})
    return rows


def format_table(catalog: Catalog, lang: str, link: Link, model: str = REFERENCE_MODEL) -> str:
    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    rows = format_rows(catalog, lang, model)
    head = [t("quant.col.format"), t("quant.col.family"), t("quant.col.bits"),
            t("quant.col.average_bits", model=md_text(rows[0]["model_name"])),
            t("quant.col.weights", model=md_text(rows[0]["model_name"]))]
    body = [[t(f"format.{r['format']}"), t(f"quant.family.{r['family']}"), _num(r["bits"], lang, 2),
             _num(r["average_bits"], lang, 2),
             f"[{gib(r['weights_gib'], lang)}]({link('vram', r['params'])})"] for r in rows]
    return _md_table(head, body)


def block_rows() -> list[dict]:
    return [{"type": name, "block": d.GGML_TYPES[name].block, "bytes": d.GGML_TYPES[name].block_bytes,
             "bits": d.GGML_TYPES[name].bits} for name in BLOCK_TYPES]


def block_table(lang: str) -> str:
    t = lambda key: l10n.t(lang, key)  # noqa: E731
    head = [t("quant.col.type"), t("quant.col.block"), t("quant.col.block_bytes"), t("quant.col.block_bits")]
    body = [[f"`{r['type']}`", _num(r["block"], lang, 0), _num(r["bytes"], lang, 0), _num(r["bits"], lang, 4)]
            for r in block_rows()]
    return _md_table(head, body)


KV_TABLE_FORMATS = ("fp16", "fp8", "q8_0", "q5_0", "q4_0")


def kv_rows(catalog: Catalog, lang: str, model: str, weights: str, context: int, batch: int = 1) -> list[dict]:
    rows = []
    for name in KV_TABLE_FORMATS:
        params = {"model": model, "weights": weights, "kv_cache": name, "context": context, "batch": batch}
        result = estimate("vram", params, lang, catalog)
        rows.append({"kv_cache": name, "bytes": d.KV_FORMATS[name], "kv_gib": result["breakdown"]["kv_cache_gib"],
                     "total_gib": result["total_gib"], "params": params, "model_name": result["model_name"]})
    return rows


def kv_table(catalog: Catalog, lang: str, link: Link, model: str = REFERENCE_MODEL, weights: str = "q4_k_m",
             context: int = 32768, batch: int = 1) -> str:
    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    rows = kv_rows(catalog, lang, model, weights, context, batch)
    head = [t("quant.col.kv_format"), t("quant.col.kv_bytes"),
            t("quant.col.kv_size", model=md_text(rows[0]["model_name"]), context=_num(context, lang, 0)),
            t("quant.col.total", weights=t(f"format.{weights}"))]
    body = [[t(f"format.{r['kv_cache']}") if f"format.{r['kv_cache']}" in l10n.labels(lang) else r["kv_cache"].upper(),
             _num(r["bytes"], lang, 4), gib(r["kv_gib"], lang), f"[{gib(r['total_gib'], lang)}]({link('vram', r['params'])})"]
            for r in rows]
    return _md_table(head, body)


def architecture(device: dict) -> str:
    """The device's architecture without the die or variant in brackets ("Ada Lovelace (AD102)" -> "Ada Lovelace")."""
    return re.sub(r"\s*\(.*\)\s*$", "", device.get("architecture") or "").strip() or "?"


def native_rows(devices: dict) -> list[dict]:
    """Per vendor and architecture: how many devices the data set holds and how many of them state a matrix
    figure (dense or sparse) for each precision of ``LOW_PRECISIONS``; architectures stating none are left out."""
    groups: dict[tuple, dict] = {}
    for dev in devices.values():
        key = (dev["vendor"], architecture(dev))
        group = groups.setdefault(key, {"vendor": key[0], "architecture": key[1], "devices": [],
                                        "year": dev.get("launch_year") or 0, "counts": dict.fromkeys(LOW_PRECISIONS, 0)})
        group["devices"].append(dev["id"])
        group["year"] = min(group["year"], dev.get("launch_year") or group["year"])
        matrix = {c["precision"] for c in dev.get("compute", []) if c.get("unit") == "matrix"}
        for precision in LOW_PRECISIONS:
            group["counts"][precision] += precision in matrix
    rows = [g for g in groups.values() if any(g["counts"].values())]
    return sorted(rows, key=lambda g: (g["vendor"].lower(), g["year"], g["architecture"]))


def native_cell(count: int, total: int, lang: str) -> str:
    return "–" if count == 0 else f"✓ {_num(count, lang, 0)}/{_num(total, lang, 0)}"


def native_table(devices: dict, lang: str) -> str:
    t = lambda key: l10n.t(lang, key)  # noqa: E731
    head = [t("quant.col.vendor"), t("quant.col.architecture"), t("quant.col.devices")]
    head += [t(f"precision.{p}") for p in LOW_PRECISIONS]
    body = []
    for row in native_rows(devices):
        n = len(row["devices"])
        body.append([md_text(row["vendor"]), md_text(row["architecture"]), _num(n, lang, 0)]
                    + [native_cell(row["counts"][p], n, lang) for p in LOW_PRECISIONS])
    return _md_table(head, body)


def ppl_rows() -> list[dict]:
    """llama.cpp's perplexity deltas with the calculators' bits per weight of the same file type on the same
    model (Llama-3-8B, the reference model of ``atlas.core.calculators.memory.bits_per_weight``)."""
    return [{"format": name, "bits": bits_per_weight(name), "ppl_delta": delta}
            for name, delta in sorted(LLAMA_CPP_PPL.items(), key=lambda kv: -bits_per_weight(kv[0]))]


def ppl_table(lang: str) -> str:
    t = lambda key: l10n.t(lang, key)  # noqa: E731
    head = [t("quant.col.format"), t("quant.col.bits_reference"), t("quant.col.ppl")]
    body = [[t(f"format.{r['format']}"), _num(r["bits"], lang, 2), "+" + _num(r["ppl_delta"], lang, 4)]
            for r in ppl_rows()]
    return _md_table(head, body)


def measured_case(inference: dict, source: str, **match) -> dict:
    """The one case of ``data/inference/<source>.yaml`` (its defaults applied) whose fields equal ``match``."""
    entry = inference[source]
    cases = [{**entry.get("defaults", {}), **case} for case in entry["cases"]]
    found = [c for c in cases if all(c.get(k) == v for k, v in match.items())]
    if len(found) != 1:
        raise ValueError(f"{source}: {len(found)} cases match {match}")
    return found[0]

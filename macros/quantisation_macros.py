"""Macros for the quantisation page (``docs/guide/quantisation*.md``); the tables are ``atlas.data.quantisation``'s.

- ``weight_format_table(model)`` — bits per weight and weight size of each format, from the calculators.
- ``ggml_block_table()`` — values and bytes per block of the ggml types.
- ``kv_format_table(model, weights, context)`` — bytes per cached element and the KV cache's size.
- ``native_precision_table()`` — which architectures state FP8/FP6/FP4/INT8/INT4 matrix figures.
- ``llama_cpp_ppl_table()`` — llama.cpp's perplexity deltas for Llama-3-8B.
- ``measured(source, field, **match)`` — one measured figure from ``data/inference``.
"""

from __future__ import annotations

from html import escape

from atlas.core import l10n
from atlas.data import quantisation as q
from macros.estimate_macros import calculator_href


def register(env, ctx):
    def link(command, params):
        return calculator_href(command, params, env.page.file.src_uri)

    @env.macro
    def weight_format_table(model=q.REFERENCE_MODEL):
        return q.format_table(ctx.catalog(), ctx.lang(), link, model)

    @env.macro
    def ggml_block_table():
        return q.block_table(ctx.lang())

    @env.macro
    def kv_format_table(model=q.REFERENCE_MODEL, weights="q4_k_m", context=32768, batch=1):
        return q.kv_table(ctx.catalog(), ctx.lang(), link, model, weights, context, batch)

    @env.macro
    def native_precision_table():
        return q.native_table(ctx.dataset.devices, ctx.lang())

    @env.macro
    def llama_cpp_ppl_table():
        return q.ppl_table(ctx.lang())

    @env.macro
    def ppl_delta(weights):
        """llama.cpp's perplexity increase of one file type on Llama-3-8B, e.g. '+0.1754'."""
        return "+" + l10n.format_number(q.LLAMA_CPP_PPL[weights], ctx.lang(), 4, trim=False)

    @env.macro
    def bits(weights, decimals=2):
        """The calculators' bits per weight of a format (GGUF: averaged over llama.cpp's Llama-3-8B)."""
        return l10n.format_number(q.bits_per_weight(weights), ctx.lang(), decimals, trim=False)

    @env.macro
    def measured(source, field, decimals=1, **match):
        """One measured figure (e.g. decode_tokens_per_s) of the single case of ``source`` matching ``match``."""
        case = q.measured_case(ctx.dataset.inference, source, **match)
        return escape(l10n.format_number(case[field], ctx.lang(), decimals))

    @env.macro
    def measured_ratio(source, field, a, b, digits=2, **match):
        """``field`` of the case matching ``match`` and ``a`` divided by the one matching ``match`` and ``b``."""
        top = q.measured_case(ctx.dataset.inference, source, **match, **a)[field]
        bottom = q.measured_case(ctx.dataset.inference, source, **match, **b)[field]
        return escape(l10n.format_number(top / bottom, ctx.lang(), digits))

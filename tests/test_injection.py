"""Hostile strings in the data set never become markup or script, through any macro.

Each macro runs on a data set whose free text (names, notes, source titles,
vendors, …) is one hostile string from ``hostile.CORPUS`` and whose source
URLs are ``javascript:``/``data:`` URLs; validation is skipped, as if a bad
file had slipped through. The output is rendered by Python-Markdown with the
site's own extensions, in a block and inside a sentence, and must hold no
script-capable element, no event handler, no non-http(s) link, and no kind
of element or attribute that the output for harmless text does not have.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from functools import cache
from types import SimpleNamespace

import markdown
import pytest

from atlas.core import l10n
from atlas.data.glossary import GROUPS
from conftest import REPO_ROOT
from hostile import CORPUS, HOSTILE_URLS, hostile_dataset, markup_problems, shape

PLAIN = "Plain text"
ELECTRICITY = "eu-nonhousehold-low-2023h2"  # a stored electricity price (atlas.data.reference_prices)


def macro_calls(dataset) -> dict[str, list[tuple[tuple, dict]]]:
    """How each macro is called here; every registered macro needs an entry (see the test below)."""
    priced = next(
        i for i, d in dataset.devices.items() if d.get("price", {}).get("kind") != "cloud-per-hour" and d.get("price")
    )
    every_column = ["name", "vendor", "kind", "segment", "architecture", "launch_year", "availability", "form_factor",
                    "memory", "memory_type", "bandwidth", "tdp", "interconnect", "software", "price", "sources",
                    "bf16.matrix.dense"]  # fmt: skip
    return {
        "device_table": [((), {}), ((), {"columns": every_column}), ((), {"kind": "gpu", "sort": "name"})],
        "spec": [(("h100-sxm", f), {}) for f in ("bandwidth", "memory_type", "architecture", "bf16.matrix")]
        + [((priced, "price"), {})],
        "device_name": [(("h100-sxm",), {})],
        "label": [(("table.empty",), {})],
        "roofline_chart": [
            ((), {}),
            ((), {"ids": ["h100-sxm", "tpu-v5p"], "markers": [{"label": PLAIN, "intensity": 10}]}),
        ],
        "capacity_bandwidth_chart": [((), {})],
        "generations_chart": [((), {})],
        "efficiency_chart": [(("power",), {}), (("price",), {}), (("cloud_price",), {})],
        "num": [((1234.5,), {})],
        "intensity": [(("h100-sxm",), {})],
        "ratio": [(("h100-sxm", "fp8.matrix", "h100-sxm", "bf16.matrix"), {})],
        "read_time_ms": [(("h100-sxm", 140), {})],
        "tokens_per_s_bound": [(("h100-sxm", 140), {})],
        "compute_time_ms": [(("h100-sxm", "bf16.matrix", 1e15), {})],
        "device_hours": [(("h100-sxm", "bf16.matrix", 1e21, 0.4), {})],
        "wall_days": [(("h100-sxm", "bf16.matrix", 1e23, 0.4, 1024), {})],
        "attainable": [(("h100-sxm", "bf16.matrix", 100), {})],
        "matmul_intensity": [((4096, 4096, 4096, 2), {})],
        "workload_intensity": [((), {"device": "h100-sxm", "workload": "decode", "model": "llama-3.1-8b"})],
        "glossary_list": [((g,), {}) for g in GROUPS],
        "glossary_group": [((g,), {}) for g in GROUPS],
        "download_links": [((), {})],
        "accuracy_summary": [((), {})],
        "accuracy_chart": [(("engine",), {}), (("device_class",), {})],
        "accuracy_breakdown": [(("engine",), {}), (("backend",), {})],
        "accuracy_worst": [((5,), {})],
        "accuracy_sources": [((), {})],
        "accuracy_figure_of": [(("prefill", "within_0.67_1.5"), {}), (("<script>", "x"), {})],
        "accuracy_subset": [(("median_ratio",), {"group": "decode-multi-or-batched", "device_class": "apple",
                                                  "without": {"split": "tensor"}})],
        "accuracy_refused": [((), {})],
        "accuracy_target": [(("prefill",), {}), (("answered",), {})],
        # the buyer's guides (macros/buyer.py): local machines and cost
        "machine_table_html": [((), {})],
        "fit_table_html": [((), {})],
        "measured_table_html": [((), {})],
        "gpu_share_html": [((), {})],
        "fit_context": [((), {})],
        # selected by the structured driver field, which the hostile data set keeps (it replaces every note)
        "measured_run": [(("kyuz0-strix-halo-toolboxes-bench", "prefill_tokens_per_s"),
                          {"driver": driver, "model": "gpt-oss-120b", "context_depth": 32768})
                         for driver in ("RADV", "ROCm 7.2.3")],
        "usd_per_hour": [(("rtx-4090", basis), {"model": "llama-3.1-8b", "weights": "fp8", "engine": "vllm", "context": 2048, "batch": 8}) for basis in ("cloud", "purchase")],
        "usd_per_million": [(("rtx-4090", basis), {"model": "llama-3.1-8b", "weights": "fp8", "engine": "vllm", "context": 2048, "batch": 8}) for basis in ("cloud", "purchase")],
        "purchase_usd": [(("rtx-4090",), {})],
        "cost_table_html": [((), {"devices": ["rtx-4090", "h100-pcie"], "batches": [1, 8],
                                   "model": "llama-3.1-8b", "weights": "fp8", "engine": "vllm", "context": 2048})],
        "amortised_per_year": [(("rtx-4090",), {})],
        "amortisation_years": [((), {})],
        "cloud_providers": [(("rtx-4090",), {})],
        "purchase_kind": [(("rtx-4090",), {})],
        "purchase_as_of": [(("rtx-4090",), {})],
        "break_even": [(("rtx-4090",), {"model": "llama-3.1-8b", "weights": "fp8", "engine": "vllm", "context": 2048, "batch": 8})],
        "cost_link": [(("rtx-4090", "purchase"), {"text": PLAIN, **{"model": "llama-3.1-8b", "weights": "fp8", "engine": "vllm", "context": 2048, "batch": 8}})],
        "accuracy_count": [(("cases",), {}), (("sources",), {}), (("refused",), {}), (("fitted",), {})],
        # the systems pages (macros/systems.py): interconnects, reading benchmarks
        "link_table_html": [((["h100-sxm", "mi300x", "tpu-v5p", "rtx-4090"],), {})],
        # the edge and CPU pages (macros/edge_cpu.py)
        "edge_table_html": [((), {})],
        "cpu_table_html": [((), {})],
        "joules_per_token": [(("ryzen-9-9950x",), {"model": "llama-3.1-8b", "weights": "q4_k_m", "engine": "llama.cpp", "context": 4096})],
        "fitted_link_latency": [(("allreduce", link), {}) for link in ("nvlink", "pcie", "xgmi")],
        "link_gb_s": [(("b200",), {}), (("b200", 72), {})],
        "measured_case_value": [(("rocm-blog-mlperf-inference-4-1-mi300x", 0, "decode_tokens_per_s", 0, 8), {})],
        "figure_ratio": [(("b200", "fp8.matrix.dense", "h100-sxm", "fp8.matrix.dense"), {})],
        "memory_breakdown_chart": [
            (
                ([{"model": "llama-3.1-70b", "weights": "q4_k_m", "context": 8192}, {"model": "mistral-7b"}],),
                {"devices": ["h100-sxm", "rtx-4090"]},
            ),
        ],
        "measurements_table": [((demo,), {}) for demo in ("bandwidth", "matmul", "intensity", "fused")],
        "kernel_figure": [(("h200-sxm-matmul-cuda-bf16-8192-2026-12-04", what), {}) for what in ("value", "percent", "peak", "ms")]
        + [(("h200-sxm-intensity-jax-fp32-268435456-2026-12-04", "ms"), {"fmas": 64}),
           (("h200-sxm-fused-triton-softmax-32768-8192-fp32-2026-12-04", "speedup"), {})],
        "roofline_table": [
            ((["h100-sxm", "tpu-v5p"],), {}),
            ((["h100-sxm"],), {"precision": "fp32", "demo": "intensity"}),
        ],
        "roofline_workloads": [(("h100-sxm",), {})],
        "systolic_table": [((), {})],
        "weight_format_table": [((), {})],
        "device_filters": [((), {}), ((), {"price": True})],
        "weight_bits": [(("q4_k_m",), {})],
        "size_ratio": [(("bf16", "q4_k_m"), {})],
        "ggml_block_table": [((), {})],
        "kv_format_table": [((), {})],
        "native_precision_table": [((), {})],
        "llama_cpp_ppl_table": [((), {})],
        "ppl_delta": [(("q4_k_m",), {})],
        "bits": [(("q4_k_m",), {})],
        "measured": [(("xiongjiedai-gpu-benchmarks-llama3", "decode_tokens_per_s"),
                      {"device": "rtx-4090", "model": "llama-3-8b", "num_devices": 1, "weights": "q4_k_m",
                       "generated_tokens": 512})],
        "measured_ratio": [(("xiongjiedai-gpu-benchmarks-llama3", "decode_tokens_per_s", {"weights": "q4_k_m"},
                            {"weights": "fp16"}),
                           {"device": "rtx-4090", "model": "llama-3-8b", "num_devices": 1, "generated_tokens": 512})],
        "systolic_trace": [((), {})],
        "calculator": [
            (("vram",), {"model": "llama-3.1-8b"}),
            (("speed",), {"model": "llama-3.1-8b", "device": "h100-sxm", "baseline": "a100-sxm-80gb"}),
        ],
        "calc_link": [(("vram",), {"model": "llama-3.1-70b", "weights": "q4_k_m"})],
        "chips_for_model": [(("groq-lpu", "llama-3.1-8b", "int8"), {})],
        "devices_needed": [(("h100-sxm",), {"model": "llama-3.1-70b"})],
        "vram_total": [((), {"model": "llama-3.1-70b"})],
        "tokens_per_s": [(("h100-sxm",), {"model": "llama-3.1-8b"})],
        "speedup": [(("h100-sxm", "a100-sxm-80gb"), {"model": "llama-3.1-8b"})],
        "electricity_price": [((ELECTRICITY,), {})],
        "energy_per_year": [(("h100-sxm",), {})],
        "energy_cost_per_year": [(("h100-sxm", ELECTRICITY), {})],
        "hours_per_year": [((), {})],
        "price_table": [((), {})],
        "roofline_demo": [((), {})],
        "systolic_demo": [((), {})],
    }


class FakeEnv:
    """What a macro module sees of mkdocs-macros: ``env.macro``, the page and the configuration."""

    def __init__(self, lang: str):
        self.macros = {}
        self.page = SimpleNamespace(file=SimpleNamespace(src_uri="compare.md"), url="compare/", meta={})
        self.conf = {"theme": {"language": lang}, "docs_dir": str(REPO_ROOT / "docs")}
        self.variables = {}

    def macro(self, fn=None, name=None):
        if fn is None:
            return lambda f: self.macro(f, name)
        self.macros[name or fn.__name__] = fn
        return fn


def registered_macros(dataset, lang: str) -> dict:
    from macros import main as macros_main
    from macros.macro_context import Context

    env = FakeEnv(lang)
    ctx = Context(dataset=dataset, lang=lambda: lang)
    for area in macros_main.AREAS:
        area.register(env, ctx)
    return env.macros


@cache
def site_markdown():
    """Python-Markdown with the extensions and settings of mkdocs.yml."""
    from mkdocs.config import load_config

    config = load_config(str(REPO_ROOT / "mkdocs.yml"))
    return config["markdown_extensions"], config["mdx_configs"]


@cache
def site_markdown_instance() -> markdown.Markdown:
    extensions, configs = site_markdown()
    return markdown.Markdown(extensions=extensions, extension_configs=configs)


@functools.lru_cache(maxsize=4096)
def render(text: str) -> str:
    """``text`` as the site's Markdown renders it. Kept per text: a macro whose output the hostile string
    does not change is rendered once, not once per string. ``reset()`` clears the state a conversion leaves
    (abbreviations, footnotes, references), as a fresh instance would have it."""
    md = site_markdown_instance()
    md.reset()
    return md.convert(text)


def test_every_macro_has_a_hostile_call(dataset):
    missing = set(registered_macros(dataset, "en")) - set(macro_calls(dataset))
    assert not missing, f"add these macros to macro_calls() in {__file__}: {sorted(missing)}"


# Macros whose output stands on its own lines in a page (tables, charts, lists); the others sit in a sentence.
BLOCK_MACROS = {
    "calculator",
    "edge_table_html",
    "cpu_table_html",
    "link_table_html",
    "machine_table_html",
    "fit_table_html",
    "measured_table_html",
    "gpu_share_html",
    "cost_table_html",
    "roofline_demo",
    "systolic_demo",
    "price_table",
    "device_table",
    "device_filters",
    "glossary_list",
    "download_links",
    "measurements_table",
    "roofline_table",
    "roofline_workloads",
    "systolic_table",
    "systolic_trace",
}


def is_block(name: str) -> bool:
    return name in BLOCK_MACROS or name.endswith("_chart")


def outputs(dataset, lang: str) -> dict[str, str]:
    """Every macro call's output rendered by Markdown where pages put it, by 'macro#call'."""
    macros = registered_macros(dataset, lang)
    out = {}
    for name, calls in macro_calls(dataset).items():
        for i, (args, kwargs) in enumerate(calls):
            text = str(macros[name](*args, **kwargs))
            out[f"{name}#{i}"] = render(
                f"Before:\n\n{text}\n\nAfter.\n" if is_block(name) else f"Before {text} after.\n"
            )
    return out


_PLAIN: dict[str, dict[str, tuple[Counter, set]]] = {}


def plain_outputs(dataset, lang: str) -> dict[str, tuple[Counter, set]]:
    """For each macro call, what its output for harmless text holds: its markup problems (counted) and its
    shape (the kinds of element and attribute). Made once per language and test process, from the session's
    data set (which no test changes: ``hostile_dataset`` copies it)."""
    if lang not in _PLAIN:
        _PLAIN[lang] = {
            call: (Counter(markup_problems(html)), set(shape(html)))
            for call, html in outputs(hostile_dataset(dataset, PLAIN), lang).items()
        }
    return _PLAIN[lang]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("text", CORPUS, ids=lambda s: re.sub(r"\W+", "-", s[:24]).strip("-") or "blank")
def test_hostile_text_stays_text(dataset, text, lang):
    hostile = outputs(hostile_dataset(dataset, text), lang)
    plain = plain_outputs(dataset, lang)
    for call, html in hostile.items():
        plain_problems, plain_shape = plain[call]
        # No script-capable element, handler or URL beyond what harmless text gives (the calculator has its module).
        added = Counter(markup_problems(html)) - plain_problems
        assert not added, (call, added)
        # No kind of element or attribute that harmless text does not give (charts place labels by their
        # length, so how many of each may differ).
        assert set(shape(html)) <= plain_shape, (call, set(shape(html)) - plain_shape)


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_only_http_links_become_links(dataset, url):
    hostile = outputs(hostile_dataset(dataset, PLAIN, url), "en")
    plain = plain_outputs(dataset, "en")
    for call, html in hostile.items():
        added = Counter(markup_problems(html)) - plain[call][0]
        assert not added, (call, added)

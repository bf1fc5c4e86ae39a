"""The glossary: which terms exist, how they are grouped, where the site
explains each, and which ones get a tooltip wherever they appear.

The words themselves (term and one-line definition) are translations and
live in ``atlas/core/l10n/<lang>/glossary.json`` as ``glossary.<slug>.term`` and
``glossary.<slug>.def``. The glossary page and the tooltips are both built
from that one table, so a definition is written once per language.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from atlas.core import l10n


@dataclass(frozen=True)
class Entry:
    slug: str  # key in the translation tables and HTML id on the glossary page
    group: str  # one of GROUPS
    link: str  # page (relative to docs/) and anchor where the site explains it
    tooltip: bool = False  # the term is an abbreviation: show its definition on hover everywhere

    @property
    def page(self) -> str:
        return self.link.partition("#")[0]


GROUPS = ("basics", "hardware", "performance", "inference")

# Page -> translation key of the page's short name, used in "explained in …" links.
PAGES = {
    "index.md": "glossary.page.home",
    "why-accelerators.md": "glossary.page.why",
    "hardware/gpus.md": "glossary.page.gpus",
    "hardware/tpus.md": "glossary.page.tpus",
    "hardware/asics.md": "glossary.page.asics",
    "hardware/fpgas.md": "glossary.page.fpgas",
    "guide/decide.md": "glossary.page.decide",
    "guide/use-cases.md": "glossary.page.use_cases",
    "compare.md": "glossary.page.compare",
    "kernels/intensity.md": "glossary.page.kernel_intensity",
    "kernels/roofline.md": "glossary.page.kernel_roofline",
}

ENTRIES: tuple[Entry, ...] = (
    # Basics
    Entry("deep-learning", "basics", "why-accelerators.md#matmul"),
    Entry("parameter", "basics", "why-accelerators.md#matmul"),
    Entry("training", "basics", "guide/decide.md#training-vs-inference"),
    Entry("fine-tuning", "basics", "guide/use-cases.md#training"),
    Entry("inference", "basics", "why-accelerators.md#memory-bound"),
    Entry("deployment", "basics", "guide/use-cases.md#serving"),
    # Hardware
    Entry("cpu", "hardware", "why-accelerators.md#one-picture"),
    Entry("gpu", "hardware", "hardware/gpus.md"),
    Entry("tpu", "hardware", "hardware/tpus.md"),
    Entry("asic", "hardware", "hardware/asics.md", tooltip=True),
    Entry("fpga", "hardware", "hardware/fpgas.md", tooltip=True),
    Entry("npu", "hardware", "hardware/asics.md#npu", tooltip=True),
    Entry("sm", "hardware", "hardware/gpus.md#sm", tooltip=True),
    Entry("cuda-core", "hardware", "hardware/gpus.md#cuda-vs-tensor"),
    Entry("tensor-core", "hardware", "hardware/gpus.md#cuda-vs-tensor"),
    Entry("systolic-array", "hardware", "hardware/tpus.md#systolic-array"),
    Entry("lpu", "hardware", "hardware/asics.md#groq"),
    Entry("mxu", "hardware", "hardware/tpus.md#systolic-array", tooltip=True),
    Entry("hbm", "hardware", "hardware/gpus.md#memory", tooltip=True),
    Entry("gddr", "hardware", "hardware/gpus.md#memory", tooltip=True),
    Entry("sram", "hardware", "hardware/tpus.md#memory", tooltip=True),
    Entry("vmem", "hardware", "hardware/tpus.md#memory", tooltip=True),
    Entry("nvlink", "hardware", "hardware/gpus.md#interconnect"),
    Entry("pcie", "hardware", "hardware/gpus.md#interconnect", tooltip=True),
    Entry("ici", "hardware", "hardware/tpus.md#pods", tooltip=True),
    Entry("tdp", "hardware", "guide/decide.md#operation", tooltip=True),
    Entry("cuda", "hardware", "hardware/gpus.md#software"),
    Entry("rocm", "hardware", "hardware/gpus.md#software", tooltip=True),
    Entry("xla", "hardware", "hardware/tpus.md#software", tooltip=True),
    # Performance
    Entry("flops", "performance", "why-accelerators.md#matmul", tooltip=True),
    Entry("tflops", "performance", "why-accelerators.md#matmul"),
    Entry("precision", "performance", "why-accelerators.md#number-formats"),
    Entry("bf16", "performance", "why-accelerators.md#number-formats", tooltip=True),
    Entry("fp8", "performance", "why-accelerators.md#number-formats", tooltip=True),
    Entry("int8", "performance", "why-accelerators.md#number-formats", tooltip=True),
    Entry("dense-sparse", "performance", "hardware/gpus.md#sparsity"),
    Entry("memory-bandwidth", "performance", "why-accelerators.md#memory-bound"),
    Entry("arithmetic-intensity", "performance", "kernels/intensity.md"),
    Entry("critical-intensity", "performance", "why-accelerators.md#memory-bound"),
    Entry("roofline", "performance", "kernels/roofline.md"),
    Entry("mfu", "performance", "hardware/asics.md#utilisation", tooltip=True),
    # Inference
    Entry("inference-optimisation", "inference", "why-accelerators.md#inference-optimisation"),
    Entry("prefill-decode", "inference", "guide/decide.md#training-vs-inference"),
    Entry("kv-cache", "inference", "why-accelerators.md#inference-optimisation", tooltip=True),
    Entry("batching", "inference", "why-accelerators.md#inference-optimisation"),
    Entry("speculative-decoding", "inference", "why-accelerators.md#inference-optimisation"),
    Entry("quantisation", "inference", "why-accelerators.md#number-formats"),
    Entry("lora", "inference", "guide/use-cases.md#training"),
)


def entries(group: str | None = None) -> list[Entry]:
    """Entries of ``group`` (all when None) in the order above."""
    if group is not None and group not in GROUPS:
        raise ValueError(f"unknown glossary group {group!r}; expected one of {', '.join(GROUPS)}")
    return [e for e in ENTRIES if group is None or e.group == group]


def term(entry: Entry, lang: str) -> str:
    return l10n.t(lang, f"glossary.{entry.slug}.term")


def definition(entry: Entry, lang: str) -> str:
    return l10n.t(lang, f"glossary.{entry.slug}.def")


def abbreviations(lang: str) -> dict[str, str]:
    """{term: definition} of the tooltip terms in ``lang`` (Markdown ``abbr`` input)."""
    return {term(e, lang): definition(e, lang) for e in ENTRIES if e.tooltip}


def abbreviation_markdown(lang: str) -> str:
    """Abbreviation definitions (``*[HBM]: …``) to append to a page in ``lang``."""
    lines = []
    for word, text in abbreviations(lang).items():
        text = " ".join(text.split()).replace("]", ")")
        lines.append(f"*[{word}]: {text}")
    return "\n".join(lines)


def _md_escape(text: str) -> str:
    """Plain text made safe for Markdown: HTML-escaped, emphasis and link
    characters backslash-escaped."""
    text = html.escape(text, quote=False)
    for ch in "\\`*_[]":
        text = text.replace(ch, "\\" + ch)
    return text


def glossary_markdown(group: str, lang: str, here: str = "glossary.md") -> str:
    """The entries of ``group`` as a Markdown definition list, sorted by term
    in ``lang``, each with an HTML id and a link to where the site explains it.
    ``here`` is the page the list appears on (links are made relative to it)."""
    depth = here.count("/")
    prefix = "../" * depth
    blocks = []
    for entry in sorted(entries(group), key=lambda e: term(e, lang).casefold()):
        page_name = l10n.t(lang, PAGES[entry.page])
        more = l10n.t(lang, "glossary.more", page=page_name)
        blocks.append(
            f'<span id="{entry.slug}"></span>**{_md_escape(term(entry, lang))}**\n'
            f":   {_md_escape(definition(entry, lang))} [{_md_escape(more)}]({prefix}{entry.link})\n"
        )
    return "\n".join(blocks)

"""Tiny HTML helpers: every text and attribute value is escaped here, once."""

from __future__ import annotations

import re
from html import escape
from string import Formatter

# A command-line option with its value in a sentence ("--gpu-layers 13", "-ngl 99"): a hyphen that starts a word
# after a space or bracket, letters, more hyphenated parts, an optional number; with the bracket around it and
# the punctuation after it, which must not be left alone at the end or start of a line. Words with a hyphen
# inside ("gpt-oss-120b", "MoE-Modelle") and negative numbers are not options.
_OPTION = re.compile(r"(?<![\w-])(\(?)(--?[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?: \d+)?)(\)?[,.;:]?)")


def attrs(**values) -> str:
    """`` name="value"`` pairs; ``data_result`` becomes ``data-result``, None is left out, True is a bare name."""
    out = []
    for name, value in values.items():
        if value is None or value is False:
            continue
        name = name.rstrip("_").replace("_", "-")
        out.append(f" {name}" if value is True else f' {name}="{escape(str(value), quote=True)}"')
    return "".join(out)


def el(tag: str, content: str = "", **values) -> str:
    """``<tag attrs>content</tag>``; ``content`` is HTML already (escape text with ``text``)."""
    return f"<{tag}{attrs(**values)}>{content}</{tag}>"


def void(tag: str, **values) -> str:
    """An element without content or end tag: ``<input attrs>``."""
    return f"<{tag}{attrs(**values)}>"


def text(value) -> str:
    """Escape ``value`` for use as element content."""
    return escape(str(value), quote=False)


def prose(value) -> str:
    """``text(value)`` with each command-line option in it as ``<code class="atlas-option">`` (with its bracket
    and punctuation in ``<span class="atlas-option-run">``): kept on one line (a phone broke "--gpu-layers" at its
    hyphens; the stylesheet says nowrap) and copied as typed."""
    def option(match: re.Match) -> str:
        before, name, after = match.groups()
        code = f'<code class="atlas-option">{name}</code>'
        return f'<span class="atlas-option-run">{before}{code}{after}</span>' if before or after else code

    return _OPTION.sub(option, text(value))


def fill(template: str, **parts: str) -> str:
    """A translated sentence as HTML: the text of ``template`` escaped, each ``{name}`` replaced by the HTML
    ``parts[name]`` (an element holding a result value, say). A placeholder without a part raises KeyError."""
    out = []
    for literal, name, _spec, _conv in Formatter().parse(template):
        out.append(text(literal))
        if name is not None:
            out.append(parts[name])
    return "".join(out)

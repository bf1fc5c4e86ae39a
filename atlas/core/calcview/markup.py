"""Tiny HTML helpers: every text and attribute value is escaped here, once."""

from __future__ import annotations

from html import escape
from string import Formatter


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


def fill(template: str, **parts: str) -> str:
    """A translated sentence as HTML: the text of ``template`` escaped, each ``{name}`` replaced by the HTML
    ``parts[name]`` (an element holding a result value, say). A placeholder without a part raises KeyError."""
    out = []
    for literal, name, _spec, _conv in Formatter().parse(template):
        out.append(text(literal))
        if name is not None:
            out.append(parts[name])
    return "".join(out)

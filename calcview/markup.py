"""Tiny HTML helpers: every text and attribute value is escaped here, once."""

from __future__ import annotations

from html import escape


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


def text(value) -> str:
    """Escape ``value`` for use as element content."""
    return escape(str(value), quote=False)

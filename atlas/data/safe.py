"""Strings from the data set on their way into a page: links and running text.

Validation already requires ``https://`` source URLs; pages check again where
they write an ``href``, so a value that skipped validation can never become a
``javascript:`` or ``data:`` link.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

LINK_SCHEMES = ("http", "https")


def http_url(url) -> str | None:
    """``url`` if it is an absolute http(s) URL with a host and no whitespace or quotes, else None."""
    if not isinstance(url, str) or any(c.isspace() or c in "\"'<>`" for c in url):
        return None
    parts = urlsplit(url)
    return url if parts.scheme.lower() in LINK_SCHEMES and parts.netloc else None


# Characters that Markdown (and its extensions: attr_list braces, tables, abbreviations) would read as syntax.
_MARKDOWN_SYNTAX = {ch: f"&#{ord(ch)};" for ch in "\\`*_[]{}!|~#^"}
_LIST_START = re.compile(r"^(?:[-+]|\d+[.)](?=\s))")
_BIDI_CONTROLS = dict.fromkeys(map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"))


def inline_text(value) -> str:
    """A string from the data set, ready to sit in running Markdown text as plain text.

    HTML-escaped; Markdown syntax characters written as character references
    (a browser shows them, Markdown ignores them); line breaks and tabs made
    spaces, so the string cannot start a block (a heading, a list, an
    admonition); bidirectional overrides removed, so it cannot reorder the
    sentence around it.
    """
    text = html.escape(str(value)).translate(_BIDI_CONTROLS)
    text = " ".join(text.split("\n")).replace("\r", " ").replace("\t", " ")
    text = "".join(_MARKDOWN_SYNTAX.get(ch, ch) for ch in text)
    if _LIST_START.match(text):  # at the start of a line it would open a list
        text = f"&#{ord(text[0])};" + text[1:]
    return text

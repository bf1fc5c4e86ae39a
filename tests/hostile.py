"""Hostile strings, and data sets full of them that skip validation.

Validation refuses markup in data files (``atlas.data.checks.common``); these
helpers build data sets that never went through it, so the tests can show the
second line of defence: every page, macro and calculator escapes what it shows.
"""

from __future__ import annotations

import copy
import functools
import html.parser
import re
from collections import Counter

from atlas.data.dataset import Dataset

# Each tries a different way out of a text node or an attribute value.
CORPUS = [
    '<script>window.__pwned="script"</script>',
    '"><img src=x onerror="window.__pwned=\'img\'">',
    "' onmouseover='window.__pwned=1' x='",
    "javascript:window.__pwned=1",
    "\u202eevil\u202c reversed \u2066isolate\u2069",
    "{{ 7 * 7 }} {% raw %}{{ config }}{% endraw %}",
    "[a link](javascript:window.__pwned=1) ![img](https://tracker.invalid/p.gif)",
    "<https://tracker.invalid/autolink> *emph* **strong** `code`",
    "</table></svg></figure><script>window.__pwned=2</script>",
    "&lt;script&gt; &amp; &#x3C;b&#x3E;",
    "<svg onload=window.__pwned=3><!--",
    "${window.__pwned=4} `${x}`",
    "%3Cscript%3Ewindow.__pwned=5%3C/script%3E",
    '!!! danger "x"\n    indented\n\n# heading\n\n| a | b |\n|---|---|',
    "*[HBM]: <b>abbr</b>\n[^1]: footnote",
    "A" * 5000,
    "line\nbreak\r\n\ttab",
]

# Links: only http(s) may ever become an href.
HOSTILE_URLS = [
    "javascript:window.__pwned=6",
    " JaVaScRiPt:window.__pwned=7",
    "data:text/html,<script>window.__pwned=8</script>",
    'https://example.invalid/"onmouseover="window.__pwned=9',
    "vbscript:msgbox(1)",
]

# Keys whose string values are free text written by a contributor.
FREE_TEXT = {"name", "short_name", "vendor", "architecture", "form_factor", "notes", "note", "title", "publisher",
             "device_name", "contributor", "command"}


def _poison(value, text: str, url: str):
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in FREE_TEXT and isinstance(item, str):
                out[key] = text
            elif key == "url" and isinstance(item, str):
                out[key] = url
            elif key == "software" and isinstance(item, list):
                out[key] = [text, text + " 2"]
            else:
                out[key] = _poison(item, text, url)
        return out
    if isinstance(value, list):
        return [_poison(item, text, url) for item in value]
    return value


def hostile_dataset(dataset: Dataset, text: str, url: str = "https://example.org/plain") -> Dataset:
    """A copy of ``dataset`` with every free-text string set to ``text`` and every source URL to ``url``."""
    out = copy.copy(dataset)
    out.entries = {
        name: {entry_id: _poison(entry, text, url) for entry_id, entry in entries.items()}
        for name, entries in dataset.entries.items()
    }
    return out


# Elements and attributes no string from the data set may ever create.
FORBIDDEN_TAGS = {
    "script",
    "img",
    "iframe",
    "object",
    "embed",
    "style",
    "link",
    "meta",
    "base",
    "form",
    "foreignobject",
}
URL_ATTRIBUTES = {"href", "src", "xlink:href", "action", "formaction", "srcset", "poster"}
SCHEME = re.compile(r"^([a-z][a-z0-9+.-]*):", re.I)  # a relative URL has none


class Elements(html.parser.HTMLParser):
    """Every start tag of a fragment with its attributes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    handle_startendtag = handle_starttag


@functools.lru_cache(maxsize=4096)
def elements(fragment: str) -> tuple[tuple[str, tuple], ...]:
    """The start tags of ``fragment`` with their attributes (kept per fragment: the tests ask for the same
    harmless output once per hostile string)."""
    parser = Elements()
    parser.feed(fragment)
    parser.close()
    return tuple((tag, tuple(attrs)) for tag, attrs in parser.tags)


def markup_problems(fragment: str) -> list[str]:
    """Script-capable elements, event-handler attributes and non-http(s) URLs in an HTML fragment."""
    problems = []
    for tag, attrs in elements(fragment):
        if tag in FORBIDDEN_TAGS:
            problems.append(f"<{tag}> element")
        for name, value in attrs:
            if name.startswith("on"):
                problems.append(f"<{tag} {name}=...> event handler")
            if name in URL_ATTRIBUTES and value is not None:
                scheme = SCHEME.match(re.sub(r"[\x00-\x20]", "", value))
                if scheme and scheme.group(1).lower() not in ("http", "https"):
                    problems.append(f"<{tag} {name}={value[:60]!r}> unsafe URL")
    return problems


def shape(fragment: str) -> Counter:
    """The element and attribute names of a fragment, counted: what escaping must leave unchanged."""
    return Counter((tag, tuple(sorted(name for name, _ in attrs))) for tag, attrs in elements(fragment))


def mixed_hostile_dataset(dataset: Dataset) -> Dataset:
    """A copy of ``dataset`` whose n-th entry of each collection carries ``CORPUS[n]`` and ``HOSTILE_URLS[n]``
    (cycling), so one build meets every hostile string somewhere."""
    out = copy.copy(dataset)
    out.entries = {
        name: {
            entry_id: _poison(entry, CORPUS[i % len(CORPUS)], HOSTILE_URLS[i % len(HOSTILE_URLS)])
            for i, (entry_id, entry) in enumerate(entries.items())
        }
        for name, entries in dataset.entries.items()
    }
    return out

"""Extract the language-independent structure of a built page, for parity tests.

Two translations of a page must have the same skeleton: the same sequence of
heading levels, the same tables (and the same device rows in them), code
blocks, admonitions, content tabs, figures and SVG charts. Words may differ;
the skeleton may not.
"""

from __future__ import annotations

from html.parser import HTMLParser


class _Skeleton(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.items: list[str] = []
        self.in_article = 0
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "article":
            self.in_article += 1
        if not self.in_article:
            return
        cls = a.get("class", "") or ""
        if tag in ("h1", "h2", "h3", "h4"):
            self.items.append(tag)
        elif tag == "table":
            self.items.append("table")
        elif tag == "tr" and "data-device" in a:
            self.items.append(f"row:{a['data-device']}")
        elif tag == "pre":
            self.items.append("code")
        elif tag in ("div", "details") and ("admonition" in cls.split() or tag == "details"):
            kind = [c for c in cls.split() if c not in ("admonition",)]
            self.items.append(f"{tag}.admonition:{' '.join(sorted(kind))}")
        elif tag == "div" and "tabbed-set" in cls.split():
            self.items.append("tabs")
        elif tag == "svg" and "data-chart" in a:
            self.items.append(f"chart:{a['data-chart']}")
        elif tag == "img":
            self.items.append("img")
        elif "data-result" in a:
            self.items.append(f"result:{a['data-result']}")
        elif tag == "form":
            self.items.append("form")

    def handle_endtag(self, tag):
        if tag == "article" and self.in_article:
            self.in_article -= 1


def skeleton(html: str) -> list[str]:
    """The ordered structural items of the page's main article."""
    parser = _Skeleton()
    parser.feed(html)
    return parser.items

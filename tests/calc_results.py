"""Read the ``data-result`` elements of a calculator result and look their paths up in CLI JSON."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def lookup(result: dict, path: str):
    """``lookup(r, "fits[0].count")`` -> ``r["fits"][0]["count"]``."""
    value = result
    for name, index in _STEP.findall(path):
        value = value[int(index)] if index else value[name]
    return value


class _Results(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[list] = []
        self.open: list[tuple[str, list]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "data-result" in a:
            entry = [a["data-result"], json.loads(a["data-value"]), ""]
            self.found.append(entry)
            self.open.append((tag, entry))

    def handle_endtag(self, tag):
        if self.open and self.open[-1][0] == tag:
            self.open.pop()

    def handle_data(self, data):
        for _, entry in self.open:
            entry[2] += data


def result_elements(html: str) -> list[tuple[str, object, str]]:
    """(path, raw value, shown text) of every ``data-result`` element in ``html``."""
    parser = _Results()
    parser.feed(html)
    return [tuple(e) for e in parser.found]

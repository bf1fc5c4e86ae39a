"""Checks shared by the tests of the hand-written content pages (buyer, systems, edge/CPU pages): both languages
carry the same sections and macro calls, the sources are cited, and every calculator link is one the calculators
accept."""

from __future__ import annotations

import html as htmllib
import re
from urllib.parse import parse_qs, urlsplit

from test_serving_page import MACRO, anchors

from atlas.core.calculators.api import handle
from atlas.core.calculators.inputs import BY_NAME, parse

_LINK_TEXT = re.compile(r'text="[^"]*",\s*')


def assert_twin_sources(en: str, de: str, sections: list[str]) -> None:
    """The English and German Markdown: macros on, the same section anchors (``sections``, in order) and the same
    macro calls apart from link texts."""
    for markdown in (en, de):
        assert markdown.startswith("---\nrender_macros: true\n")
    assert anchors(en) == anchors(de)
    assert [a for _, a in anchors(en)] == sections
    assert [_LINK_TEXT.sub("", m.group(0)) for m in MACRO.finditer(en)] == \
        [_LINK_TEXT.sub("", m.group(0)) for m in MACRO.finditer(de)]


def sources_section(markdown: str) -> str:
    """The page's last section, where it lists its sources."""
    return markdown[markdown.rindex("\n## "):]


def href_params(href: str) -> tuple[str, dict] | None:
    """(calculator, params) of a link into the calculators, None for any other link."""
    parts = urlsplit(htmllib.unescape(href))
    match = re.search(r"(?:^|/)calculators/(vram|speed)(?:\.md|/)$", parts.path)
    if not match or not parts.query:
        return None
    return match.group(1), {k: v[-1] for k, v in parse_qs(parts.query).items()}


def html_link(command: str, params: dict) -> str:
    """The link the macros' HTML tables carry, relative to the built page of docs/guide/page.md."""
    from macros.estimate_macros import calculator_html_href

    return calculator_html_href(command, params, "guide/page.md")


def assert_accepted(command: str, params: dict, catalog, lang: str = "en") -> None:
    """The calculators' own parser and ``handle`` accept the link's parameters."""
    params = {k: str(v) for k, v in params.items()}
    assert set(params) <= set(BY_NAME), params
    parse(command, params, catalog)  # raises ValidationError on a bad link
    assert handle({"command": command, "params": params, "lang": lang}, catalog)["ok"], params

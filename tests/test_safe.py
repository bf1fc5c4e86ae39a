"""atlas.data.safe: what may become a link, and data text in running Markdown."""

import markdown
import pytest

from atlas.data.safe import http_url, inline_text


@pytest.mark.parametrize(
    "url, ok",
    [
        ("https://www.nvidia.com/en-us/data-center/h100/", True),
        ("http://example.org/a?b=1#c", True),
        ("javascript:alert(1)", False),
        (" JaVaScRiPt:alert(1)", False),
        ("data:text/html,<script>", False),
        ('https://x.org/"onmouseover="x', False),
        ("//evil.invalid/x", False),
        ("/relative/path", False),
        ("https:///nohost", False),
    ],
)
def test_only_absolute_http_urls_pass(url, ok):
    assert (http_url(url) == url) is ok


def test_non_strings_are_no_url():
    assert http_url(None) is None and http_url(["https://x.org"]) is None


@pytest.mark.parametrize(
    "text",
    ["[x](javascript:alert(1))", "![i](https://t.invalid/p.gif)", "*em* **st** `code` ~~s~~", "# heading",
     "- item", "1. item", "!!! danger", "*[HBM]: x", "{: .cls onclick=x }", "<b>bold</b>", "a | b"],
)  # fmt: skip
def test_markdown_syntax_in_data_stays_text(text):
    html = markdown.markdown(inline_text(text), extensions=["attr_list", "abbr", "admonition", "tables"])
    assert html.count("<") == 2, html  # only the paragraph Markdown wraps it in
    assert html.startswith("<p>")


def test_reads_the_same_in_a_browser():
    import html as html_module

    assert html_module.unescape(inline_text("A [b] *c* #1 \u202eR\u202c")) == "A [b] *c* #1 R"
    assert inline_text("NVIDIA H100 SXM5 80 GB") == "NVIDIA H100 SXM5 80 GB"
    assert inline_text("line\nbreak") == "line break"

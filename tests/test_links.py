"""Broken internal links and anchors stop the strict build, in either language (mkdocs.yml ``validation``);
the crawl (test_crawl.py) checks the links in the built pages, including those written by macros."""

from __future__ import annotations

import pytest

from conftest import copy_repo_for_build, run_mkdocs_build

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    "page, link, message",
    [
        ("glossary.md", "[x](no-such-page.md)", "no-such-page.md"),
        ("glossary.de.md", "[x](no-such-page.md)", "no-such-page.md"),
        ("glossary.md", "[x](compare.md#no-such-anchor)", "no-such-anchor"),
        ("glossary.de.md", "[x](compare.md#kein-solcher-anker)", "kein-solcher-anker"),
    ],
)
def test_broken_internal_link_fails_the_build(tmp_path, page, link, message):
    repo = copy_repo_for_build(tmp_path / "repo")
    md = repo / "docs" / page
    md.write_text(md.read_text(encoding="utf-8") + f"\n\nSee {link}.\n", encoding="utf-8")
    result = run_mkdocs_build(tmp_path / "site", config=repo / "mkdocs.yml", cwd=repo)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-2000:]
    assert message in output and page.split(".")[0] in output

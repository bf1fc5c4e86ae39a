"""Broken internal links and anchors stop the strict build, in either language (mkdocs.yml ``validation``);
the crawl (test_crawl.py) checks the links in the built pages, including those written by macros."""

from __future__ import annotations

import pytest

from conftest import copy_repo_for_build, run_mkdocs_build

pytestmark = pytest.mark.slow


CASES = [
    ("glossary.md", "[x](no-such-page.md)", "no-such-page.md"),
    ("glossary.de.md", "[x](kein-solches-dokument.md)", "kein-solches-dokument.md"),
    ("glossary.md", "[x](compare.md#no-such-anchor)", "no-such-anchor"),
    ("glossary.de.md", "[x](compare.md#kein-solcher-anker)", "kein-solcher-anker"),
]


@pytest.fixture(scope="module")
def broken_build(tmp_path_factory):
    """One strict build of a copy with every broken link of CASES (each a different target, so each case finds
    its own message): MkDocs reports every warning, then aborts."""
    tmp = tmp_path_factory.mktemp("links")
    repo = copy_repo_for_build(tmp / "repo")
    for page, link, _ in CASES:
        md = repo / "docs" / page
        md.write_text(md.read_text(encoding="utf-8") + f"\n\nSee {link}.\n", encoding="utf-8")
    result = run_mkdocs_build(tmp / "site", config=repo / "mkdocs.yml", cwd=repo)
    return result.returncode, result.stdout + result.stderr


@pytest.mark.parametrize("page, link, message", CASES)
def test_broken_internal_link_fails_the_build(broken_build, page, link, message):
    returncode, output = broken_build
    assert returncode != 0, output[-2000:]
    lines = [line for line in output.splitlines() if message in line]
    assert lines, output[-2000:]
    assert any(page in line for line in lines), lines

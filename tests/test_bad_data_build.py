"""The broken-data corpus as a whole, and what a broken data file does to a build: it stops before
anything is written, leaves an earlier site as it was, and names file, line, entry and field."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest import copy_repo_for_build, run_mkdocs_build

FIXTURES = Path(__file__).parent / "fixtures"
# file:line: device|model|measurement 'id', field 'path': message
ONE_LINE = re.compile(r"^data/[\w/.-]+\.yaml:\d+: (device|model|measurement) '[^']+', field '[^']+': \S.*$")


def corpus() -> list[Path]:
    return sorted(p for p in FIXTURES.glob("invalid_*/*/expect.txt"))


def test_corpus_has_at_least_thirty_cases_across_collections():
    cases = corpus()
    assert len(cases) >= 30, len(cases)
    assert {p.parent.parent.name for p in cases} >= {"invalid_devices", "invalid_models", "invalid_measurements"}


@pytest.mark.parametrize("expect", corpus(), ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_every_expected_message_names_file_line_entry_and_field(expect):
    lines = expect.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 and ONE_LINE.match(lines[0]), lines


# (fixture folder, where it goes under data/, a line of the message the build prints)
BUILD_CASES = [
    ("invalid_devices/yaml-syntax", "hardware/test", "data/hardware/test/broken.yaml:11: device 'broken'"),
    ("invalid_devices/html-string", "hardware/test", "field 'name': contains markup or a script URL"),
    (
        "invalid_models/kv-heads",
        "models/test",
        "data/models/test/kvh.yaml:15: model 'kvh', field 'architecture.kv_heads'",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("fixture, folder, message", BUILD_CASES, ids=[c[0] for c in BUILD_CASES])
def test_broken_file_leaves_an_earlier_site_untouched(tmp_path, fixture, folder, message):
    repo = copy_repo_for_build(tmp_path / "repo")
    shutil.copytree(FIXTURES / fixture, repo / "data" / folder, ignore=shutil.ignore_patterns("expect.txt"))
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("the site from the last good build", encoding="utf-8")
    result = run_mkdocs_build(site, config=repo / "mkdocs.yml", cwd=repo)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert message in output and "no site was written" in output
    assert "Traceback" not in output
    assert [p.name for p in site.iterdir()] == ["index.html"]
    assert (site / "index.html").read_text(encoding="utf-8") == "the site from the last good build"

"""The fast paths of loading the data set give exactly what the slow ones give.

libyaml's C parser reads every data file (``atlas.data.yamlfile``); the command line reads the validated
export from a cache keyed by the files' content (``atlas.data.export_cache``). Both must be invisible:
the same data and line numbers as the pure-Python parser, the same export as a fresh validation,
and a new key as soon as one byte of the data changes.
"""

from __future__ import annotations

import datetime
import shutil

import pytest
import yaml

from atlas.data import yamlfile
from atlas.data.dataset import DATA_DIR, DataValidationError
from atlas.data.export import export_json
from atlas.data.export_cache import cached_export_json, content_key

DATA_FILES = sorted(p for p in DATA_DIR.rglob("*") if p.suffix in (".yaml", ".yml"))


def test_libyaml_is_used():
    assert yamlfile._FAST_LOADER is yaml.CSafeLoader


def test_c_parser_gives_the_pure_python_data_and_lines(monkeypatch):
    """Every data file: the same values, the same line for every value, the same duplicate-key reports."""
    assert len(DATA_FILES) > 250
    fast = {p: yamlfile.read_yaml(p) for p in DATA_FILES}
    monkeypatch.setattr(yamlfile, "_FAST_LOADER", None)
    for path, doc in fast.items():
        slow = yamlfile.read_yaml(path)
        assert doc.data == slow.data, path
        assert doc.lines == slow.lines, path
        assert doc.duplicate_keys == slow.duplicate_keys, path


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("id: a\nname: [unclosed\nother: 1\n", 2, "flow sequence"),
        ("id: a\n  bad: indent\n", 2, "mapping values are not allowed"),
        ("id: a\nid: b\n", None, None),
    ],
)
def test_syntax_errors_keep_the_pure_python_wording_and_line(text, line, words):
    if line is None:  # a duplicate key parses; it is reported with its line, not raised
        doc = yamlfile.parse_yaml(text)
        assert doc.duplicate_keys == [(("id",), 2)]
        return
    with pytest.raises(yamlfile.YamlSyntaxError) as caught:
        yamlfile.parse_yaml(text)
    assert caught.value.line == line
    assert words in caught.value.message


def test_cached_export_is_the_validated_export(dataset, tmp_path, monkeypatch):
    monkeypatch.setenv("ATLAS_CACHE_DIR", str(tmp_path))
    fresh = export_json(dataset)
    first = cached_export_json()
    assert first == fresh
    files = list(tmp_path.glob("export-*.json"))
    assert len(files) == 1 and files[0].read_text(encoding="utf-8") == fresh
    assert cached_export_json() == fresh  # read back from the file


def test_a_changed_file_or_day_changes_the_key(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    day = datetime.date(2026, 12, 4)
    key = content_key(data, day)
    assert key == content_key(data, day)
    assert key != content_key(data, day + datetime.timedelta(days=1))
    device = data / "hardware" / "nvidia" / "h100-sxm.yaml"
    device.write_text(device.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert content_key(data, day) != key


def test_invalid_data_is_refused_and_not_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("ATLAS_CACHE_DIR", str(tmp_path / "cache"))
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    device = data / "hardware" / "nvidia" / "h100-sxm.yaml"
    device.write_text(device.read_text(encoding="utf-8").replace("id: h100-sxm", "id: h100-other", 1), encoding="utf-8")
    with pytest.raises(DataValidationError, match="must match the file name"):
        cached_export_json(data)
    assert not list((tmp_path / "cache").glob("export-*.json"))

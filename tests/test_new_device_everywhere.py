"""CONTRIBUTING.md's promise, end to end: scaffold a device, make one edit, build — and the device is in
every table, chart, download and calculator that its kind and figures qualify for."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from atlas.core.calculators.api import handle
from atlas.core.calculators.catalog import Catalog
from atlas.data.dataset import load_dataset
from atlas.data.export import export_dataset
from atlas.data.scaffold import write_scaffold
from conftest import copy_repo_for_build, run_mkdocs_build

pytestmark = pytest.mark.slow
NEW = "test-gpu-9000"


@pytest.fixture(scope="module")
def contributed(tmp_path_factory):
    """A copy of the repository with one new device, and the site built from it."""
    tmp = tmp_path_factory.mktemp("contribute")
    repo = copy_repo_for_build(tmp / "repo")
    path = write_scaffold(NEW, "testvendor", "Test GPU 9000", "Test", "gpu", like="h100-sxm", data_dir=repo / "data")
    # The one edit: this device's own figure instead of the copied one.
    text = path.read_text(encoding="utf-8")
    assert "bandwidth_gb_s: 3350" in text
    path.write_text(text.replace("bandwidth_gb_s: 3350", "bandwidth_gb_s: 4100"), encoding="utf-8")
    site = tmp / "site"
    result = run_mkdocs_build(site, config=repo / "mkdocs.yml", cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    return repo, site


@pytest.mark.parametrize("page", ["compare/index.html", "de/compare/index.html", "hardware/gpus/index.html"])
def test_new_device_is_in_the_tables(contributed, page):
    _, site = contributed
    html = (site / page).read_text(encoding="utf-8")
    assert re.search(rf'<tr data-device="{NEW}"[ >]', html)  # filterable tables add data-* filter values


def test_new_device_is_in_the_charts(contributed):
    _, site = contributed
    html = (site / "compare" / "index.html").read_text(encoding="utf-8")
    charts = re.findall(r'<svg[^>]*data-chart="([a-z-]+)".*?</svg>', html, flags=re.S)
    assert {"roofline", "capacity-bandwidth", "generations"} <= set(charts)
    for svg in re.findall(r'<svg[^>]*data-chart="(?:roofline|capacity-bandwidth|generations)".*?</svg>', html, re.S):
        assert f'data-device="{NEW}"' in svg


def test_new_device_is_in_the_downloads(contributed):
    _, site = contributed
    rows = {
        r["id"]: r
        for r in csv.DictReader(io.StringIO((site / "downloads" / "accelerator-atlas-devices.csv").read_text()))
    }
    assert rows[NEW]["bandwidth_gb_s"] == "4100" and rows[NEW]["name"] == "Test GPU 9000"
    data = json.loads((site / "downloads" / "accelerator-atlas.json").read_text(encoding="utf-8"))
    assert data["devices"][NEW]["memory"]["bandwidth_gb_s"] == 4100


def test_new_device_is_in_the_calculators(contributed):
    repo, site = contributed
    catalog = Catalog.from_dict(export_dataset(load_dataset(repo / "data")))
    response = handle({"command": "speed", "params": {"model": "llama-3.1-8b", "device": NEW}, "lang": "en"}, catalog)
    assert response["ok"], response
    # What the in-page calculators load, where the site ships it.
    shipped = [p for p in site.rglob("*.json") if "assets" in p.parts and NEW in p.read_text(encoding="utf-8")]
    calculator_pages = list(site.glob("calculators/*/index.html"))
    assert shipped or not calculator_pages, "the calculators' data file lacks the new device"

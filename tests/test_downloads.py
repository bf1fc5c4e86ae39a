"""The data set downloads: built from data/ with every build, linked from the comparison page."""

import copy
import csv
import io
import json
import re
from pathlib import Path

import pytest

from atlas.data.downloads import DEVICES_CSV, FOLDER, JSON_FILE, MODELS_CSV, devices_csv, download_files
from atlas.data.export import export_dataset


def rows(text: str) -> dict:
    return {row["id"]: row for row in csv.DictReader(io.StringIO(text))}


def test_built_files_equal_a_fresh_export(built_site, dataset):
    for path, text in download_files(dataset).items():
        assert (built_site / path).read_text(encoding="utf-8") == text, path


def test_json_is_the_export_with_its_schema_version(built_site, dataset):
    data = json.loads((built_site / FOLDER / JSON_FILE).read_text(encoding="utf-8"))
    assert data["schema_version"] == 1
    assert data == json.loads(json.dumps(export_dataset(dataset)))
    assert data["devices"]["h100-sxm"]["memory"]["bandwidth_gb_s"] == 3350
    assert data["models"]["llama-3.1-8b"]["architecture"]["layers"] == 32


def test_devices_csv_holds_known_figures_in_the_units_of_its_columns(built_site, dataset):
    table = rows((built_site / FOLDER / DEVICES_CSV).read_text(encoding="utf-8"))
    assert set(table) == set(dataset.devices)
    h100 = table["h100-sxm"]
    assert h100["schema_version"] == "1"
    assert h100["name"] == "NVIDIA H100 SXM5 80 GB"
    assert h100["memory_gib"] == "80"  # GiB, written as the data file has it (not 80.0)
    assert h100["bandwidth_gb_s"] == "3350"  # GB/s
    assert h100["bf16_matrix_dense_tflops"] == "989.4"
    assert h100["int8_matrix_sparse_tops"] == "3957.8"  # integer precisions in TOPS
    assert h100["tdp_w"] == "700"
    assert h100["fp4_matrix_dense_tflops"] == ""  # not stated: empty, never "nan"
    assert h100["source_urls"].split() == [s["url"] for s in dataset.devices["h100-sxm"]["sources"].values()]
    for row in table.values():
        assert "nan" not in {v.lower() for v in row.values()}


def test_every_csv_number_column_names_its_unit(built_site):
    header = (built_site / FOLDER / DEVICES_CSV).read_text(encoding="utf-8").splitlines()[0].split(",")
    numeric = [c for c in header if c not in {"id", "schema_version", "launch_year", "price_as_of"}]
    numeric = [c for c in numeric if re.search(r"(memory|bandwidth|tdp|interconnect|tflops|tops|usd)", c)]
    assert numeric, header
    for column in numeric:
        assert column.endswith(("_gib", "_gb_s", "_w", "_tflops", "_tops", "_usd", "_usd_high")) or column in {
            "memory_type",
            "price_kind",
        }, column


def test_price_range_is_split_into_low_and_high(dataset):
    devices = copy.deepcopy(dataset.devices)
    devices["rtx-4090"]["price"] = {
        "kind": "street-range",
        "usd": 1800,
        "usd_high": 2200,
        "as_of": "2025-06",
        "source": "x",
    }
    table = rows(devices_csv(devices))
    assert (table["rtx-4090"]["price_usd"], table["rtx-4090"]["price_usd_high"]) == ("1800", "2200")
    assert table["rtx-4090"]["price_kind"] == "street-range" and table["rtx-4090"]["price_as_of"] == "2025-06"
    assert table["h100-sxm"]["price_usd_high"] == ""


def test_models_csv_flattens_the_architecture(built_site, dataset):
    table = rows((built_site / FOLDER / MODELS_CSV).read_text(encoding="utf-8"))
    assert set(table) == set(dataset.models)
    llama = table["llama-3.1-8b"]
    assert (llama["architecture.layers"], llama["architecture.kv_heads"], llama["parameters.total_b"]) == (
        "32",
        "8",
        "8.03",
    )
    assert llama["architecture.tied_embeddings"] == "false"
    assert all(url.startswith("https://") for url in llama["source_urls"].split())


def test_a_formula_in_a_cell_is_neutralised(dataset):
    """Validation refuses strings starting with =, + or @; the CSV writer still defuses one that got past it."""
    devices = copy.deepcopy(dataset.devices)
    devices["h100-sxm"]["name"] = '=HYPERLINK("https://evil.invalid","x")'
    devices["h100-sxm"]["architecture"] = "@SUM(A1)"
    row = rows(devices_csv(devices))["h100-sxm"]
    assert row["name"] == "'" + devices["h100-sxm"]["name"]
    assert row["architecture"] == "'@SUM(A1)"


@pytest.mark.parametrize("page", ["compare/index.html", "de/compare/index.html"])
def test_comparison_page_links_every_download(built_site, page):
    html_path = built_site / page
    html = html_path.read_text(encoding="utf-8")
    links = re.findall(r'href="([^"]*downloads/[^"]+)"', html)
    targets = {Path(str(html_path.parent / link)).resolve() for link in links}
    expected = {(built_site / FOLDER / name).resolve() for name in (JSON_FILE, DEVICES_CSV, MODELS_CSV)}
    assert targets == expected
    assert all(t.is_file() for t in targets)
    version = "Schema version 1" if not page.startswith("de/") else "Schemaversion 1"
    assert version in html

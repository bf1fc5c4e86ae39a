"""What others measured, listed beside the speed estimate (issue 37, item 1): export, selection, CLI and page.

Expected values are read from the data set's own measurement files, so the tests follow the data; the estimate
itself must not move when the measurements are taken away (it is predicted, never looked up).
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys

import pytest

from atlas.core.calculators import measured
from atlas.core.calculators.api import handle
from atlas.core.calculators.catalog import Catalog, CatalogError
from atlas.core.calculators.models import ModelSpec
from atlas.data.checks.inference import cases as file_cases
from atlas.data.export import MEASURED_FIELDS, export_dataset, measured_rows
from conftest import shared_dataset
from tests.calculators_support import catalog, rendered, result

M4_MAX_QWEN3_8B = {"workload": "decode", "device": "apple-m4-max", "model": "qwen3-8b", "weights": "mlx_4bit"}


@pytest.fixture(scope="module")
def dataset():
    return shared_dataset()


def measured_in_files(dataset, device: str, model: str, phase_field: str) -> list[dict]:
    """Every case of the data set's measurement files for ``device`` and ``model`` that states ``phase_field``."""
    return [case for entry in dataset.inference.values() for case in file_cases(entry)
            if case.get("device") == device and case.get("model") == model and phase_field in case
            and case.get("num_devices", 1) == 1]


def test_export_holds_every_llm_speed_case_once_with_its_source(dataset):
    table = measured_rows(dataset)
    expected = sum(1 for entry in dataset.inference.values() for case in file_cases(entry)
                   if case.get("kind", "llm") == "llm"
                   and ("decode_tokens_per_s" in case or "prefill_tokens_per_s" in case))
    assert len(table["rows"]) == expected > 2000
    assert table["columns"] == [*MEASURED_FIELDS, "source"]
    rows = Catalog.from_dict(export_dataset(dataset)).measurements
    assert len(rows) == expected
    for row in rows:
        assert row["source"]["url"].startswith("https://")
        assert row["source"]["id"] in dataset.inference
        assert "decode_tokens_per_s" in row or "prefill_tokens_per_s" in row


def test_same_model_cases_come_first_with_the_measured_figures(dataset):
    in_files = measured_in_files(dataset, "apple-m4-max", "qwen3-8b", "decode_tokens_per_s")
    assert in_files, "the data set measures Qwen3-8B on an M4 Max"
    listed = result("speed", M4_MAX_QWEN3_8B)["measured"]["device"]
    same = [row for row in listed["cases"] if row["match"] == "same_model"]
    assert len(same) == min(len(in_files), measured.SHOWN_ROWS)
    assert listed["cases"][:len(same)] == same  # same model before similar ones
    assert {row["tokens_per_s"] for row in same} <= {c["decode_tokens_per_s"] for c in in_files}
    # the asked-for format (MLX 4-bit) ranks before other formats of the same model
    assert same[0]["weights"] == "mlx_4bit"
    assert all(row["source"]["url"].startswith("https://") for row in listed["cases"])


def test_prefill_lists_prefill_figures(dataset):
    in_files = measured_in_files(dataset, "rtx-5090", "qwen2.5-14b", "prefill_tokens_per_s")
    listed = result("speed", {"workload": "prefill", "device": "rtx-5090", "model": "qwen2.5-14b",
                              "weights": "q4_k_m"})["measured"]["device"]
    same = [row for row in listed["cases"] if row["match"] == "same_model"]
    assert len(same) == min(len(in_files), measured.SHOWN_ROWS)
    assert {row["tokens_per_s"] for row in same} <= {c["prefill_tokens_per_s"] for c in in_files}
    asked = [c for c in in_files if c.get("weights") == "q4_k_m"]
    assert [row["weights"] for row in same[:len(asked)]] == ["q4_k_m"] * min(len(asked), len(same))


def test_similar_means_same_kind_and_about_the_same_size():
    models = catalog().models
    spec = lambda model_id: ModelSpec.from_preset(model_id, models[model_id])  # noqa: E731
    assert measured.similar(spec("qwen3-8b"), spec("llama-3.1-8b"))
    assert measured.similar(spec("qwen3-8b"), spec("mistral-7b"))
    assert not measured.similar(spec("qwen3-8b"), spec("qwen3-4b"))  # half the size
    assert not measured.similar(spec("qwen3-8b"), spec("llama-3.1-70b"))
    assert not measured.similar(spec("qwen3-32b"), spec("qwen3-30b-a3b"))  # dense vs mixture of experts


def test_a_memory_configuration_choice_finds_the_chip_measurements():
    listed = result("speed", {**M4_MAX_QWEN3_8B, "device": "apple-m4-max@64"})["measured"]["device"]
    assert listed["total"] > 0 and listed["cases"][0]["model"] == "qwen3-8b"


def test_the_estimate_does_not_depend_on_the_measurements():
    full = catalog()
    bare = dataclasses.replace(full, measurements=[])
    request = {"command": "speed", "params": {**M4_MAX_QWEN3_8B, "baseline": "rtx-4090"}, "lang": "en"}
    with_rows, without = handle(request, full)["result"], handle(request, bare)["result"]
    assert with_rows["measured"]["device"]["total"] > 0
    assert without["measured"] == {"device": {"cases": [], "total": 0}, "baseline": {"cases": [], "total": 0}}
    for which in ("device", "baseline"):
        assert with_rows[which]["tokens_per_s"] == without[which]["tokens_per_s"]


def test_no_measurement_is_said_in_both_languages():
    bare = dataclasses.replace(catalog(), measurements=[])
    for lang, words in (("en", "holds no published measurement"), ("de", "keine veröffentlichte Messung")):
        from atlas.core import calcview

        out = calcview.render({"command": "speed", "params": M4_MAX_QWEN3_8B, "lang": lang}, bare)
        assert out["ok"] and words in out["html"]


def test_a_malformed_measurement_table_is_a_data_error_not_a_traceback():
    data = export_dataset(shared_dataset())
    for broken in ({"columns": ["device"], "rows": [["x", 0]]}, {"rows": []}, {"columns": [], "rows": 5, "sources": []}):
        with pytest.raises(CatalogError):
            Catalog.from_dict({**data, "measurements": broken})
        response = handle({"command": "speed", "params": M4_MAX_QWEN3_8B, "lang": "de"},
                          {**data, "measurements": broken})
        assert not response["ok"] and response["errors"][0]["key"] == "error.bad_data"


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_page_shows_a_measured_table_with_sources(lang):
    html = rendered("speed", M4_MAX_QWEN3_8B, lang)["html"]
    heading = {"en": "Measured by others", "de": "Messungen anderer"}[lang]
    assert f"<h3>{heading}</h3>" in html
    block = html[html.index('class="atlas-calc-measured"'):]
    values = re.findall(r'data-result="measured\.device\.cases\[\d+\]\.tokens_per_s" data-value="([0-9.]+)">([^<]+)<', block)
    assert values, block[:400]
    raw, shown = values[0]
    expected_shown = {"en": raw, "de": raw.replace(".", ",")}[lang]
    assert float(raw) == pytest.approx(float(shown.replace(",", ".")), rel=0.01)
    if "." in raw and len(raw) <= 4:
        assert shown == expected_shown.rstrip("0").rstrip(",.")
    assert 'href="https://' in block and 'rel="noopener"' in block


def test_cli_lists_measurements_in_both_languages():
    run = lambda lang: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "atlas", "speed", "--device", "apple-m4-max", "--model", "qwen3-8b",
         "--weights", "mlx_4bit", "--lang", lang], capture_output=True, text=True, check=True).stdout
    english, german = run("en"), run("de")
    assert "Measured by others on Apple M4 Max (not used for the estimate):" in english
    assert "Messungen anderer auf Apple M4 Max (nicht in die Schätzung eingeflossen):" in german
    assert re.search(r"^- [0-9.]+ tokens/s: Qwen3-8B, MLX", english, re.M)
    assert re.search(r"^- [0-9,]+ Tokens/s: Qwen3-8B, MLX", german, re.M)
    assert "<https://" in english

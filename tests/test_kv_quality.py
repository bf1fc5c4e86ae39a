"""A quantised KV cache answers with its cost: the memory saved against FP16 and the quality changes sources
measured (data/kv-quality/), in the estimators' results, the command line in both languages and the page."""

from __future__ import annotations

import copy
import json
from functools import cache

import pytest

from atlas import cli
from atlas.core import calcview
from atlas.core.calculators.api import handle
from atlas.core.calculators.memory import kv_cache_bytes
from atlas.core.calculators.models import ModelSpec
from atlas.data.dataset import kv_quality_problems
from atlas.data.export import export_dataset
from atlas.data.schema import schema_problems
from conftest import shared_dataset

GIB = 2**30
PARAMS = {"model": "llama-3.1-8b", "context": 32768}
SPEED = {**PARAMS, "device": "h100-sxm", "workload": "decode"}


@cache
def export() -> dict:
    return export_dataset(shared_dataset())


def answer(command: str, params: dict, lang: str = "en") -> dict:
    response = handle({"command": command, "params": params, "lang": lang}, copy.deepcopy(export()))
    assert response["ok"], response
    return response["result"]


def model() -> ModelSpec:
    return ModelSpec.from_preset("llama-3.1-8b", export()["models"]["llama-3.1-8b"])


def good_record() -> dict:
    return next(e for e in shared_dataset().kv_quality.values() if e["id"] == "llmkube-issue-601")


def test_schema_and_checks_reject_bad_records():
    good = copy.deepcopy(good_record())
    assert schema_problems(good, "kv-quality.schema.json") == []
    bad = copy.deepcopy(good)
    bad["measurements"][0]["kv_cache"] = "q3_k"
    assert any(path == ("measurements", 0, "kv_cache") for path, _ in schema_problems(bad, "kv-quality.schema.json"))
    del bad["source"]["url"]
    assert any(path == ("source", "url") for path, _ in schema_problems(bad, "kv-quality.schema.json"))
    no_baseline = copy.deepcopy(good)
    del no_baseline["measurements"][0]["baseline"]  # a perplexity without the 16-bit value
    assert [p for p, _ in kv_quality_problems(no_baseline, None)] == [("measurements", 0, "metric")]


@pytest.mark.parametrize("command,params", [("vram", PARAMS), ("speed", SPEED)])
def test_q8_0_answer_states_memory_saved_and_sourced_deltas(command, params):
    kvq = answer(command, {**params, "kv_cache": "q8_0"})["kv_quality"]
    fp16 = kv_cache_bytes(model(), "fp16", 32768, 1) / GIB
    q8 = kv_cache_bytes(model(), "q8_0", 32768, 1) / GIB
    assert kvq["fp16_gib"] == pytest.approx(4.0) == pytest.approx(fp16)  # 32 layers x 8 KV heads x 128 x 2 x 2 B
    assert kvq["kv_cache_gib"] == pytest.approx(q8) == pytest.approx(4.0 * 34 / 64)  # q8_0: 34 bytes per 32 values
    assert kvq["saved_gib"] == pytest.approx(fp16 - q8)
    assert kvq["saved_percent"] == pytest.approx(46.875)
    assert kvq["same_scheme"] is True
    urls = {m["source"]["url"] for m in kvq["measurements"]}
    assert "https://github.com/ggml-org/llama.cpp/pull/7412" in urls
    assert all(m["kv_cache"] == "q8_0" and m["same_scheme"] for m in kvq["measurements"])
    ppl = next(m for m in kvq["measurements"] if m["source"]["id"] == "llama-cpp-pr-7412" and m["metric"] == "perplexity")
    assert ppl["change"] == pytest.approx(6.234369 - 6.232196)
    kld = next(m for m in kvq["measurements"] if m["metric"] == "kl_divergence" and m["model"] == "Qwen3.6-35B-A3B")
    assert kld["quantised"] == 0.0067 and kld["change"] is None


def test_related_scheme_is_labelled_and_unmeasured_format_says_so():
    q4 = answer("vram", {**PARAMS, "kv_cache": "q4_0"})["kv_quality"]
    assert q4["measurements"] and not q4["same_scheme"]
    assert all(not m["same_scheme"] for m in q4["measurements"])
    q51 = answer("vram", {**PARAMS, "kv_cache": "q5_1"})["kv_quality"]
    assert q51["measurements"] == [] and q51["saved_gib"] > 0


@pytest.mark.parametrize("kv_cache", ["fp16", "bf16"])
def test_sixteen_bit_cache_has_no_section(kv_cache):
    assert answer("vram", {**PARAMS, "kv_cache": kv_cache})["kv_quality"] is None
    assert answer("speed", {**SPEED, "kv_cache": kv_cache})["kv_quality"] is None
    html = calcview.render({"command": "vram", "params": {**PARAMS, "kv_cache": kv_cache}, "lang": "en"},
                           copy.deepcopy(export()))["html"]
    assert "atlas-calc-kvq" not in html


def run_cli(capsys, *argv) -> str:
    assert cli.main(list(argv)) == 0
    return capsys.readouterr().out


def test_cli_json_and_text_in_both_languages(capsys):
    out = json.loads(run_cli(capsys, "vram", "--model", "llama-3.1-8b", "--context", "32768", "--kv-cache", "q8_0",
                             "--json"))
    assert out["kv_quality"]["saved_gib"] == pytest.approx(4.0 - 4.0 * 34 / 64)
    assert any(m["source"]["url"].endswith("/pull/7412") for m in out["kv_quality"]["measurements"])
    en = run_cli(capsys, "vram", "--model", "llama-3.1-8b", "--context", "32768", "--kv-cache", "q8_0")
    assert "KV cache in Q8_0: 2.12\u00a0GiB instead of 4\u00a0GiB in FP16, 1.88\u00a0GiB (46.9\u00a0%) less." in en
    assert "6.232196 → 6.234369, +0.002173" in en and "<https://github.com/ggml-org/llama.cpp/pull/7412>" in en
    de = run_cli(capsys, "speed", "--model", "llama-3.1-8b", "--device", "h100-sxm", "--context", "32768",
                 "--kv-cache", "q8_0", "--lang", "de")
    assert "KV-Cache in Q8_0: 2,12\u00a0GiB statt 4\u00a0GiB in FP16, also 1,88\u00a0GiB (46,9\u202f%) weniger." in de
    assert "6,232196 → 6,234369, +0,002173" in de
    none = run_cli(capsys, "vram", "--model", "llama-3.1-8b", "--kv-cache", "q5_1")
    assert "No measured quality figure for Q5_1" in none
    assert "Quantised KV cache" not in run_cli(capsys, "vram", "--model", "llama-3.1-8b")


@pytest.mark.parametrize("lang,heading,number", [("en", "Quantised KV cache", "6.234369"),
                                                 ("de", "Quantisierter KV-Cache", "6,234369")])
def test_page_section_in_both_languages(lang, heading, number):
    for command, params in (("vram", PARAMS), ("speed", SPEED)):
        out = calcview.render({"command": command, "params": {**params, "kv_cache": "q8_0"}, "lang": lang},
                              copy.deepcopy(export()))
        assert out["ok"], out.get("errors")
        html = out["html"]
        section = html[html.index('class="atlas-calc-kvq"'):]
        assert heading in section and number in section
        assert 'href="https://github.com/ggml-org/llama.cpp/pull/7412"' in section
        assert "Qwen3.6-35B-A3B" in section


def test_the_browser_catalogue_keeps_the_measurements_of_the_export():
    """The page builds its catalogue from the export (``Catalog.from_dict``): the measurements must survive that, or
    the page would show the memory saved without the quality change."""
    from atlas.core.calculators import kv_quality
    from atlas.core.calculators.catalog import Catalog

    export = json.loads(json.dumps(export_dataset(shared_dataset())))
    catalog = Catalog.from_dict(export)
    assert catalog.kv_quality and len(catalog.kv_quality) == len(export["kv_quality"])
    assert kv_quality.rows_of(catalog) == kv_quality.rows_of(export)
    assert Catalog.from_dict({**export, "kv_quality": "not a list"}).kv_quality == []

"""The contract of atlas.core.calculators.api.handle: shapes, keys, localisation, errors."""

import json
import math

import pytest

from atlas.core import l10n
from atlas.core.calculators.api import handle
from atlas.core.calculators.catalog import Catalog, CatalogError
from calculators_support import catalog, errors, ok

BREAKDOWN = {"weights_gib", "kv_cache_gib", "activations_gib", "gradients_gib", "optimizer_gib", "overhead_gib"}


def test_vram_result_has_the_documented_keys():
    r = ok("vram", model="llama-3.1-70b", weights="q4_k_m", kv_cache="fp16", context=8192, batch=1, mode="inference")
    assert set(r["breakdown"]) == BREAKDOWN == set(r["per_device"])
    assert r["total_gib"] == sum(r["breakdown"].values())
    assert {"device", "count", "capacity_gib", "per_device_gib", "name"} <= set(r["fits"][0])
    assert all({"key", "params", "message"} == set(n) for n in r["notes"])
    json.dumps(r, allow_nan=False)  # plain JSON, finite


def test_speed_result_has_the_documented_keys():
    r = ok("speed", model="llama-3.1-8b", weights="bf16", workload="decode", device="h100-sxm", baseline="a100-sxm-80gb")
    for key in ("id", "time_s", "tokens_per_s", "bound", "attainable_tflops", "peak_tflops", "critical_intensity"):
        assert key in r["device"] and key in r["baseline"]
    assert r["speedup"] > 1
    assert r["reason"]["key"] == "reason.memory_bound"
    json.dumps(r, allow_nan=False)


def test_strings_from_a_form_and_numbers_from_python_give_the_same_result():
    as_text = ok("vram", model="qwen2.5-7b", weights="int4", group_size="128", context="8192", batch="2")
    as_numbers = ok("vram", model="qwen2.5-7b", weights="int4", group_size=128, context=8192, batch=2)
    assert as_text == as_numbers


def test_unknown_names_list_close_matches():
    (e,) = errors("vram", model="llama-3.1-70")
    assert e["field"] == "model" and e["key"] == "error.unknown_value"
    assert "llama-3.1-70b" in e["params"]["suggestions"]
    (e,) = errors("speed", model="llama-3.1-8b", device="h100")
    assert e["field"] == "device" and "h100-sxm" in e["params"]["suggestions"]


@pytest.mark.parametrize(("field", "typed", "first"), [
    ("device", "rtx-4060-ti", ["rtx-4060-ti-16gb"]),  # the memory size left off: spelling alone put it 4th
    ("device", "4090", ["rtx-4090", "rtx-4090-laptop"]),  # the number alone
    ("device", "m4-max", ["apple-m4-max"]),
    ("model", "qwen3-30b", ["qwen3-30b-a3b"]),
])
def test_a_name_left_short_suggests_the_names_it_begins(field, typed, first):
    params = {"model": "llama-3.1-8b", "device": "rtx-4090", field: typed}
    (e,) = errors("speed", **params)
    assert e["field"] == field and e["params"]["suggestions"][:len(first)] == first
    assert len(e["params"]["suggestions"]) == 3


@pytest.mark.parametrize(
    "params, field, key",
    [
        ({"context": 0}, "context", "error.too_small"),
        ({"context": -5}, "context", "error.too_small"),
        ({"context": "8k"}, "context", "error.not_a_number"),
        ({"context": 1.5}, "context", "error.not_an_integer"),
        ({"context": float("nan")}, "context", "error.not_finite"),
        ({"context": "inf"}, "context", "error.not_finite"),
        ({"context": 10**12}, "context", "error.too_large"),
        ({"batch": True}, "batch", "error.not_a_number"),
        ({"overhead_gib": -1}, "overhead_gib", "error.too_small"),
        ({"mode": "full", "weights": "q4_k_m"}, "weights", "error.weights_not_trainable"),
        ({"mode": "qlora", "weights": "bf16"}, "weights", "error.qlora_needs_nf4"),
        ({"tp": 2, "num_devices": 3}, "num_devices", "error.not_multiple"),
        ({"double_quant": "maybe"}, "double_quant", "error.not_boolean"),
        ({"contxt": 4096}, "contxt", "error.unknown_param"),
    ],
)
def test_bad_input_gives_one_error_with_a_translation_key(params, field, key):
    errs = errors("vram", **{"model": "llama-3.1-8b", **params})
    assert [(e["field"], e["key"]) for e in errs] == [(field, key)]
    for lang in l10n.LANGUAGES:
        assert key in l10n.labels(lang)


def test_every_bad_field_is_reported_at_once():
    errs = errors("vram", model="nope", context=0, batch=-1)
    assert {e["field"] for e in errs} == {"model", "context", "batch"}


def test_custom_model_needs_its_figures():
    errs = errors("vram", model="custom", params_b=7, layers=32)
    assert {e["field"] for e in errs} == {"hidden", "heads", "kv_heads", "vocab"}
    assert all(e["key"] == "error.required_custom" for e in errs)
    (e,) = errors("vram", model="custom", params_b=7, layers=32, hidden=4096, heads=32, kv_heads=5, vocab=32000)
    assert e["key"] == "error.kv_heads_divide"


def test_messages_are_localised():
    (en,) = errors("vram", model="llama-3.1-8b", context=0, lang="en")
    (de,) = errors("vram", model="llama-3.1-8b", context=0, lang="de")
    assert en["message"] != de["message"] and "Kontextlänge" in de["message"]
    r = ok("speed", lang="de", model="llama-3.1-8b", device="h100-sxm", baseline="a100-sxm-80gb")
    assert "1,64" in r["reason"]["message"]  # German decimal comma


def test_unexpected_failures_become_error_internal(monkeypatch):
    import atlas.core.calculators.api as api_module

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(api_module, "estimate_memory", boom)
    response = handle({"command": "vram", "params": {"model": "llama-3.1-8b"}, "lang": "de"}, catalog())
    assert response == {
        "ok": False,
        "errors": [{"field": None, "key": "error.internal", "params": {}, "message": l10n.t("de", "error.internal")}],
    }


def test_bad_requests_never_raise():
    for request in (None, [], {"command": "nope"}, {"command": "vram", "params": "x"}, {"lang": "fr"}):
        response = handle(request, catalog())
        assert response["ok"] is False and response["errors"][0]["key"].startswith("error.")
    assert handle({"command": "vram", "params": {}}, {"schema_version": 2})["errors"][0]["key"] == "error.bad_data"


def test_catalog_refuses_other_schema_versions():
    with pytest.raises(CatalogError):
        Catalog.from_dict({"schema_version": 2, "devices": {}, "models": {}})


def test_no_result_number_is_nan_or_infinite_for_huge_inputs():
    r = ok("vram", model="custom", params_b=100000, layers=10000, hidden=1000000, heads=100000, kv_heads=100000,
           head_dim=100000, vocab=10000000, context=10000000, batch=100000)
    assert math.isfinite(r["total_gib"])


def test_huge_numbers_in_messages_are_formatted():
    (e,) = errors("speed", model="llama-3.1-8b", device="h100-sxm", flops=1e31, workload="kernel")
    assert e["key"] == "error.too_large" and "10,000,000,000,000,000,000,000,000,000,000" in e["message"]


def test_form_description_and_defaults_are_plain_json():
    from atlas.core.calculators import assumptions, inputs

    form = inputs.describe("speed", catalog())
    by_name = {p["name"]: p for p in form}
    assert "h100-sxm" in by_name["device"]["choices"] and by_name["workload"]["default"] == "decode"
    assert by_name["context"]["minimum"] == 1
    json.dumps(form, allow_nan=False)
    table = assumptions.describe()
    assert any(d["key"] == "overhead.runtime" and d["value"] == 1.0 for d in table)
    json.dumps(table, allow_nan=False)


@pytest.mark.parametrize("command", ["vram", "speed", "fit"])
def test_every_parameter_reaches_its_options_by_name(command):
    """One declaration per parameter: a name in inputs.PARAMETERS is the name of the options field it sets, in the
    section its entry names."""
    import dataclasses

    from atlas.core.calculators.inputs import Options, params_for

    fields = {f.name: section.name for section in dataclasses.fields(Options)
              for f in dataclasses.fields(section.default_factory())}
    assert [(p.name, p.section) for p in params_for(command) if fields.get(p.name) != p.section] == []

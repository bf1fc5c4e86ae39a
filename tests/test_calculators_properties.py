"""Properties of the estimators over generated inputs (Hypothesis)."""

import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atlas.core import l10n
from atlas.core.calculators import defaults
from atlas.core.calculators.api import handle
from atlas.core.calculators.inputs import BY_NAME, PARAMETERS
from atlas.core.calculators.memory import tp_errors
from atlas.core.calculators.models import ModelSpec
from calculators_support import catalog

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MODELS = sorted(catalog().models)
DEVICES = sorted(catalog().devices)
GGUF_AND_FLOAT = [f for f in defaults.WEIGHT_FORMATS]


def run(command, **params):
    return handle({"command": command, "params": params, "lang": "en"}, catalog())


def finite(value) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        return False
    return True


@st.composite
def vram_params(draw):
    mode = draw(st.sampled_from(["inference", "full", "lora", "qlora"]))
    if mode == "full":
        weights = draw(st.sampled_from(["fp32", "bf16", "fp16"]))
    elif mode == "qlora":
        weights = "nf4"
    elif mode == "lora":
        weights = draw(st.sampled_from([f for f, w in defaults.WEIGHT_FORMATS.items() if w.kind != "gguf"]))
    else:
        weights = draw(st.sampled_from(GGUF_AND_FLOAT))
    model = draw(st.sampled_from(MODELS))
    # Tensor parallelism must split the model's heads and KV heads (atlas.core.calculators.memory.tp_errors).
    spec = ModelSpec.from_preset(model, catalog().models[model])
    tp = draw(st.sampled_from([t for t in (1, 2, 4, 8) if not tp_errors(spec, t)]))
    return dict(
        model=model,
        mode=mode,
        weights=weights,
        kv_cache=draw(st.sampled_from(list(defaults.KV_FORMATS))),
        context=draw(st.integers(1, 1_000_000)),
        batch=draw(st.integers(1, 512)),
        tp=tp,
        num_devices=tp * draw(st.integers(1, 64)),
        zero=draw(st.integers(0, 3)),
        gradient_checkpointing=draw(st.booleans()),
        optimizer=draw(st.sampled_from(list(defaults.OPTIMIZERS))),
        group_size=draw(st.sampled_from([32, 64, 128, 256])),
    )


@SETTINGS
@given(vram_params())
def test_totals_are_the_sum_of_the_breakdown(params):
    response = run("vram", **params)
    assert response["ok"], response
    r = response["result"]
    assert r["total_gib"] == sum(r["breakdown"].values())
    assert r["per_device_gib"] == sum(r["per_device"].values())
    assert math.isclose(r["total_gib"], r["per_device_gib"] * r["num_devices"], rel_tol=1e-9)
    assert all(v >= 0 for v in r["breakdown"].values())
    assert finite(r)


@SETTINGS
@given(vram_params(), st.integers(1, 100_000))
def test_more_context_never_needs_less_memory(params, extra):
    params = {**params, "mode": "inference", "weights": "bf16"}
    short = run("vram", **params)["result"]
    long = run("vram", **{**params, "context": params["context"] + extra})["result"]
    assert long["breakdown"]["kv_cache_gib"] >= short["breakdown"]["kv_cache_gib"]
    assert long["total_gib"] >= short["total_gib"]


@SETTINGS
@given(vram_params(), st.integers(1, 512))
def test_more_batch_never_needs_less_memory(params, extra):
    small = run("vram", **params)["result"]
    large = run("vram", **{**params, "batch": params["batch"] + extra})["result"]
    assert large["total_gib"] >= small["total_gib"]


# Formats that store every tensor alike, and formats that keep embeddings and output head at 16 bit.
SAME_FOR_ALL = [f for f, w in defaults.WEIGHT_FORMATS.items() if not w.keeps_embeddings_16bit]
LINEAR_ONLY = [f for f, w in defaults.WEIGHT_FORMATS.items() if w.keeps_embeddings_16bit]


@SETTINGS
@given(st.sampled_from(MODELS), st.sampled_from([SAME_FOR_ALL, LINEAR_ONLY]).flatmap(
    lambda family: st.tuples(st.sampled_from(family), st.sampled_from(family))))
def test_more_bits_per_weight_need_more_weight_memory(model, pair):
    # Bits per weight averaged over this model's tensors: GGUF recipes, experts-only MXFP4 and 16-bit heads make
    # the order of two formats depend on the model.
    first, second = (run("vram", model=model, weights=w)["result"] for w in pair)
    low, high = sorted((first, second), key=lambda r: r["average_bits_per_weight"])
    assert high["breakdown"]["weights_gib"] >= low["breakdown"]["weights_gib"]


@SETTINGS
@given(
    st.sampled_from(MODELS),
    st.sampled_from(DEVICES),
    st.sampled_from(["decode", "prefill", "training"]),
    st.sampled_from(GGUF_AND_FLOAT),
    st.integers(1, 200_000),
    st.integers(1, 256),
)
def test_speedup_of_a_device_over_itself_is_one(model, device, workload, weights, context, batch):
    response = run("speed", model=model, device=device, baseline=device, workload=workload, weights=weights,
                   context=context, batch=batch)
    if not response["ok"]:  # devices that state no usable dense figure (an NPU's INT8 only, a sparse-only figure)
        # or no memory of their own (Hailo-8: memory.type "none")
        assert {e["key"] for e in response["errors"]} <= {"error.no_peak", "error.no_peak_prefill",
                                                          "error.device_without_memory"}, response
        return
    r = response["result"]
    assert r["speedup"] == 1
    assert r["device"]["time_s"] > 0 and finite(r)


@SETTINGS
@given(st.sampled_from(MODELS), st.sampled_from(DEVICES), st.integers(1, 64), st.integers(1, 64))
def test_decode_throughput_grows_with_batch_until_compute_bound(model, device, b1, b2):
    small, large = sorted((b1, b2))
    first = run("speed", model=model, device=device, batch=small, context=1024)
    if not first["ok"]:
        return
    a = first["result"]["device"]
    b = run("speed", model=model, device=device, batch=large, context=1024)["result"]["device"]
    assert b["tokens_per_s"] >= a["tokens_per_s"] * 0.999 or b["bound"] == "compute"


def junk():
    numbers = st.one_of(st.integers(-10**20, 10**20), st.floats(allow_nan=True, allow_infinity=True))
    texts = st.one_of(st.text(max_size=12), st.sampled_from(["", "nan", "inf", "-1", "1e400", "8,192", "0,5", "true"]))
    value = st.one_of(st.none(), st.booleans(), numbers, texts, st.sampled_from(MODELS + DEVICES), st.lists(st.integers(), max_size=2))
    names = st.one_of(st.sampled_from([p.name for p in PARAMETERS]), st.text(max_size=8))
    return st.dictionaries(names, value, max_size=8)


@SETTINGS
@given(st.sampled_from(["vram", "speed"]), junk(), st.sampled_from(["en", "de"]))
def test_any_input_gives_finite_numbers_or_translatable_errors(command, params, lang):
    base = {"model": "llama-3.1-8b", "device": "h100-sxm"}
    response = handle({"command": command, "params": {**base, **params}, "lang": lang}, catalog())
    assert finite(response)
    if response["ok"]:
        return
    for problem in response["errors"]:
        assert problem["key"] in l10n.labels("en") and problem["key"] in l10n.labels("de")
        assert problem["field"] is None or isinstance(problem["field"], str)
        assert "Traceback" not in problem["message"] and "nan" not in problem["message"].lower().split()
    assert response["errors"][0]["key"] != "error.internal", response


def test_every_parameter_has_a_label_in_both_languages():
    for name in BY_NAME:
        assert f"param.{name}" in l10n.labels("en") and f"param.{name}" in l10n.labels("de")

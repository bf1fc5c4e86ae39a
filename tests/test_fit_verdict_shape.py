"""The one fit verdict (``atlas.core.calculators.fit``): the command line's ``--json`` of both calculators carries it in the
shape its ``TypedDict``s write down — the same keys, the same types, the same GPU-share rule."""

from __future__ import annotations

import json
import types
import typing

import pytest

import atlas.cli as cli_module
from atlas.cli import main as cli_main
from atlas.core.calculators import fit
from calculators_support import catalog


def check(value, hint, path: str) -> None:
    """Assert that the JSON ``value`` at ``path`` has the type ``hint`` (a TypedDict, union, list or plain type)."""
    if typing.is_typeddict(hint):
        assert isinstance(value, dict), path
        keys = set(value)
        assert hint.__required_keys__ <= keys, f"{path}: missing {sorted(hint.__required_keys__ - keys)}"
        extra = keys - hint.__required_keys__ - hint.__optional_keys__
        assert not extra, f"{path}: keys the TypedDict does not declare: {sorted(extra)}"
        hints = typing.get_type_hints(hint)
        for key in keys:
            check(value[key], hints[key], f"{path}.{key}")
        return
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        failures = []
        for arm in typing.get_args(hint):
            try:
                check(value, arm, path)
                return
            except AssertionError as e:
                failures.append(str(e))
        raise AssertionError(f"{path}: {value!r} is none of {hint}: {failures}")
    if origin is list:
        assert isinstance(value, list), f"{path}: {value!r} is not a list"
        for i, item in enumerate(value):
            check(item, typing.get_args(hint)[0], f"{path}[{i}]")
        return
    if hint is type(None):
        assert value is None, f"{path}: {value!r} is not null"
    elif hint is float:  # JSON writes a whole number of GiB without a point
        assert isinstance(value, int | float) and not isinstance(value, bool), f"{path}: {value!r} is not a number"
    elif hint is int:
        assert isinstance(value, int) and not isinstance(value, bool), f"{path}: {value!r} is not an integer"
    else:
        assert isinstance(value, hint), f"{path}: {value!r} is not {hint}"


@pytest.fixture
def run(capsys, monkeypatch):
    monkeypatch.setattr(cli_module, "load_catalog", lambda data_json: catalog())

    def go(*args: str) -> dict:
        assert cli_main([*args, "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    return go


VRAM_CASES = [
    # fits on a card with memory of its own
    ("--model", "llama-3.1-8b", "--weights", "q4_k_m", "--device", "h100-sxm"),
    # does not fit: layers offloaded to the reader's RAM, other devices, formats, devices needed, layers on the GPU
    ("--model", "llama-3.1-70b", "--device", "rtx-4090", "--ram-gib", "64"),
    # mixture of experts that does not fit: the experts-to-RAM suggestion with its speed
    ("--model", "qwen3-30b-a3b", "--weights", "q4_k_m", "--context", "32768", "--device", "rtx-4060-ti-16gb"),
    # the reader's expert offload, with system RAM
    ("--model", "qwen3-30b-a3b", "--weights", "q4_k_m", "--device", "rtx-4060-ti-16gb", "--moe-offload", "experts",
     "--ram-gib", "32"),
    # unified memory sold in several sizes, too small
    ("--model", "gpt-oss-120b", "--device", "apple-m3-max@64"),
    # a device described by its memory alone
    ("--model", "llama-3.1-8b", "--memory-gib", "12"),
    # fine-tuning: no formats, RAM cannot help
    ("--model", "llama-3.1-8b", "--mode", "lora", "--device", "rtx-4090", "--ram-gib", "64"),
]

SPEED_CASES = [
    ("--model", "llama-3.1-8b", "--weights", "q4_k_m", "--device", "h100-sxm"),
    ("--model", "llama-3.1-70b", "--weights", "bf16", "--device", "rtx-4090"),
    ("--model", "qwen3-30b-a3b", "--weights", "q4_k_m", "--context", "32768", "--device", "rtx-4060-ti-16gb",
     "--moe-offload", "experts"),
    ("--model", "gpt-oss-120b", "--device", "apple-m3-max@64"),
    ("--model", "llama-3.1-70b", "--weights", "bf16", "--device", "rtx-4090", "--baseline", "h100-sxm"),
]


@pytest.mark.parametrize("args", VRAM_CASES, ids=lambda a: " ".join(a))
def test_vram_verdict_has_the_typed_shape(run, args):
    verdict = run("vram", *args)["verdict"]
    check(verdict, fit.Verdict, "verdict")
    assert "runs_instead" not in verdict  # the speed calculator's addition


@pytest.mark.parametrize("args", SPEED_CASES, ids=lambda a: " ".join(a))
def test_speed_verdict_has_the_typed_shape(run, args):
    result = run("speed", *args)
    for side in ("device", "baseline"):
        if result.get(side):
            check(result[side]["memory"], fit.Verdict, f"{side}.memory")
            assert "runs_instead" in result[side]["memory"]


def test_both_calculators_give_the_same_verdict_for_the_same_configuration(run):
    """Llama 3.1 70B in bf16 on one RTX 4090: the same need, usable memory, margin and share in both."""
    vram = run("vram", "--model", "llama-3.1-70b", "--weights", "bf16", "--device", "rtx-4090")["verdict"]
    speed = run("speed", "--model", "llama-3.1-70b", "--weights", "bf16", "--device", "rtx-4090")["device"]["memory"]
    for key in ("need_gib", "usable_gib", "margin_gib", "fits", "gpu_share", "capacity_gib", "num_devices"):
        assert vram[key] == pytest.approx(speed[key]), key
    assert vram["gpu_share"] is None and vram["usable_gib"] == 24 and not vram["fits"]
    assert vram["suggestions"]["num_devices"] == speed["suggestions"]["num_devices"] == 6
    assert vram["suggestions"]["gpu_layers"] == speed["suggestions"]["gpu_layers"]
    assert [f["weights"] for f in vram["suggestions"]["formats"]] == \
        [f["weights"] for f in speed["suggestions"]["formats"]]


def test_one_gpu_share_rule(run):
    """The GPU's share of unified memory as a number, null for memory of its own, in both calculators."""
    for device, share in (("apple-m3-max", 0.84), ("rtx-4090", None)):
        vram = run("vram", "--model", "llama-3.1-8b", "--device", device)["verdict"]
        speed = run("speed", "--model", "llama-3.1-8b", "--device", device)["device"]["memory"]
        assert vram["gpu_share"] == speed["gpu_share"] == share


def test_the_shape_check_rejects_the_old_key_names_and_wrong_types(run):
    verdict = run("vram", "--model", "llama-3.1-70b", "--device", "rtx-4090")["verdict"]
    renamed = {("needed_gib" if k == "need_gib" else k): v for k, v in verdict.items()}
    with pytest.raises(AssertionError, match="missing"):
        check(renamed, fit.Verdict, "verdict")
    with pytest.raises(AssertionError, match="none of"):
        check({**verdict, "gpu_share": "1.0"}, fit.Verdict, "verdict")
    with pytest.raises(AssertionError, match="not an integer"):
        check({**verdict, "suggestions": {**verdict["suggestions"], "num_devices": 6.5}}, fit.Verdict, "verdict")


def test_no_suggestion_offers_more_bits_than_the_model_is_published_in():
    """FP32 copies of a BF16 checkpoint (or BF16 of gpt-oss's MXFP4) hold no more than the published weights:
    neither "fits too" nor "best format that fits" offers them (the command line named FP32 the best format for
    every small model on an RTX 4090)."""
    from atlas.core.calculators.memory import beyond_published
    from atlas.core.calculators.models import ModelSpec
    from calculators_support import ok

    small = ok("vram", model="llama-3.2-1b", device="rtx-4090")["verdict"]
    assert small["fits"] and small["suggestions"]["formats"] == []
    short = ok("vram", model="llama-3.1-70b", device="rtx-4090")["verdict"]  # BF16 does not fit: 2-bit GGUF does
    assert not short["fits"] and [f["weights"] for f in short["suggestions"]["formats"]][:1] == ["iq2_xs"]
    presets = {row["model"]: row for row in ok("fit", device="rtx-4090")["presets"]}
    assert presets["llama-3.2-1b"]["best_format"] == "bf16"
    assert presets["gpt-oss-20b"]["best_format"] == "mxfp4"  # published in MXFP4
    assert presets["llama-2-13b"]["best_format"] == "q8_0"  # 26 GB in 16 bits: the richest that fits
    models = catalog().models
    for model_id, row in presets.items():
        model = ModelSpec.from_preset(model_id, models[model_id])
        quant = types.SimpleNamespace(group_size=128, double_quant=True, bpw=None)
        assert row["best_format"] is None or not beyond_published(model, row["best_format"], quant), model_id
        assert beyond_published(model, "fp32", quant) == (model.published_format != "fp32")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_training_that_fits_only_with_gradient_checkpointing_says_so(lang):
    """QLoRA of an 8B model at 4,096 tokens needs ~26 GiB without recomputing activations, ~10 GiB with it (PEFT
    turns it on for QLoRA by default): on a 24 GB card the answer names that setting and what it then needs."""
    from atlas.core import calcview, l10n
    from atlas.core.calcview import numbers
    from calculators_support import ok

    params = {"model": "llama-3.1-8b", "mode": "qlora", "device": "rtx-4090"}
    short = ok("vram", lang, **params)["verdict"]
    recomputed = ok("vram", lang, **params, gradient_checkpointing="true")["verdict"]
    assert not short["fits"] and recomputed["fits"]
    assert short["suggestions"]["gradient_checkpointing_gib"] == pytest.approx(recomputed["need_gib"])
    assert recomputed["suggestions"]["gradient_checkpointing_gib"] is None
    assert ok("vram", lang, model="llama-3.1-70b", device="rtx-4090")["verdict"]["suggestions"][
        "gradient_checkpointing_gib"] is None  # inference: no activations to recompute
    html = calcview.render({"command": "vram", "params": params, "lang": lang}, catalog())["html"]
    sentence = l10n.t(lang, "verdict.suggest.gradient_checkpointing", gib="@").split("@")[0]
    assert sentence in html and numbers.gib(recomputed["need_gib"], lang) in html
    context = l10n.t(lang, "verdict.suggest.context", context="@").split("@")[0]
    assert context in html and html.index(sentence) < html.index(context)  # the usual remedy first

"""Measured power beside the energy per token at TDP (issue 37, item 2): the data field, its check and the answer."""

from __future__ import annotations

import copy

import pytest

from atlas.data.checks.inference import cases as file_cases
from atlas.data.dataset import load_dataset
from atlas.data.schema import validator
from tests.calculators_support import result

RTX5090_QWEN7B = {"workload": "decode", "device": "rtx-5090", "model": "qwen2.5-7b", "weights": "q4_k_m"}


@pytest.fixture(scope="module")
def dataset():
    return load_dataset()


def power_case(dataset, device: str, model: str, weights: str) -> dict:
    """The data set's case with a measured power for ``device``, ``model`` and ``weights`` (decode)."""
    found = [case for entry in dataset.inference.values() for case in file_cases(entry)
             if case.get("device") == device and case.get("model") == model
             and case.get("weights") == weights and case.get("power_w")]
    assert len(found) == 1
    return found[0]


def test_the_rtx_5090_run_states_board_power_as_its_log_does(dataset):
    case = power_case(dataset, "rtx-5090", "qwen2.5-7b", "q4_k_m")
    assert case["power_w"] == 411.68 and case["power_scope"] == "board"
    assert case["decode_tokens_per_s"] == 209.208776
    assert "Avg Power -> 411.680000W" in case["quote"]


@pytest.mark.parametrize("change, words", [
    ({"power_w": -5}, "less than or equal to the minimum of 0"),
    ({"power_w": "400 W"}, "is not of type 'number'"),
    ({"power_scope": "card"}, "is not one of"),
    ({"power_scope": None}, "'power_scope' is a dependency of 'power_w'"),
])
def test_a_bad_measured_power_is_refused_with_a_message(dataset, change, words):
    entry = copy.deepcopy(dataset.inference["benchmark-rtx5090-token-per-watt"])
    case = entry["cases"][0]
    for key, value in change.items():
        if value is None:
            del case[key]
        else:
            case[key] = value
    messages = [error.message for error in validator("inference.schema.json").iter_errors(entry)]
    assert any(words in message for message in messages), messages


@pytest.mark.parametrize("lang, words", [
    ("en", ("Measured power: 412\u00a0W", "the graphics card alone", "J per token", "upper bound")),
    ("de", ("Gemessene Leistung: 412\u00a0W", "nur die Grafikkarte", "J je Token", "Obergrenze")),
])
def test_a_device_with_measured_power_shows_it_beside_the_tdp_figure(dataset, lang, words):
    out = result("speed", RTX5090_QWEN7B, lang)
    energy = out["device"]["energy"]
    measured_w = power_case(dataset, "rtx-5090", "qwen2.5-7b", "q4_k_m")["power_w"]
    assert energy["measured"]["power_w"] == measured_w and energy["measured"]["power_scope"] == "board"
    assert energy["measured"]["joules_per_token"] == pytest.approx(measured_w / out["device"]["tokens_per_s"])
    assert energy["joules_per_token"] == pytest.approx(575 / out["device"]["tokens_per_s"])  # TDP stays the bound
    assert energy["measured"]["joules_per_token"] < energy["joules_per_token"]
    notes = [n["message"] for n in out["notes"] if n["key"] == "note.energy_measured_board"]
    assert len(notes) == 1
    assert all(word in notes[0] for word in words), notes[0]
    from atlas.core import l10n

    joules = l10n.format_number(energy["measured"]["joules_per_token"], lang, 2)  # the measured watts / the estimate
    assert 1.5 < energy["measured"]["joules_per_token"] < 2.5 and f"{joules}\u00a0J " in notes[0]
    assert "note.energy_tdp" in [n["key"] for n in out["notes"]]


def test_a_device_without_measured_power_shows_no_such_line():
    out = result("speed", {"workload": "decode", "device": "rtx-4090", "model": "qwen2.5-7b", "weights": "q4_k_m"})
    assert "measured" not in out["device"]["energy"]
    assert not [n for n in out["notes"] if n["key"].startswith("note.energy_measured")]
    assert "note.energy_tdp" in [n["key"] for n in out["notes"]]


@pytest.mark.parametrize("lang, shown", [("en", "while Qwen2.5 7B ran on vLLM at 150"),
                                         ("de", "während Qwen2.5 7B unter vLLM mit 150\u00a0Tokens/s lief")])
def test_the_measured_power_note_names_the_engine_by_its_label(lang, shown):
    """The note carries the engine's id ("vllm"); the reader sees its name ("vLLM"), in either phase's wording."""
    from atlas.core.calculators.messages import render_text

    text = render_text("note.energy_measured_board", {"watts": 300.0, "source": "S", "model": "Qwen2.5 7B",
                                                      "engine": "vllm", "measured_tps": 150.0, "device": "H100 SXM",
                                                      "joules": 2.0}, lang)
    assert shown in text and "vllm" not in text

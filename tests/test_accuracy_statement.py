"""The error statement next to a speed result belongs to the case's own group (issue 33).

Figures are the committed cross-validated ones (``atlas/data/fit_report.json`` → ``atlas/core/calculators/accuracy_groups.py``).
"""

from __future__ import annotations

import html
import re

import pytest

from atlas.core.calculators import accuracy_groups, trust
from atlas.data import accuracy
from calculators_support import ok
from conftest import shared_dataset

NNBSP = "\u202f"


def test_committed_groups_are_what_the_committed_report_gives():
    report = accuracy.load_report()
    assert accuracy.groups_module(report, shared_dataset().devices) == accuracy.GROUPS_PY.read_text(encoding="utf-8")
    for phase, figures in report["summary"]["cross_validated"].items():
        if phase != "all":
            assert accuracy_groups.GROUPS[phase] == {k: v for k, v in figures.items() if k != "worst_ratio"}


def speed_accuracy(**params):
    return ok("speed", model="llama-3.1-8b", **params)["device"]["accuracy"]


def test_h100_with_vllm_at_batch_1_says_there_are_no_vllm_cases_and_whose_figure_it_shows():
    a = speed_accuracy(device="h100-sxm")
    # 738: the refit of 2026-12-07 added the serving sources of issue 33 (none of them vLLM at batch 1 on one device).
    assert (a["engine"], a["level"], a["engine_cases"], a["cases"]) == ("vllm", "phase", 0, 738)
    assert trust.statement(a, "en") == (
        "There are no published measurements of generation on one device at batch 1 with vLLM; the figure is for all "
        f"engines together (cross-validated, 738 published measurements): half within ±11{NNBSP}%, four in five "
        f"within ±27{NNBSP}%.")
    assert trust.statement(a, "de") == (
        "Für vLLM gibt es keine veröffentlichten Messungen zur Tokenerzeugung auf einem Gerät mit Batch 1; die Angabe "
        "gilt für alle Engines zusammen (kreuzvalidiert, 738 veröffentlichte Messungen): die Hälfte liegt innerhalb "
        f"von ±11{NNBSP}%, vier von fünf innerhalb von ±27{NNBSP}%.")


def test_batched_vllm_gets_the_vllm_figure_not_the_phase_one():
    # On a GeForce card vLLM has too few batched measurements of its own class: the figure is vLLM's on any device.
    a = speed_accuracy(device="rtx-4090", engine="vllm", batch=8)
    assert (a["level"], a["key"], a["cases"], a["within_0.8_1.25"]) == ("engine", "decode-multi-or-batched|vllm", 80,
                                                                        0.4625)
    en = trust.statement(a, "en")
    assert "with vLLM on any device, as there are too few measurements on GeForce and RTX workstation cards" in en
    assert f"80 published measurements): half within ±29{NNBSP}%, four in five within ±85{NNBSP}%." in en
    de = trust.statement(a, "de")
    assert "mit vLLM auf beliebigen Geräten, weil es auf GeForce- und RTX-Workstation-Karten zu wenige Messungen" in de
    assert f"80 veröffentlichte Messungen): die Hälfte liegt innerhalb von ±29{NNBSP}%" in de


def test_batched_vllm_on_a_data_centre_gpu_gets_the_figure_of_its_class():
    # The H100 concurrency sweep with vLLM (tim-wang-blog) gave NVIDIA's data-centre GPUs a class figure of their own.
    a = speed_accuracy(device="h100-sxm", batch=8)
    assert (a["level"], a["key"], a["cases"], a["within_0.8_1.25"]) == (
        "class", "decode-multi-or-batched|vllm|nvidia-datacenter", 28, 0.3571)
    assert trust.statement(a, "en") == (
        "Cases like this (generation batched or on several devices with vLLM on NVIDIA data-centre GPUs; "
        f"cross-validated, 28 published measurements): half within ±59{NNBSP}%, four in five within ±110{NNBSP}%.")
    assert trust.statement(a, "de") == (
        "Ähnliche Fälle (Tokenerzeugung mit Batch > 1 oder auf mehreren Geräten mit vLLM auf "
        f"NVIDIA-Rechenzentrums-GPUs; kreuzvalidiert, 28 veröffentlichte Messungen): die Hälfte liegt innerhalb von "
        f"±59{NNBSP}%, vier von fünf innerhalb von ±110{NNBSP}%.")


@pytest.mark.parametrize(("params", "key", "cases", "en", "de"), [
    ({"device": "rtx-4090", "weights": "q4_k_m"}, "decode-single-batch1|llama.cpp|nvidia-geforce", 87,
     f"Cases like this (generation on one device at batch 1 with llama.cpp on GeForce and RTX workstation cards; "
     f"cross-validated, 87 published measurements): half within ±5{NNBSP}%, four in five within ±12{NNBSP}%.",
     f"Ähnliche Fälle (Tokenerzeugung auf einem Gerät mit Batch 1 mit llama.cpp auf GeForce- und "
     f"RTX-Workstation-Karten; kreuzvalidiert, 87 veröffentlichte Messungen): die Hälfte liegt innerhalb von "
     f"±5{NNBSP}%, vier von fünf innerhalb von ±12{NNBSP}%."),
    ({"device": "rtx-4090", "weights": "q4_k_m", "workload": "prefill"}, "prefill|llama.cpp|nvidia-geforce", 138,
     f"Cases like this (prompt processing with llama.cpp on GeForce and RTX workstation cards; cross-validated, "
     f"138 published measurements): half within ±38{NNBSP}%, four in five within ±67{NNBSP}%.",
     f"Ähnliche Fälle (Verarbeitung des Prompts mit llama.cpp auf GeForce- und RTX-Workstation-Karten; "
     f"kreuzvalidiert, 138 veröffentlichte Messungen): die Hälfte liegt innerhalb von ±38{NNBSP}%, vier von fünf "
     f"innerhalb von ±67{NNBSP}%."),
    ({"device": "apple-m4-max", "weights": "q4_k_m"}, "decode-single-batch1|llama.cpp|apple", 97,
     f"Cases like this (generation on one device at batch 1 with llama.cpp on Apple GPUs; cross-validated, 97 "
     f"published measurements): half within ±16{NNBSP}%, four in five within ±30{NNBSP}%.",
     f"Ähnliche Fälle (Tokenerzeugung auf einem Gerät mit Batch 1 mit llama.cpp auf Apple-GPUs; kreuzvalidiert, 97 "
     f"veröffentlichte Messungen): die Hälfte liegt innerhalb von ±16{NNBSP}%, vier von fünf innerhalb von "
     f"±30{NNBSP}%."),
])
def test_a_case_with_enough_measurements_of_its_own_class_gets_their_figure(params, key, cases, en, de):
    a = speed_accuracy(**params)
    assert (a["level"], a["key"], a["cases"]) == ("class", key, cases)
    assert trust.statement(a, "en") == en
    assert trust.statement(a, "de") == de


def test_too_few_engine_cases_fall_back_to_the_phase_and_say_how_many():
    groups = {**accuracy_groups.GROUPS, "prefill|sglang": {**accuracy_groups.GROUPS["prefill"], "cases": 3}}
    a = trust.accuracy_for("prefill", 1, 1, "sglang", "nvidia-datacenter", groups)
    assert (a["level"], a["engine_cases"], a["cases"]) == ("phase", 3, 983)
    assert trust.statement(a, "en").startswith(
        "There are too few published measurements of prompt processing with SGLang for a figure of their own (3, "
        "at least 10 needed); the figure is for all engines together (cross-validated, 983 published measurements)")
    assert trust.statement(a, "de").startswith(
        "Für SGLang gibt es zu wenige veröffentlichte Messungen zur Verarbeitung des Prompts für eine eigene Angabe "
        "(3, nötig sind mindestens 10)")


def test_no_measured_cases_at_all_says_so():
    a = trust.accuracy_for("decode", 2, 1, "sglang", "amd-instinct", {})
    assert (a["level"], a["cases"]) == ("none", 0)
    assert trust.statement(a, "en") == ("No published measurements are like this case (generation batched or on "
                                        "several devices with SGLang): how far this estimate may be off is not known.")
    assert trust.statement(a, "de") == ("Keine veröffentlichte Messung ähnelt diesem Fall (Tokenerzeugung mit Batch > 1 "
                                        "oder auf mehreren Geräten mit SGLang): Wie weit diese Schätzung danebenliegen "
                                        "kann, ist nicht bekannt.")


@pytest.mark.parametrize(("lang", "sentence"), [
    ("en", "There are no published measurements of generation on one device at batch 1 with vLLM; the figure is for "
           "all engines together"),
    ("de", "Für vLLM gibt es keine veröffentlichten Messungen zur Tokenerzeugung auf einem Gerät mit Batch 1; die "
           "Angabe gilt für alle Engines zusammen"),
])
def test_the_speed_page_shows_the_statement_of_the_case(lang, sentence):
    from atlas.core import calcview
    from calculators_support import catalog

    out = calcview.render({"command": "speed", "params": {"model": "llama-3.1-8b", "device": "h100-sxm"},
                           "lang": lang}, catalog())
    assert out["ok"]
    shown = re.search(r'<p class="atlas-calc-accuracy">(.*?)</p>', out["html"], re.S).group(1)
    assert sentence in html.unescape(shown)

"""Checks on a file of published inference measurements (``data/inference/``) that JSON Schema cannot express.

``cases(entry)`` merges each case with the file's ``defaults`` — the one
place that rule lives (the fit and the accuracy page call it too).
``inference_problems`` checks one file on its own: every case says what it
measured, with the fields that measurement needs; dates are past.
``inference_references`` (a cross check) checks every case against the
devices and models: the ids exist. (A memory size the device file does not
list as a configuration is allowed: the fit then uses the device's default
bandwidth.) A weight format the calculators do not model (an
Unsloth mix, a vendor's own block format) is kept as the source names it;
the fit refuses such a case and says why.
"""

from __future__ import annotations

import datetime

from atlas.data.checks.common import not_in_future

LLM_RESULTS = ("prefill_tokens_per_s", "decode_tokens_per_s")


def cases(entry: dict) -> list[dict]:
    """The file's cases, each with the file's ``defaults`` filled in (a case's own value wins)."""
    defaults = entry.get("defaults", {})
    return [{**defaults, **case} for case in entry.get("cases", [])]


def case_problems(case: dict) -> list[tuple[tuple, str]]:
    """Problems of one merged case (paths relative to the case)."""
    problems = []
    kind = case.get("kind", "llm")
    if "device" not in case:
        problems.append(((), "names no device"))
    if kind == "llm":
        for key in ("model", "engine"):
            if key not in case:
                problems.append(((), f"an llm case needs '{key}'"))
        if not any(key in case for key in LLM_RESULTS):
            problems.append(((), "an llm case needs prefill_tokens_per_s or decode_tokens_per_s"))
        if "prefill_tokens_per_s" in case and not case.get("prompt_tokens"):
            problems.append((("prompt_tokens",), "a prefill result needs prompt_tokens"))
        if case.get("num_devices", 1) > 1 and case.get("split") == "none":
            problems.append((("split",), "several devices cannot have split 'none' (leave it out when the source does not say)"))
    elif kind == "matmul":
        for key in ("precision", "matmul_tflops"):
            if key not in case:
                problems.append(((), f"a matmul case needs '{key}'"))
    elif kind == "bandwidth" and "bandwidth_gb_s" not in case:
        problems.append(((), "a bandwidth case needs 'bandwidth_gb_s'"))
    return problems


def inference_problems(entry: dict, today: datetime.date | None = None) -> list[tuple[tuple, str]]:
    """Problems of one schema-valid file on its own."""
    today = today or datetime.date.today()
    problems = []
    if not not_in_future(entry["source"]["accessed"], today):
        problems.append((("source", "accessed"), f"{entry['source']['accessed']} is not a past date"))
    for i, case in enumerate(cases(entry)):
        for path, message in case_problems(case):
            problems.append((("cases", i) + path, message))
        if "date" in case and not not_in_future(case["date"], today):
            problems.append((("cases", i, "date"), f"{case['date']} is not a past date"))
    return problems


def reference_problems(entry: dict, devices: dict, models: dict) -> list[tuple[tuple, str]]:
    """Problems of one file's cases against the devices and models."""
    problems = []
    for i, case in enumerate(cases(entry)):
        device = devices.get(case.get("device"))
        if case.get("device") and device is None:
            problems.append((("cases", i, "device"), f"unknown device '{case['device']}'"))
        if case.get("model") and case["model"] not in models:
            problems.append((("cases", i, "model"), f"unknown model '{case['model']}'"))
    return problems


def inference_references(dataset) -> list:
    """DataErrors of every inference case checked against devices, models and weight formats."""
    return [
        dataset.error("inference", entry_id, path, message)
        for entry_id, entry in dataset.inference.items()
        for path, message in reference_problems(entry, dataset.devices, dataset.models)
    ]

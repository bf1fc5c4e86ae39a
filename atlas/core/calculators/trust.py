"""The error statement shown with a speed result: the cross-validated error of the measured cases most like it.

The figures come from ``atlas.core.calculators.accuracy_groups`` (written from ``atlas/data/fit_report.json`` by
``python -m atlas.data fit``, each case predicted by a fit that left its source out), grouped by

1. phase: generation at batch 1 on one device, generation batched or on several devices, prompt processing;
2. phase and engine;
3. phase, engine and device class (``engines.device_class``).

The finest group with at least ``MIN_CASES`` measurements answers. Where the engine has too few or none, the
phase group answers and the sentence says so, naming the group the figure is for; with no phase figures either,
the sentence says that no measured cases are like this one.

Plain values in, plain values out; standard library only (it runs in the browser too).
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.calculators import accuracy_groups

MIN_CASES = 10  # fewer measurements make a median and an 80th percentile that say little


def phase_group(workload: str, num_devices: int, batch: int) -> str:
    """The phase group of ``atlas.data.fit_speed.case_group``: prefill, decode-single-batch1, decode-multi-or-batched."""
    if workload == "prefill":
        return "prefill"
    return "decode-single-batch1" if num_devices == 1 and batch == 1 else "decode-multi-or-batched"


def group_key(phase: str, engine: str | None = None, device_class: str | None = None) -> str:
    """'prefill', 'prefill|llama.cpp' or 'prefill|llama.cpp|nvidia-geforce': the keys of ``accuracy_groups.GROUPS``."""
    return "|".join(part for part in (phase, engine, device_class) if part)


def accuracy_for(workload: str, num_devices: int, batch: int, engine: str, device_class: str,
                 groups: dict | None = None) -> dict:
    """The cross-validated error of the finest group of measured cases this case belongs to.

    ``level`` says which group answered: ``class`` (phase, engine and device class), ``engine`` (phase and
    engine, all device classes), ``phase`` (phase, all engines; ``engine_cases`` says how many measurements the
    engine has in it) or ``none`` (no measured cases in the phase at all: no figures).
    """
    table = accuracy_groups.GROUPS if groups is None else groups
    phase = phase_group(workload, num_devices, batch)
    case = {"group": phase, "engine": engine, "device_class": device_class}
    for level, key in (("class", group_key(phase, engine, device_class)), ("engine", group_key(phase, engine))):
        figures = table.get(key)
        if figures and figures["cases"] >= MIN_CASES:
            return {**case, "level": level, "key": key, **figures}
    figures = table.get(phase)
    if not figures:
        return {**case, "level": "none", "key": None, "cases": 0}
    engine_cases = table.get(group_key(phase, engine), {}).get("cases", 0)
    return {**case, "level": "phase", "key": phase, "engine_cases": engine_cases, **figures}


def _pct(value: float, lang: str) -> str:
    return l10n.format_number(100 * value, lang, 0)


def statement(accuracy: dict, lang: str) -> str:
    """The sentence shown next to a speed result: which group of measured cases, how many, how far off."""
    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    params = {"engine": t(f"engine.{accuracy['engine']}"), "group": t(f"accuracy.case_group.{accuracy['group']}"),
              "on_class": t(f"accuracy.on_class.{accuracy['device_class']}")}
    level = accuracy["level"]
    if level == "none":
        return t("accuracy.case.none", **params)
    params.update(cases=l10n.format_number(accuracy["cases"], lang, 0), median=_pct(accuracy["median_abs_error"], lang),
                  p80=_pct(accuracy["p80_abs_error"], lang))
    if level == "phase":
        if accuracy["engine_cases"]:
            return t("accuracy.case.phase_few", engine_cases=l10n.format_number(accuracy["engine_cases"], lang, 0),
                     min=l10n.format_number(MIN_CASES, lang, 0), **params)
        return t("accuracy.case.phase", **params)
    return t(f"accuracy.case.{level}", **params)

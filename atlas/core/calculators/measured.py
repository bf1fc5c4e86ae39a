"""What others measured on the same hardware, listed beside an estimate (never used to make it).

The speed estimate is a prediction from the model's and the device's parameters (``atlas.core.calculators.speed_model``).
A reader trusts it more, and can judge it, when the published measurements for the same device are next to it:
the same model first, then models of about the same size and kind (a dense 8B beside a dense 7B; a mixture of
experts beside one with about as many total and active parameters). The measurements come from the data set's
``data/inference/`` files through the export (``Catalog.measurements``); each row keeps its source.
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.calculators.devices import split_choice
from atlas.core.calculators.models import ModelSpec

# A model counts as "about the same size" when its total parameters are within this factor of the asked one,
# and, for a mixture of experts, its active parameters too.
SIZE_FACTOR = 1.25
ACTIVE_FACTOR = 1.5
SHOWN_ROWS = 6

PHASE_FIELD = {"decode": "decode_tokens_per_s", "prefill": "prefill_tokens_per_s"}


def _within(a: float, b: float, factor: float) -> bool:
    return a > 0 and b > 0 and 1 / factor <= a / b <= factor


def similar(model: ModelSpec, other: ModelSpec) -> bool:
    """``other`` is of ``model``'s kind (dense or mixture of experts) and about its size (``SIZE_FACTOR``)."""
    if model.is_moe != other.is_moe or not _within(model.params, other.params, SIZE_FACTOR):
        return False
    return not model.is_moe or _within(model.active, other.active, ACTIVE_FACTOR)


def _spec(model_id: str, presets: dict, cache: dict) -> ModelSpec | None:
    if model_id not in cache:
        try:
            cache[model_id] = ModelSpec.from_preset(model_id, presets[model_id])
        except (KeyError, TypeError, ValueError):
            cache[model_id] = None
    return cache[model_id]


def alongside(measurements: list[dict], presets: dict, device_choice: str, model: ModelSpec, phase: str,
              num_devices: int = 1, batch: int = 1, weights: str | None = None, engine: str | None = None,
              limit: int = SHOWN_ROWS) -> dict:
    """The measured cases to show beside an estimate of ``model`` on ``device_choice`` for ``phase``.

    Returns ``{"cases": [row, ...], "total": n}``: at most ``limit`` rows, the same model first, then similar
    models (``similar``); within each, the same weight format, batch and engine first, then the newest. A row is
    ``{"match": "same_model" | "similar_model", "model", "engine", "weights", "num_devices", "batch",
    "prompt_tokens", "generated_tokens", "context_depth", "tokens_per_s", "date", "source": {url, title,
    publisher}}`` (fields the source does not state are absent). ``total`` counts all matching cases.
    """
    field = PHASE_FIELD.get(phase)
    if field is None:
        return {"cases": [], "total": 0}
    try:
        device_id, _ = split_choice(device_choice)
    except ValueError:
        return {"cases": [], "total": 0}
    specs: dict = {}
    found = []
    for case in measurements:
        if case.get("device") != device_id or case.get("num_devices", 1) != num_devices or field not in case:
            continue
        if case.get("model") == model.id:
            match = "same_model"
        else:
            other = _spec(case.get("model"), presets, specs)
            if other is None or not similar(model, other):
                continue
            match = "similar_model"
        found.append((match, case))

    def rank(item):
        match, case = item
        return (match != "same_model", case.get("weights") != weights, case.get("batch", 1) != batch,
                case.get("engine") != engine, _negated_date(case.get("date")))

    found.sort(key=rank)
    rows = []
    for match, case in found[:limit]:
        row = {"match": match, "tokens_per_s": case[field]}
        for key in ("model", "engine", "weights", "num_devices", "batch", "prompt_tokens", "generated_tokens",
                    "context_depth", "memory_gib", "date", "source"):
            if key in case:
                row[key] = case[key]
        spec = _spec(case.get("model"), presets, specs)
        row["model_name"] = spec.name if spec else str(case.get("model"))
        rows.append(row)
    return {"cases": rows, "total": len(found)}


def _negated_date(date) -> tuple:
    """Sort key that puts the newest date first and undated cases last."""
    if not isinstance(date, str):
        return (1, ())
    return (0, tuple(-int(part) for part in date.split("-") if part.isdigit()))


def _label(lang: str, prefix: str, value) -> str:
    key = f"{prefix}.{value}"
    return l10n.t(lang, key) if key in l10n.labels(lang) else str(value)


def described(row: dict, lang: str) -> dict:
    """The text of one row of ``alongside`` in ``lang``: ``{"model", "engine", "setup", "tokens_per_s", "date"}``."""
    number = lambda value: l10n.format_number(value, lang, 0)  # noqa: E731
    engine = (l10n.t(lang, "measured.engine_other") if row.get("engine", "other") == "other"
              else _label(lang, "engine", row["engine"]))
    if row.get("weights"):
        engine += " · " + _label(lang, "format", row["weights"])
    setup = [l10n.t(lang, "measured.batch", batch=number(row.get("batch", 1)))]
    if row.get("num_devices", 1) > 1:
        setup.append(l10n.t(lang, "measured.devices", count=number(row["num_devices"])))
    if row.get("prompt_tokens"):
        setup.append(l10n.t(lang, "measured.prompt", tokens=number(row["prompt_tokens"])))
    if row.get("generated_tokens"):
        setup.append(l10n.t(lang, "measured.generated", tokens=number(row["generated_tokens"])))
    if row.get("context_depth"):
        setup.append(l10n.t(lang, "measured.depth", tokens=number(row["context_depth"])))
    if row.get("memory_gib"):
        setup.append(l10n.t(lang, "measured.memory", gib=number(row["memory_gib"])))
    model = row.get("model_name", "")
    if row.get("match") == "similar_model":
        model += f" ({l10n.t(lang, 'measured.similar')})"
    return {"model": model, "engine": engine, "setup": ", ".join(setup),
            "tokens_per_s": l10n.format_significant(row["tokens_per_s"], lang, 3), "date": row.get("date", "")}


def measured_power(measurements: list[dict], device_choice: str, phase: str, model_id: str | None = None,
                   num_devices: int = 1, engine: str | None = None, weights: str | None = None) -> dict | None:
    """The measured power (``power_w``, ``power_scope``) the data set has for ``device_choice`` with
    ``num_devices`` devices in ``phase``, or None: the case of the same model first, then of the same weight format,
    then of the same engine, then the newest. Returns ``{"power_w", "power_scope", "model", "engine", "weights", "tokens_per_s", "source"}``."""
    field = PHASE_FIELD.get(phase)
    try:
        device_id, _ = split_choice(device_choice)
    except ValueError:
        return None
    found = [case for case in measurements
             if field and case.get("device") == device_id and case.get("num_devices", 1) == num_devices
             and field in case and case.get("power_w") and case.get("power_scope")]
    if not found:
        return None
    found.sort(key=lambda case: (case.get("model") != model_id, case.get("weights") != weights,
                                 case.get("engine") != engine,
                                 _negated_date(case.get("date"))))
    best = found[0]
    row = {"power_w": best["power_w"], "power_scope": best["power_scope"], "tokens_per_s": best[field]}
    for key in ("model", "engine", "weights", "source"):
        if key in best:
            row[key] = best[key]
    return row

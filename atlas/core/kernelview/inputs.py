"""The demos' parameters: names, kinds, defaults; reading them from a form or a link.

A parameter's name is the form field's name, the URL query key and the key
of ``request["params"]``. Numbers may be typed the way either language
writes them ("2,5" or "2.5", whole numbers also grouped: "1.024"); an empty
field takes the default. Whether a number is acceptable is decided by the
kernel module that uses it (``atlas.core.kernels.systolic.whole``,
``atlas.core.kernels.roofline.positive``), which raises ``InputError`` with a
translation key; ``field_error`` turns that into the message a reader sees,
quoting what they typed.

Parameters (units in brackets):

systolic
  size       processing elements per side of the square array
  m          rows of X (the activations streamed through; tokens in a batch)
  k          columns of X = rows of W
  n          columns of W
roofline
  device     device id as in ``data/``
  precision  fp64 fp32 tf32 bf16 fp16 fp8 fp6 fp4 int8 int4
  intensity  arithmetic intensity [operations per byte moved to or from memory]
"""

from __future__ import annotations

import math

from atlas.core import l10n
from atlas.core.calculators.inputs import parse_number, suggestions
from atlas.core.calculators.messages import render_text

# demo -> ((name, kind, default), ...) in form order; kind: int, float, device or precision.
PARAMETERS: dict[str, tuple[tuple[str, str, object], ...]] = {
    "systolic": (("size", "int", 8), ("m", "int", 8), ("k", "int", 8), ("n", "int", 8)),
    "roofline": (("device", "device", "h100-sxm"), ("precision", "precision", "bf16"), ("intensity", "float", 100)),
}


def defaults(demo: str) -> dict:
    """The default value of every parameter of ``demo``."""
    return {name: value for name, _, value in PARAMETERS[demo]}


def default(demo: str, name: str):
    return defaults(demo)[name]


def _blank(raw) -> bool:
    return raw is None or (isinstance(raw, str) and not raw.strip())


def _value(kind: str, raw):
    """What the kernel function gets: a number where the text reads as one, else the text itself
    (the kernel function then says it is not a number)."""
    if kind in ("device", "precision"):
        return str(raw).strip().lower()
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return raw
    try:
        number = parse_number(str(raw), kind == "int")
    except ValueError:
        return str(raw).strip()
    return int(number) if kind == "int" and math.isfinite(number) and number.is_integer() else number


def read(demo: str, params: dict, lang: str) -> tuple[dict, dict, list[dict]]:
    """(values for the kernel functions, the text each parameter was given as, warnings).

    Blank parameters take their defaults; names ``demo`` does not know are
    left out and reported as warnings (a mistyped link still shows a result).
    """
    known = {name: kind for name, kind, _ in PARAMETERS[demo]}
    values, typed, warnings = defaults(demo), {}, []
    for key, raw in params.items():
        if key not in known:
            name = str(key)[:60]
            warnings.append(message(name, "error.unknown_param", lang, name=name, suggestions=suggestions(name, known)))
            continue
        if _blank(raw):
            continue
        typed[key] = str(raw).strip()[:40]
        values[key] = _value(known[key], raw)
    return values, typed, warnings


def message(where: str | None, key: str, lang: str, **params) -> dict:
    """A problem with the parameter ``where`` (None: the whole request) as the page gets it:
    ``{"field", "key", "params", "message"}``, the message in ``lang``."""
    return {"field": where, "key": key, "params": params, "message": render_text(key, params, lang)}


def field_error(exc, typed: dict, lang: str) -> dict:
    """The message for a kernel module's ``InputError``, quoting the text the reader typed."""
    params = dict(exc.params)
    if "value" in params and exc.field in typed:
        params["value"] = typed[exc.field]
    shown = {k: l10n.format_number(v, lang, 0) if isinstance(v, int) else v for k, v in params.items()}
    return {"field": exc.field, "key": exc.key, "params": params, "message": l10n.t(lang, exc.key, **shown)}

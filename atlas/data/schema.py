"""JSON Schema validation of one data file, with messages a contributor reads.

jsonschema's own messages are written for programmers ("Additional
properties are not allowed ('foo' was unexpected)"); this module turns each
error into a short sentence and the exact path of the offending value.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from jsonschema import Draft202012Validator

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "data" / "schema"


@cache
def load_schema(name: str) -> dict:
    """Load ``data/schema/<name>`` (a JSON Schema, draft 2020-12)."""
    with open(SCHEMA_DIR / name, encoding="utf-8") as fh:
        schema = json.load(fh)
    Draft202012Validator.check_schema(schema)
    return schema


@cache
def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(load_schema(name))


# Field names that carry a unit (capacity_gib, bandwidth_gb_s, tdp_w, total_b, tflops, value): a value too
# large for them is usually typed in another unit.
_UNIT_SUFFIX = re.compile(r"(_gib|_gb_s|_w|_b|usd|usd_high|tflops|value)$")


def _short(value, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _message(error) -> tuple[tuple, str]:
    """(path, sentence) for one jsonschema error."""
    path = tuple(error.absolute_path)
    kind = error.validator
    arg = error.validator_value
    inst = error.instance
    if kind == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(inst) - set(allowed)) if isinstance(inst, dict) else []
        if extra:
            return path + (extra[0],), (f"unknown key '{extra[0]}' (allowed here: {', '.join(allowed)})")
    if kind == "required":
        missing = [k for k in arg if isinstance(inst, dict) and k not in inst]
        if missing:
            return path + (missing[0],), f"missing required key '{missing[0]}'"
    if kind == "type":
        return path, f"must be of type {arg}, got {_short(inst)}"
    if kind == "enum":
        return path, f"must be one of {', '.join(map(str, arg))}; got {_short(inst)}"
    if kind == "const":
        return path, f"must be {_short(arg)}; got {_short(inst)}"
    if kind == "exclusiveMinimum":
        return path, f"must be greater than {arg}; got {_short(inst)}"
    if kind == "minimum":
        return path, f"must be at least {arg}; got {_short(inst)}"
    if kind in ("maximum", "exclusiveMaximum"):
        hint = " (check the unit)" if path and _UNIT_SUFFIX.search(str(path[-1])) else ""
        return path, f"must be at most {arg}{hint}; got {_short(inst)}"
    if kind == "pattern":
        return path, f"does not have the expected form (pattern {arg}); got {_short(inst)}"
    if kind in ("minLength", "minItems", "minProperties"):
        return path, "must not be empty"
    if kind == "maxLength":
        return path, f"is longer than {arg} characters"
    return path, error.message


def schema_problems(data, schema_name: str) -> list[tuple[tuple, str]]:
    """All schema violations of ``data`` as (path, message), in document order."""
    problems = []
    for error in validator(schema_name).iter_errors(data):
        # For oneOf/anyOf, the most specific sub-error is the useful one.
        best = error
        if error.context:
            best = min(error.context, key=lambda e: -len(e.absolute_path))
        problems.append(_message(best))
    problems.sort(key=lambda p: [str(x) for x in p[0]])
    return problems

"""Turn a demo's ``--json`` result into a measurement file for ``data/measurements/``.

    python atlas/demos/matmul_torch.py --precision bf16 --size 8192 --json > result.json
    python -m atlas.demos record result.json

writes ``data/measurements/<device id>/<id>.yaml`` (``unmatched/`` when no
data-set device matched) and validates the data set with it. A measurement
stores what was measured, never the peak: pages look the peak up in the
device's file, so a corrected datasheet figure corrects every percentage.
Results whose check failed, or that ran in Triton's interpreter, are refused.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from atlas.demos import REPO_ROOT

MEASUREMENTS_DIR = REPO_ROOT / "data" / "measurements"
POINT_KEYS = ("fmas", "intensity", "seconds", "achieved_tflops", "achieved_gb_s")
HEADER = "# yaml-language-server: $schema=../../schema/measurement.schema.json\n"


class RecordError(ValueError):
    pass


def slug(text: str) -> str:
    """'NVIDIA H200' -> 'nvidia-h200'."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "device"


def measurement(result: dict, contributor: str | None = None, notes: str | None = None) -> dict:
    """The measurement entry for one demo result (see data/schema/measurement.schema.json)."""
    if not result.get("check", {}).get("passed"):
        raise RecordError("the result failed its correctness check; fix the kernel before recording it")
    device = result["device"]
    if device.get("platform") == "interpreter":
        raise RecordError("interpreter timings are not hardware measurements")
    params = result["params"]
    param_slug = "-".join(slug(str(v)) for v in params.values() if isinstance(v, (str, int)) and not isinstance(v, bool))
    entry_id = "-".join(part for part in (device.get("id") or slug(device["name"]), result["demo"], result["backend"], param_slug, result["date"]) if part)
    details = {}
    for key, value in (result.get("details") or {}).items():
        if key == "points":
            details["points"] = [{k: pt[k] for k in POINT_KEYS if k in pt} for pt in value]
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            details[key] = value
        elif isinstance(value, list) and all(isinstance(v, int) for v in value):
            details[key] = value
    entry = {
        "schema_version": 1,
        "id": entry_id,
        "demo": result["demo"],
        "backend": result["backend"],
        "device": device.get("id"),
        "device_name": device["name"],
        "platform": device["platform"],
        "params": params,
        "result": {"value": round(result["achieved"]["value"], 6), "unit": result["achieved"]["unit"]},
        "details": details,
        "check": {"relative_error": result["check"]["relative_error"], "tolerance": result["check"]["tolerance"]},
        "software": {k: str(v) for k, v in result["software"].items()},
        "date": result["date"],
        "command": result["command"],
    }
    if contributor:
        entry["contributor"] = contributor
    if notes:
        entry["notes"] = notes
    return entry


def write(entry: dict, out_dir: Path = MEASUREMENTS_DIR) -> Path:
    import yaml

    folder = out_dir / (entry["device"] or "unmatched")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{entry['id']}.yaml"
    text = yaml.safe_dump(entry, sort_keys=False, allow_unicode=True, width=120, default_flow_style=None)
    path.write_text(HEADER + text, encoding="utf-8")
    return path


def read_results(path: Path) -> list[dict]:
    """One JSON object per file, or one per line."""
    text = Path(path).read_text(encoding="utf-8").strip()
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip().startswith("{")]


def main(paths, out: str | None = None, contributor: str | None = None, notes: str | None = None) -> int:
    out_dir = Path(out) if out else MEASUREMENTS_DIR
    written = 0
    for path in paths:
        for result in read_results(path):
            try:
                target = write(measurement(result, contributor, notes), out_dir)
            except (RecordError, KeyError) as exc:
                print(f"{path}: skipped {result.get('demo')}/{result.get('backend')}: {exc}", file=sys.stderr)
                continue
            print(f"wrote {target}")
            written += 1
    if out is None and written:
        from atlas.data.dataset import load_dataset
        from atlas.data.errors import DataValidationError

        try:
            load_dataset()
        except DataValidationError as exc:
            print(exc, file=sys.stderr)
            return 1
    return 0 if written else 1

"""Write a new device file to start a pull request from (``make new-device``).

The new file copies the structure *and the figures* of the most similar
existing device (or the one named with ``--like``), so it validates at once
and the contributor edits values instead of typing keys. To make sure no
copied figure survives by accident, the validator refuses a device whose
memory and compute blocks are identical to another device's.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path

from atlas.data.dataset import DATA_DIR, load_dataset
from atlas.data.yamlfile import read_yaml

ID_PATTERN = re.compile(r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$")
VENDOR_FOLDER = re.compile(r"^[a-z0-9-]+$")


class ScaffoldError(ValueError):
    """The scaffold cannot be written; the message says why."""


def pick_template(devices: dict, kind: str, like: str | None) -> dict:
    """The device to copy: ``like`` if given, else the newest device of ``kind``."""
    if like:
        if like not in devices:
            raise ScaffoldError(f"unknown device id for --like: {like!r}")
        return devices[like]
    same_kind = [d for d in devices.values() if d["kind"] == kind]
    if not same_kind:
        raise ScaffoldError(f"no device of kind {kind!r} to copy; name one with --like")
    return max(same_kind, key=lambda d: (d["launch_year"], d["id"]))


def scaffold_text(
    template_path: Path, template_id: str, new_id: str, name: str, vendor: str, today: datetime.date
) -> str:
    """The template file's text with id, name and vendor replaced and access dates set to ``today``."""
    text = template_path.read_text(encoding="utf-8")
    header = (
        f"# New device, copied from {template_id}: replace EVERY figure and source below with the new\n"
        f"# device's own (make validate refuses figures identical to {template_id}'s).\n"
    )
    lines = []
    for line in text.splitlines():
        if line.startswith("id:"):
            line = f"id: {new_id}"
        elif line.startswith("name:"):
            line = f"name: {name}"
        elif line.startswith("short_name:"):
            continue
        elif line.startswith("vendor:"):
            line = f"vendor: {vendor}"
        elif line.startswith("price:") or line.startswith("notes:"):
            pass
        elif line.startswith("runtime_names:"):  # names identify one device: never copy them
            line = (
                "# runtime_names: [...]  # the name(s) software reports for this device, e.g. "
                "torch.cuda.get_device_name(); see CONTRIBUTING.md"
            )
        line = re.sub(r"^(\s*accessed:\s*).*$", lambda m: m.group(1) + today.isoformat(), line)
        lines.append(line)
    body = "\n".join(lines) + "\n"
    if body.startswith("# yaml-language-server"):
        first, rest = body.split("\n", 1)
        return first + "\n" + header + rest
    return header + body


def write_scaffold(
    new_id: str,
    vendor_folder: str,
    name: str,
    vendor: str,
    kind: str,
    like: str | None = None,
    data_dir: Path = DATA_DIR,
    today: datetime.date | None = None,
) -> Path:
    """Write ``data/hardware/<vendor_folder>/<new_id>.yaml`` and return its path."""
    today = today or datetime.date.today()
    if not ID_PATTERN.match(new_id):
        raise ScaffoldError(f"id {new_id!r} must be lower case letters, digits, '-' and '.' (e.g. rtx-5080)")
    if not VENDOR_FOLDER.match(vendor_folder):
        raise ScaffoldError(f"vendor folder {vendor_folder!r} must be lower case letters, digits and '-'")
    dataset = load_dataset(data_dir)
    if new_id in dataset.devices:
        raise ScaffoldError(f"device {new_id!r} already exists in {dataset.files['devices'][new_id]}")
    template = pick_template(dataset.devices, kind, like)
    template_path = data_dir.parent / dataset.files["devices"][template["id"]]
    if not template_path.exists():  # data_dir outside the repository root
        template_path = next(data_dir.rglob(f"{template['id']}.yaml"))
    target = data_dir / "hardware" / vendor_folder / f"{new_id}.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    text = scaffold_text(template_path, template["id"], new_id, name, vendor, today)
    if kind != template["kind"]:
        text = re.sub(r"(?m)^kind: .*$", f"kind: {kind}", text)
    target.write_text(text, encoding="utf-8")
    # The copy must parse; its figures are refused until edited (see checks.devices).
    read_yaml(target)
    return target

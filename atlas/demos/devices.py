"""Which device is this? The runtime's name matched to the data set.

The demos report the name the runtime gives the device (CUDA device name,
JAX ``device_kind`` of a TPU, the CPU's model name) and match it to an id in
``data/hardware/`` through the entry's ``runtime_names`` (compared ignoring
case and repeated spaces), so a contributor who adds a device adds its names
in the same file. ``--device <id>`` overrides the match. Peaks are never
typed here: they are read from the data set through
``atlas.core.calculators.fields.field_value``, the same lookup the site's tables use.

Which figure a demo compares with is decided by ``atlas.core.calculators.demo_peaks``.
"""

from __future__ import annotations

import difflib
import json
import platform
import subprocess
from pathlib import Path

from atlas.demos import REPO_ROOT

DATA_DIR = REPO_ROOT / "data"

def cpu_name() -> str:
    """The CPU's model name as the operating system reports it ("AMD EPYC 9654 96-Core Processor")."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    if platform.system() == "Darwin":
        try:
            out = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True, timeout=5)
            if out.returncode == 0 and out.stdout.strip():
                return out.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    return platform.processor() or platform.machine() or "unknown CPU"


def match_name(reported: str, devices: dict) -> str | None:
    """The id of the device in ``devices`` (id -> entry) that lists ``reported`` in its ``runtime_names``."""
    from atlas.data.checks.devices import runtime_name_key

    key = runtime_name_key(reported)
    for device_id, device in devices.items():
        if any(runtime_name_key(name) == key for name in device.get("runtime_names") or ()):
            return device_id
    return None


def load_devices(data_dir: Path | str | None = None) -> tuple[dict, str | None]:
    """The data set's devices by id, and a note saying why they are empty when they could not be read.

    Validates with ``atlas.data.dataset`` when PyYAML and jsonschema are installed
    (the site's requirements); with PyYAML alone it reads the files without
    validation and says so; without PyYAML the demos still run and report the
    achieved figure alone.
    """
    try:
        from atlas.data.dataset import load_dataset  # noqa: F401 (PyYAML and jsonschema, which validation needs)
        from atlas.data.errors import DataValidationError
        from atlas.data.export_cache import cached_export_json
    except ImportError as exc:
        try:
            import yaml
        except ImportError:
            return {}, f"the data set needs {exc.name or 'pyyaml'} (pip install pyyaml jsonschema); no peak to compare against"
        folder = Path(data_dir or DATA_DIR) / "hardware"
        found = {}
        for path in sorted(folder.rglob("*.yaml")):
            entry = yaml.safe_load(path.read_text(encoding="utf-8"))
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                found[entry["id"]] = entry
        return found, f"data set read without validation ({exc.name} is not installed)"
    try:
        # The validated data set's export, kept on disk by the content it was made from (a second of CPU for a
        # full load and validation, 0.03 s once kept): the devices exactly as in their files, dates as ISO text.
        return json.loads(cached_export_json(data_dir or DATA_DIR))["devices"], None
    except DataValidationError as exc:
        count = len(exc.errors)
        return {}, (f"the data set does not validate ({count} {'error' if count == 1 else 'errors'}; "
                    "run: python -m atlas.data validate)")


class UnknownDevice(ValueError):
    """``--device`` names an id that is not in the data set."""


def resolve_device(reported: str, devices: dict, override: str | None = None) -> tuple[str | None, str | None]:
    """(device id or None, how it was found: "override", "detected" or None).

    An override that is not in the data set raises ``UnknownDevice`` with the closest ids.
    """
    if override:
        if override in devices:
            return override, "override"
        close = difflib.get_close_matches(override, list(devices), n=1, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UnknownDevice(f"--device {override!r} is not a device id in data/hardware/{hint}")
    found = match_name(reported, devices)
    return (found, "detected") if found else (None, None)

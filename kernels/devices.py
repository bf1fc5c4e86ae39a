"""Which device is this, and what does the data set say its peak is?

The demos report the name the runtime gives the device (CUDA device name,
JAX ``device_kind`` of a TPU, the CPU's model name) and match it to an id in
``data/hardware/`` through the entry's ``runtime_names`` (compared ignoring
case and repeated spaces), so a contributor who adds a device adds its names
in the same file. ``--device <id>`` overrides the match. Peaks are never
typed here: they are read from the data set through
``atlas.fields.field_value``, the same lookup the site's tables use.

Which figure a demo compares against (``peak``):

- ``bandwidth`` and ``fused``: ``bandwidth``, peak memory bandwidth in GB/s
  (10^9 bytes/s);
- ``matmul``: the *dense* peak of the precision in TFLOP/s (10^12
  operations/s), found by the estimators' one lookup
  (``calculators.devices.peak``): the matrix unit's figure where the device
  states one (tensor cores, MXU; for FP32 only some, e.g. AMD Instinct, do),
  else the vector unit's (CUDA cores, SIMD lanes: NVIDIA's plain FP32, since
  frameworks switch TF32 off unless asked, and TF32 is its own precision);
  half the sparse figure where the vendor publishes only that (H200); a
  fallback precision, named in ``field``, where the device lacks the one run;
- ``intensity``: the dense FP32 *vector* figure, because an element-wise FMA
  chain never runs on matrix units.
"""

from __future__ import annotations

import difflib
import platform
import subprocess
from pathlib import Path

from kernels import REPO_ROOT

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
    from atlas.checks.devices import runtime_name_key

    key = runtime_name_key(reported)
    for device_id, device in devices.items():
        if any(runtime_name_key(name) == key for name in device.get("runtime_names") or ()):
            return device_id
    return None


def load_devices(data_dir: Path | str | None = None) -> tuple[dict, str | None]:
    """The data set's devices by id, and a note saying why they are empty when they could not be read.

    Validates with ``atlas.dataset`` when PyYAML and jsonschema are installed
    (the site's requirements); with PyYAML alone it reads the files without
    validation and says so; without PyYAML the demos still run and report the
    achieved figure alone.
    """
    try:
        from atlas.dataset import load_dataset
        from atlas.errors import DataValidationError
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
        return load_dataset(data_dir or DATA_DIR).devices, None
    except DataValidationError as exc:
        return {}, f"the data set does not validate ({len(exc.errors)} errors; run: python -m atlas validate)"


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


PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8")


def peak(device: dict, demo: str, precision: str | None = None) -> dict | None:
    """The figure a ``demo`` result is compared with, or None when the device states nothing usable.

    Returns ``{"value", "unit", "field", "source", "from_sparse", "requested"}``:
    ``unit`` is "gb_s" (GB/s) for bandwidth, "tflops" (TFLOP/s; TOPS for
    integers) for compute; ``field`` names the data-set figure
    ("bandwidth", "bf16.matrix.dense", ...); ``source`` is the URL it cites;
    ``from_sparse`` is the vendor's sparse figure when the dense peak is half
    of it (the vendor publishes nothing else); ``requested`` is the precision
    asked for (``field`` may hold a fallback). Compute peaks come from the
    estimators' one lookup, ``calculators.devices``.
    """
    from atlas.fields import field_value
    from calculators import devices as estimator

    if demo in ("bandwidth", "fused"):
        value = field_value(device, "bandwidth")
        return _peak(device, value, estimator.bandwidth_bytes_s(device) / 1e9, "gb_s", "bandwidth", None, None)
    if demo not in ("matmul", "intensity"):
        raise ValueError(f"unknown demo {demo!r}")
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; expected one of {', '.join(PRECISIONS)}")
    if demo == "intensity":  # an element-wise FMA chain runs on the vector unit, whatever matrix units exist
        tflops = estimator.dense_figure(device, precision, "vector")
        field = f"{precision}.vector.dense"
        return _peak(device, field_value(device, field), tflops, "tflops", field, None, precision) if tflops else None
    found = estimator.peak(device, precision)
    if found is None or found.scaled_from:  # a measurement is compared with a figure the vendor states, not an estimate
        return None
    field = f"{found.precision}.{found.unit}.dense"
    cited = field_value(device, f"{found.precision}.{found.unit}.{'sparse' if found.from_sparse else 'dense'}")
    return _peak(device, cited, found.tflops, "tflops", field, found.from_sparse, precision)


def _peak(device, cited, value, unit, field, from_sparse, requested) -> dict:
    source = device.get("sources", {}).get(cited.source, {}) if cited else {}
    return {
        "value": value,
        "unit": unit,
        "field": field,
        "source": source.get("url"),
        "from_sparse": from_sparse,
        "requested": requested,
    }


def percent_of(achieved: float, peak_value: float) -> float:
    """Achieved as a percentage of peak (both in the same unit)."""
    if not peak_value > 0:
        raise ValueError(f"peak must be positive, got {peak_value!r}")
    return 100.0 * achieved / peak_value

"""Which device is this, and what does the data set say its peak is?

The demos report the name the runtime gives the device (CUDA device name,
JAX ``device_kind`` of a TPU, the CPU's model name) and match it to an id in
``data/hardware/`` with the patterns below. ``--device <id>`` overrides the
match. Peaks are never typed here: they are read from the data set through
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
import re
import subprocess
from pathlib import Path

from kernels import REPO_ROOT

DATA_DIR = REPO_ROOT / "data"

# (pattern on the reported name, data-set id). First match wins; a pattern
# whose id is not in the data set is skipped, so the table can run ahead of
# the data. Names as the runtimes report them: torch.cuda.get_device_name(),
# jax.devices()[0].device_kind, the CPU model string.
REPORTED_NAMES: tuple[tuple[str, str], ...] = (
    (r"^(NVIDIA )?H100 80GB HBM3$", "h100-sxm"),
    (r"^(NVIDIA )?H100 PCIe$", "h100-pcie"),
    (r"^(NVIDIA )?H200$", "h200-sxm"),
    (r"^(NVIDIA )?B200$", "b200"),
    (r"^(NVIDIA )?A100-SXM4-80GB$", "a100-sxm-80gb"),
    (r"^(NVIDIA )?A100-PCIE-40GB$", "a100-pcie-40gb"),
    (r"^(Tesla )?V100-SXM2-32GB$", "v100-sxm2-32gb"),
    (r"^(NVIDIA )?L40S$", "l40s"),
    (r"^(NVIDIA )?L4$", "l4"),
    (r"^(NVIDIA )?GeForce RTX 3090$", "rtx-3090"),
    (r"^(NVIDIA )?GeForce RTX 4060$", "rtx-4060"),
    (r"^(NVIDIA )?GeForce RTX 4090$", "rtx-4090"),
    (r"^(NVIDIA )?GeForce RTX 5090$", "rtx-5090"),
    (r"^(NVIDIA )?RTX PRO 6000 Blackwell Workstation Edition$", "rtx-pro-6000-blackwell"),
    (r"^(NVIDIA )?GB10$", "dgx-spark"),
    (r"^AMD Instinct MI250X(/MI250)?$", "mi250x"),
    (r"^AMD Instinct MI300X( VF)?$", "mi300x"),
    (r"^AMD Instinct MI325X( VF)?$", "mi325x"),
    (r"^AMD Instinct MI355X( VF)?$", "mi355x"),
    (r"^AMD Radeon RX 7900 XTX$", "radeon-rx-7900-xtx"),
    (r"^TPU v4$", "tpu-v4"),
    (r"^TPU v5( lite|e)$", "tpu-v5e"),
    (r"^TPU v5p?$", "tpu-v5p"),
    (r"^TPU v6( lite|e)$", "tpu-v6e"),
    (r"^TPU ?7x?$", "tpu-v7"),
    (r"^AMD EPYC 9654 96-Core Processor$", "epyc-9654"),
    (r"^Apple M4 Max$", "apple-m4-max"),
    (r"^Apple M3 Ultra$", "apple-m3-ultra"),
)


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


def match_name(reported: str, known_ids) -> str | None:
    """The data-set id whose pattern matches ``reported`` (and which is in ``known_ids``), else None."""
    name = " ".join(reported.split())
    for pattern, device_id in REPORTED_NAMES:
        if device_id in known_ids and re.match(pattern, name, re.IGNORECASE):
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
    if found is None:
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

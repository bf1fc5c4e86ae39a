"""Which published figure a kernel-demo measurement is compared with.

The rule belongs to the estimators, not to the demos: the roofline tables of
the site (``atlas.data.kernel_tables``), the measurement checks
(``atlas.data.checks.measurements``) and the demos themselves (``kernels``) all
ask here. Compute peaks come from the estimators' one lookup
(``atlas.core.calculators.devices.peak``); the cited figure and its source from
``atlas.core.calculators.fields.field_value``, the lookup the site's tables use.
Standard library only.

Which figure a demo compares against (``peak``):

- ``bandwidth`` and ``fused``: ``bandwidth``, peak memory bandwidth in GB/s
  (10^9 bytes/s);
- ``matmul``: the *dense* peak of the precision in TFLOP/s (10^12
  operations/s), found by the estimators' one lookup
  (``atlas.core.calculators.devices.peak``): the matrix unit's figure where the device
  states one (tensor cores, MXU; for FP32 only some, e.g. AMD Instinct, do),
  else the vector unit's (CUDA cores, SIMD lanes: NVIDIA's plain FP32, since
  frameworks switch TF32 off unless asked, and TF32 is its own precision);
  half the sparse figure where the vendor publishes only that (H200); a
  fallback precision, named in ``field``, where the device lacks the one run;
- ``intensity``: the dense FP32 *vector* figure, because an element-wise FMA
  chain never runs on matrix units.
"""

from __future__ import annotations

from atlas.core.calculators import devices as estimator
from atlas.core.calculators.fields import field_value

# The precisions the demos measure (a subset of ``atlas.core.calculators.fields.PRECISIONS``).
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
    estimators' one lookup, ``atlas.core.calculators.devices``.
    """
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

"""Estimators for AI hardware: how much memory a model needs, how fast a device runs it.

Standard library only (plus ``l10n``), so the same code runs in the site
build, in the tests, on the command line (``python -m atlas``) and in
the browser on Pyodide. Every front end calls ``atlas.core.calculators.api.handle``.

Units: memory in bytes internally and GiB (2^30 bytes) in results, the unit
device capacities are stored in (``capacity_gib``); bandwidth in GB/s (10^9
bytes per second); compute in TFLOP/s (10^12 operations per second); time in
seconds. Every assumption lives with its source in ``atlas.core.calculators.defaults``;
every roofline formula (critical intensity, attainable throughput, roofline
time, matrix-product FLOPs and bytes) in ``atlas.core.calculators.roofline``, energy and
its cost in ``atlas.core.calculators.energy`` — the build, the charts, the kernel demos
and the pages call these, never a copy.
"""

__all__ = ["api", "catalog", "checks", "defaults", "devices", "energy", "inputs", "memory", "models", "roofline", "speed"]

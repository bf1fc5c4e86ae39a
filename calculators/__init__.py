"""Estimators for AI hardware: how much memory a model needs, how fast a device runs it.

Standard library only (plus ``l10n``), so the same code runs in the site
build, in the tests, on the command line (``python -m calculators``) and in
the browser on Pyodide. Every front end calls ``calculators.api.handle``.

Units: memory in bytes internally and GiB (2^30 bytes) in results, the unit
device capacities are stored in (``capacity_gib``); bandwidth in GB/s (10^9
bytes per second); compute in TFLOP/s (10^12 operations per second); time in
seconds. Every assumption lives with its source in ``calculators.defaults``.
"""

__all__ = ["api", "catalog", "defaults", "devices", "inputs", "memory", "models", "speed"]

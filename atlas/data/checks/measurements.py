"""Checks on a kernel-demo measurement that JSON Schema cannot express.

``measurement_problems`` looks at one file on its own: the date is not in the
future and the command runs the demo the file says it measured.
``measurement_references`` is one of ``atlas.data.dataset.CROSS_CHECKS`` and runs
once every entry is valid on its own: the device id exists in
``data/hardware/``, and the result does not beat that device's peak by more
than ``PEAK_TOLERANCE`` — a result above the peak means
the wrong device, a sparse figure, or a mistake in the kernel's counting.
Which peak a demo compares against is decided by ``atlas.core.calculators.demo_peaks.peak``.
"""

from __future__ import annotations

import datetime
import difflib

from atlas.core.calculators.demo_peaks import peak
from atlas.data.checks.common import not_in_future

# A measurement may exceed the data set's peak by at most 5 %: vendors quote
# peaks at boost clock, and a short run can be a little faster than the figure
# a datasheet rounds down to.
PEAK_TOLERANCE = 1.05


def demo_commands(demo: str, backend: str) -> tuple[str, ...]:
    """Substrings one of which the command of a ``demo``/``backend`` measurement must contain: the demo's file or
    module under ``atlas/demos/``, or under ``kernels/``, where the demos lived until December 2026 (the H200 runs of
    4 December 2026 were recorded with those commands)."""
    if backend == "cuda":
        current = (f"atlas/demos/{demo}_cuda.cu", f"python -m atlas.demos run {demo} cuda")
        return (*current, f"kernels/{demo}_cuda.cu", f"python -m kernels run {demo} cuda", f"{demo}_cuda")
    current = (f"atlas/demos/{demo}_{backend}.py", f"atlas.demos.{demo}_{backend}",
               f"python -m atlas.demos run {demo} {backend}")
    return (*current, f"kernels/{demo}_{backend}.py", f"kernels.{demo}_{backend}", f"python -m kernels run {demo} {backend}")


def measurement_problems(entry: dict, today: datetime.date | None = None) -> list[tuple[tuple, str]]:
    """Problems of one schema-valid measurement on its own."""
    today = today or datetime.date.today()
    problems = []
    if not not_in_future(entry["date"], today):
        problems.append((("date",), f"{entry['date']} is not a past date"))
    expected = demo_commands(entry["demo"], entry["backend"])
    if not any(part in entry["command"] for part in expected):
        problems.append((("command",), f"does not run the {entry['demo']} demo with {entry['backend']} (expected {expected[0]})"))
    return problems


def measurement_references(dataset) -> list:
    """DataErrors of every measurement checked against the devices (see ``reference_problems``)."""
    return [
        dataset.error("measurements", entry_id, path, message)
        for entry_id, entry in dataset.measurements.items()
        for path, message in reference_problems(entry, dataset.devices)
    ]


def reference_problems(entry: dict, devices: dict) -> list[tuple[tuple, str]]:
    """Problems of one measurement against the devices: unknown id, result above the peak."""
    device_id = entry.get("device")
    if device_id is None:
        return []
    if device_id not in devices:
        close = difflib.get_close_matches(device_id, list(devices), n=1, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else "; use null for a device not in the data set"
        return [(("device",), f"names device '{device_id}', which is not in data/hardware/{hint}")]
    figure = peak(devices[device_id], entry["demo"], entry["params"].get("precision"))
    value = entry["result"]["value"]
    if figure is not None and value > figure["value"] * PEAK_TOLERANCE:
        return [
            (
                ("result", "value"),
                f"{value:g} is {value / figure['value']:.0%} of {device_id}'s {figure['field']} peak ({figure['value']:g}); "
                "wrong device, a sparse figure, or miscounted work?",
            )
        ]
    return []

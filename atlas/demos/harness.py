"""What every demo shares: options, timing, correctness checks and the report.

A demo file builds its inputs, times its kernel with ``time_runs``, checks
the output against a float64 reference with ``relative_error``, and hands
the figures to ``finish``. ``finish`` matches the device to the data set,
looks up the peak, prints a short readable result (or one JSON object with
``--json``) and returns the exit code: 0 when the check passed, 1 when the
result was wrong, 2 for bad options, 3 when the backend or device is not
there (``unavailable``).

Units: ``achieved`` is in GB/s (10^9 bytes/s, unit "gb_s") or TFLOP/s
(10^12 operations/s, unit "tflops"); times are in seconds.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import platform
import shlex
import statistics
import sys
import time
from pathlib import Path

from atlas.core.calculators import demo_peaks
from atlas.core.calculators.roofline import attainable_tflops
from atlas.demos import REPO_ROOT, devices

UNIT_TEXT = {"gb_s": "GB/s", "tflops": "TFLOP/s"}

# Largest accepted ||out - ref|| / ||ref|| per precision, with the reference
# computed in float64 from the same (rounded) inputs. FP32 on CUDA cores lands
# far under 1e-5; TF32 rounds inputs to 10 mantissa bits; BF16/FP16 outputs
# are rounded to 8/11 bits; FP8 products come back in BF16.
TOLERANCE = {"fp64": 1e-9, "fp32": 1e-4, "tf32": 5e-3, "bf16": 1.5e-2, "fp16": 5e-3, "fp8": 1.5e-2}


def parser(demo: str, backend: str, description: str) -> argparse.ArgumentParser:
    """An argument parser with the options every demo has."""
    p = argparse.ArgumentParser(prog=f"python atlas/demos/{demo}_{backend}.py", description=description)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument("--device", metavar="ID", help="compare against this data-set device instead of the detected one")
    p.add_argument("--repeat", type=positive_int, default=10, help="timed runs; the median is reported (default 10)")
    p.add_argument("--warmup", type=non_negative_int, default=2, help="untimed runs first (default 2)")
    return p


EXIT_UNAVAILABLE = 3


def unavailable(message: str):
    """Stop: the backend or the device the demo needs is not on this machine (exit code 3)."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(EXIT_UNAVAILABLE)


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


def time_runs(fn, repeat: int, warmup: int, sync=None) -> list[float]:
    """Seconds of each of ``repeat`` timed calls of ``fn`` after ``warmup`` untimed ones.

    ``sync`` waits for asynchronous devices (CUDA, MPS) before the clock is
    read; for JAX pass a ``fn`` that blocks on its result.
    """
    for _ in range(warmup):
        fn()
    if sync:
        sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        if sync:
            sync()
        times.append(time.perf_counter() - start)
    return times


def median(times: list[float]) -> float:
    return statistics.median(times)


def relative_error(out, ref) -> float:
    """||out - ref|| / ||ref|| in float64 (Frobenius norm); inf if ``out`` holds NaN or inf."""
    import numpy as np

    out = np.asarray(out, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if out.shape != ref.shape:
        raise ValueError(f"shape {out.shape} differs from the reference's {ref.shape}")
    if not np.all(np.isfinite(out)):
        return math.inf
    norm = float(np.linalg.norm(ref))
    diff = float(np.linalg.norm(out - ref))
    return diff / norm if norm else diff


def check(error: float, tolerance: float) -> dict:
    """The correctness part of a result."""
    finite = math.isfinite(error)
    return {"passed": finite and error <= tolerance, "relative_error": error if finite else None, "tolerance": tolerance}


def versions(*names: str) -> dict:
    """Python and the named packages' versions, for the record."""
    out = {"python": platform.python_version()}
    for name in names:
        module = sys.modules.get(name)
        if module is None:
            try:
                module = __import__(name)
            except ImportError:
                continue
        out[name] = getattr(module, "__version__", "unknown")
    return out


def command(argv: list[str] | None, script: str) -> str:
    """The command line that reproduces this run, as a reader would type it."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        rel = Path(script).resolve().relative_to(REPO_ROOT)
    except ValueError:
        return shlex.join(["python", script, *args])
    if rel.suffix == ".py" and rel.parts[:2] == ("atlas", "demos"):  # runs from a checkout, installed or not
        return shlex.join(["python", "-m", ".".join(rel.with_suffix("").parts), *args])
    return shlex.join(["python", rel.as_posix(), *args])


def finish(
    args,
    *,
    demo: str,
    backend: str,
    device_name: str,
    platform_name: str,
    params: dict,
    achieved: float,
    unit: str,
    check_result: dict,
    software: dict,
    command_line: str,
    details: dict | None = None,
    notes: list[str] | None = None,
    data_dir=None,
) -> int:
    """Match the device, compare with its peak, print, and return the exit code."""
    result = build_result(
        demo=demo,
        backend=backend,
        device_name=device_name,
        platform_name=platform_name,
        params=params,
        achieved=achieved,
        unit=unit,
        check_result=check_result,
        software=software,
        command_line=command_line,
        details=details,
        notes=notes,
        override=args.device,
        data_dir=data_dir,
    )
    if result is None:
        return 2
    print(json.dumps(result, indent=2, allow_nan=False) if args.json else text_report(result))
    return 0 if result["check"]["passed"] else 1


def build_result(
    *,
    demo,
    backend,
    device_name,
    platform_name,
    params,
    achieved,
    unit,
    check_result,
    software,
    command_line,
    details=None,
    notes=None,
    override=None,
    data_dir=None,
    devices_by_id=None,
) -> dict | None:
    """The result object (see the module docstring); None after printing an error for a bad ``--device``."""
    notes = list(notes or [])
    if not (isinstance(achieved, (int, float)) and math.isfinite(achieved) and achieved >= 0):
        raise ValueError(f"achieved must be a finite non-negative number, got {achieved!r}")
    if devices_by_id is None:
        devices_by_id, data_note = devices.load_devices(data_dir)
        if data_note:
            notes.append(data_note)
    try:
        device_id, matched_by = devices.resolve_device(device_name, devices_by_id, override)
    except devices.UnknownDevice as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None
    precision = params.get("precision")
    peak = demo_peaks.peak(devices_by_id[device_id], demo, precision) if device_id else None
    percent = None
    if device_id is None and devices_by_id:
        notes.append(f"no device in the data set matches {device_name!r}; pass --device <id> to compare with one")
    elif device_id and peak is None:
        notes.append(f"the data set states no {precision or 'bandwidth'} figure for {device_id} that this demo can use")
    if peak and peak["from_sparse"]:
        notes.append(f"the vendor states only a sparse {peak['field'].split('.')[0]} figure ({peak['from_sparse']:g}); the dense peak is half of it")
    if peak and precision and not peak["field"].startswith(precision + "."):
        notes.append(f"{device_id} states no {precision} figure; compared with {peak['field']} instead")
    if peak:
        percent = demo_peaks.percent_of(achieved, peak["value"])
    details = dict(details or {})
    bandwidth = demo_peaks.peak(devices_by_id[device_id], "bandwidth") if device_id else None
    if peak and bandwidth and "points" in details:
        details["points"] = [roofline_point(pt, peak["value"], bandwidth["value"]) for pt in details["points"]]
    if not check_result["passed"]:
        notes.append("the output differs from the float64 reference: this result is wrong")
    return {
        "demo": demo,
        "backend": backend,
        "device": {"name": device_name, "platform": platform_name, "id": device_id, "matched_by": matched_by},
        "params": params,
        "achieved": {"value": achieved, "unit": unit},
        "peak": peak,
        "percent_of_peak": percent,
        "check": check_result,
        "details": details,
        "software": software,
        "command": command_line,
        "date": datetime.date.today().isoformat(),
        "notes": notes,
    }


def roofline_point(point: dict, peak_tflops: float, bandwidth_gb_s: float) -> dict:
    """A sweep point with the roofline's attainable TFLOP/s and the share of it achieved."""
    attainable = attainable_tflops(peak_tflops, bandwidth_gb_s, point["intensity"])
    return {**point, "attainable_tflops": attainable, "percent_of_attainable": round(100 * point["achieved_tflops"] / attainable, 2)}


def _figure(value: float) -> str:
    return f"{value:,.3g}" if value < 100 else f"{value:,.0f}"


def text_report(result: dict) -> str:
    """A few readable lines: what ran, what it achieved, against which peak."""
    device = result["device"]
    unit = UNIT_TEXT[result["achieved"]["unit"]]
    params = " ".join(f"{k}={v}" for k, v in result["params"].items())
    lines = [f"{result['demo']} · {result['backend']} · {device['name']} ({device['platform']}) · {params}"]
    achieved = _figure(result["achieved"]["value"])
    if result["peak"]:
        peak = result["peak"]
        lines.append(
            f"  achieved {achieved} {unit} of {_figure(peak['value'])} {unit} peak "
            f"({result['percent_of_peak']:.1f} %) — {device['id']}, {peak['field']}"
        )
    else:
        lines.append(f"  achieved {achieved} {unit}")
    for key, value in result["details"].items():
        if not isinstance(value, (list, dict)):
            lines.append(f"  {key}: {value}")
    points = result["details"].get("points")
    if points:
        lines.append("  FLOP/byte   TFLOP/s    GB/s" + ("   roofline TFLOP/s" if "attainable_tflops" in points[0] else ""))
        for pt in points:
            row = f"  {pt['intensity']:9.3g} {pt['achieved_tflops']:9.3g} {pt['achieved_gb_s']:7.4g}"
            if "attainable_tflops" in pt:
                row += f"   {pt['attainable_tflops']:9.3g} ({pt['percent_of_attainable']:.0f} %)"
            lines.append(row)
    chk = result["check"]
    error = "not finite" if chk["relative_error"] is None else f"{chk['relative_error']:.2e}"
    lines.append(f"  check: relative error {error} (tolerance {chk['tolerance']:.2g}) — {'ok' if chk['passed'] else 'WRONG'}")
    lines += [f"  note: {n}" for n in result["notes"]]
    return "\n".join(lines)

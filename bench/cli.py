"""Benchmark of the command line (``make bench``, ``make bench-cli``; not a test).

Times whole ``python -m atlas …`` processes, as a reader runs them: one first call that validates the
data set and fills the export cache (``atlas.data.export_cache``), then ``--runs`` calls each of ``vram`` and
``speed``, and prints the median and worst wall-clock time of each (goal: median <= 0.3 s on the 2-CPU
development machine). Writes ``bench/cli-results.json``. Usage: ``python -m bench.cli [--runs 5]``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time

from atlas.data import REPO_ROOT

COMMANDS = {
    "vram": ["vram", "--model", "llama-3.1-8b"],
    "speed": ["speed", "--model", "llama-3.1-8b", "--device", "rtx-4090"],
}
GOAL_MEDIAN_S = 0.3


def time_call(args: list[str]) -> float:
    """Seconds one ``python -m atlas ARGS`` process takes, start to exit (it must succeed)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "atlas", *args], cwd=REPO_ROOT, check=True, capture_output=True)
    return time.perf_counter() - started


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    first_s = time_call(COMMANDS["vram"])
    results = {"first_call_s": round(first_s, 3), "runs": args.runs, "machine": platform.platform(),
               "cpus": __import__("os").cpu_count(), "goal_median_s": GOAL_MEDIAN_S, "commands": {}}
    print(f"first call (validates the data set, fills the cache): {first_s:.2f} s")
    for name, command in COMMANDS.items():
        times = [time_call(command) for _ in range(args.runs)]
        median = statistics.median(times)
        results["commands"][name] = {"argv": command, "median_s": round(median, 3), "max_s": round(max(times), 3)}
        verdict = "meets" if median <= GOAL_MEDIAN_S else "misses"
        print(f"python -m atlas {' '.join(command)}: median {median:.3f} s, worst {max(times):.3f} s "
              f"over {args.runs} runs ({verdict} the {GOAL_MEDIAN_S} s goal)")
    (REPO_ROOT / "bench" / "cli-results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

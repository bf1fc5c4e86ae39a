"""Command line for the data set: ``python -m atlas validate`` and ``python -m atlas export out.json``."""

from __future__ import annotations

import argparse
import sys

from atlas.dataset import DATA_DIR, load_dataset
from atlas.errors import DataValidationError


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m atlas", description="Check the Accelerator Atlas data set.")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("validate", help="validate every data file; print one line per problem")
    check.add_argument("--data", default=str(DATA_DIR), help="data folder (default: data/)")
    export = sub.add_parser("export", help="write the validated data set as one JSON file (what the calculators read)")
    export.add_argument("output", help="path of the JSON file to write")
    export.add_argument("--data", default=str(DATA_DIR), help="data folder (default: data/)")
    args = parser.parse_args(argv)

    if args.command == "export":
        from atlas.export import write_export

        try:
            path = write_export(args.output, args.data)
        except DataValidationError as exc:
            print(exc, file=sys.stderr)
            return 1
        print(f"Wrote {path}.")
        return 0

    if args.command == "validate":
        try:
            dataset = load_dataset(args.data)
        except DataValidationError as exc:
            print(exc, file=sys.stderr)
            return 1
        counts = ", ".join(f"{len(entries)} {name}" for name, entries in dataset.entries.items())
        print(f"Data set OK: {counts}.")
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())

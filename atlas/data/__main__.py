"""Command line for the data set: ``python -m atlas.data validate``, ``export out.json``, ``new-device``, and
``csp SITE`` (the Content-Security-Policy headers for a built site)."""

from __future__ import annotations

import argparse
import sys

from atlas.data.dataset import DATA_DIR, load_dataset
from atlas.data.errors import DataValidationError


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m atlas.data", description="Check the Accelerator Atlas data set.")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("validate", help="validate every data file; print one line per problem")
    check.add_argument("--data", default=str(DATA_DIR), help="data folder (default: data/)")
    export = sub.add_parser("export", help="write the validated data set as one JSON file (what the calculators read)")
    export.add_argument("output", help="path of the JSON file to write")
    export.add_argument("--data", default=str(DATA_DIR), help="data folder (default: data/)")
    new = sub.add_parser("new-device", help="write data/hardware/<vendor>/<id>.yaml, copied from a similar device")
    new.add_argument("id", help="new device id, e.g. rtx-5080 (also the file name)")
    new.add_argument("--vendor-folder", required=True, help="folder under data/hardware/, e.g. nvidia")
    new.add_argument("--name", required=True, help="full product name as the vendor writes it")
    new.add_argument("--vendor", required=True, help="vendor name as shown on the site, e.g. NVIDIA")
    new.add_argument("--kind", required=True, choices=["gpu", "tpu", "asic", "fpga", "npu", "cpu"])
    new.add_argument("--like", help="id of the device to copy (default: the newest of the same kind)")
    sub.add_parser("fit", help="fit the speed model on data/inference/ and cross-validate it (writes atlas/core/calculators/fitted.py)")
    policy = sub.add_parser("csp", help="print the Content-Security-Policy headers for a built site")
    policy.add_argument("site", help="the built site folder (mkdocs build writes site/)")
    policy.add_argument(
        "--format",
        choices=["nginx", "netlify", "header"],
        default="header",
        help="nginx add_header lines, a Netlify/Cloudflare _headers file, or the bare policy",
    )
    args = parser.parse_args(argv)

    if args.command == "fit":
        from atlas.data import fit_speed

        try:
            return fit_speed.main()
        except DataValidationError as exc:
            print(exc, file=sys.stderr)
            return 1

    if args.command == "csp":
        from pathlib import Path

        from atlas.data import csp

        site = Path(args.site)
        if not (site / "index.html").is_file():
            print(f"csp: {site} holds no built site; run 'make build' first", file=sys.stderr)
            return 2
        if args.format == "nginx":
            print(csp.nginx_snippet(site), end="")
        elif args.format == "netlify":
            print(csp.headers_file(site), end="")
        else:
            print(csp.policy(csp.site_hashes(site), header=True))
        return 0

    if args.command == "export":
        from atlas.data.export import write_export

        try:
            path = write_export(args.output, args.data)
        except DataValidationError as exc:
            print(exc, file=sys.stderr)
            return 1
        print(f"Wrote {path}.")
        return 0

    if args.command == "new-device":
        from atlas.data.scaffold import ScaffoldError, write_scaffold

        try:
            path = write_scaffold(args.id, args.vendor_folder, args.name, args.vendor, args.kind, args.like)
        except (ScaffoldError, DataValidationError) as exc:
            print(f"new-device: {exc}", file=sys.stderr)
            return 2
        print(f"Wrote {path.relative_to(DATA_DIR.parent)}. Replace every figure and source, then run 'make validate'.")
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

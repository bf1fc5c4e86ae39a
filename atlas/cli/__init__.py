"""Command line: ``python -m atlas vram|speed|fit [options] [--json]`` and ``export-data out.json``.

``fit --device ID [--model ID] [--weights ..] [--context ..]`` answers the reverse questions: with a model,
the longest context, the concurrent sequences that fit and the memory of every weight format on that device;
without one, which presets fit.

Options are the parameters of ``atlas.core.calculators.inputs`` with ``_`` written as
``-`` (``--kv-cache``). Memory is reported in GiB (2^30 bytes), like device
capacities. ``--json`` prints the same object ``atlas.core.calculators.api.handle``
returns as ``result``; without it a readable table in ``--lang`` (en, de).
Bad input prints one line per problem, listing close matches, and exits 2.

Instead of a preset (``--model``) the model can come from a file:
``--config path/config.json`` (a Hugging Face config) or ``--gguf
path/model.gguf`` (only its header is read). For a GGUF file the weights are
the file's exact tensor bytes, listed by tensor type under ``"gguf"`` in
``--json``, unless ``--weights`` asks for another format.

The device and model data come from ``--data-json FILE`` (an export, as the
browser reads it) or, by default, from ``data/`` through ``atlas.data`` (needs the
project's Python packages).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from atlas.core import l10n
from atlas.core.calculators import kv_quality, measured, planner
from atlas.core.calculators.api import handle
from atlas.core.calculators.catalog import Catalog, CatalogError
from atlas.core.calculators.inputs import params_for
from atlas.core.calculators.messages import display
from atlas.core.calculators.speed import RUN_FIGURES, holds_model
from atlas.core.l10n.names import device_name

EXIT_OK, EXIT_USAGE = 0, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m atlas",
        description="Estimate memory (vram) and speed (speed) of AI models on the devices of the Accelerator Atlas. "
        "Memory in GiB (2^30 bytes), like device capacities; bandwidth in GB/s; compute in TFLOP/s.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for command, text in (("vram", "memory needed, its breakdown and the devices it fits on"),
                          ("speed", "time and tokens/s on a device, and the speedup over a baseline"),
                          ("fit", "on one device: longest context, concurrent sequences and weight formats that "
                                  "fit a model, or which models fit")):
        # No abbreviations: "--mode" (a vram option) on speed would otherwise be read as "--model".
        cmd = sub.add_parser(command, help=text, description=text, allow_abbrev=False)
        for param in params_for(command):
            if param.kind == "bool":
                cmd.add_argument(param.option, dest=param.name, nargs="?", const="true", default=None,
                                 metavar="true|false", help=param.help)
            else:
                cmd.add_argument(param.option, dest=param.name, default=None, metavar=param.name.upper(),
                                 help=param.help + (f" (default: {param.default})" if param.default is not None else ""))
        cmd.add_argument("--json", action="store_true", help="print one JSON object")
        cmd.add_argument("--lang", default="en", choices=l10n.LANGUAGES, help="language of notes and table")
        cmd.add_argument("--data-json", help="read devices and models from this export instead of data/")
        source = cmd.add_mutually_exclusive_group()
        source.add_argument("--config", metavar="CONFIG_JSON",
                            help="take the model from a Hugging Face config.json instead of --model")
        source.add_argument("--gguf", metavar="GGUF_FILE",
                            help="take the model from a GGUF file's header (exact weight bytes) instead of --model")
    export = sub.add_parser("export-data", help="write the validated data set as JSON (what the browser reads)")
    export.add_argument("output")
    return parser


def load_export(data_json: str | None) -> dict:
    """The export document from a file, or from ``data/`` through ``atlas.data`` (validated once per content)."""
    if data_json:
        return json.loads(Path(data_json).read_text(encoding="utf-8"))
    from atlas.data.export_cache import cached_export_json

    return json.loads(cached_export_json())


def load_catalog(data_json: str | None) -> Catalog:
    """The catalog from an export file, or from ``data/`` through ``atlas.data`` (validated once per content)."""
    return Catalog.from_dict(load_export(data_json))


def _gib(value: float, lang: str) -> str:
    return l10n.format_number(value, lang, 2, trim=False)


def memory_table(result: dict, lang: str) -> str:
    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    head = t(
        "cli.memory_heading",
        model=result["model_name"],
        mode=t(f"mode.{result['mode']}"),
        weights=result["weights"],
        kv_cache=result["kv_cache"],
        context=display("context", result["context"], lang),
        batch=display("batch", result["batch"], lang),
    )
    n = result["num_devices"]
    cols = [t("cli.per_device")] + ([t("cli.all_devices", count=n)] if n > 1 else [])
    width = max(len(t(f"breakdown.{k}")) for k in ("weights", "kv_cache", "activations", "gradients", "optimizer",
                                                   "overhead", "total"))
    lines = [head] + _published(result, lang) + ["", " " * width + "".join(f"  {c:>16}" for c in cols)]
    for key in ("weights", "kv_cache", "activations", "gradients", "optimizer", "overhead"):
        row = [result["per_device"][f"{key}_gib"]] + ([result["breakdown"][f"{key}_gib"]] if n > 1 else [])
        lines.append(f"{t(f'breakdown.{key}'):<{width}}" + "".join(f"  {_gib(v, lang) + ' GiB':>16}" for v in row))
    totals = [result["per_device_gib"]] + ([result["total_gib"]] if n > 1 else [])
    lines.append(f"{t('breakdown.total'):<{width}}" + "".join(f"  {_gib(v, lang) + ' GiB':>16}" for v in totals))
    fitting = [f for f in result["fits"] if f["count"]]
    lines.append("")
    if fitting:
        shown = ", ".join(t("cli.device_count", count=f["count"], name=device_name(f["name"], lang)) for f in fitting[:12])
        lines.append(f"{t('cli.fits')}: {shown}")
    else:
        lines.append(t("cli.fits_none"))
    return "\n".join(lines + kv_quality.lines(result.get("kv_quality"), lang) + _notes(result, lang))


def fit_table(result: dict, lang: str) -> str:
    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    head = t(
        "cli.fit_heading",
        device=device_name(result["name"], lang),
        usable=_gib(result["usable_gib"], lang),
        capacity=_gib(result["capacity_gib"], lang),
        count=display("num_devices", result["num_devices"], lang),
        weights=result["weights"] or "-",
        kv_cache=result["kv_cache"],
        context=display("context", result["context"], lang),
        batch=display("batch", result["batch"], lang),
    )
    lines = [head, ""]
    if result["presets"] is not None:
        lines.append(t("cli.fit_presets") + ":")
        width = max([len(p["name"]) for p in result["presets"]] + [1])
        for p in result["presets"]:
            verdict = t("cli.fit_yes") if p["fits"] else t("cli.fit_no")
            best = t("cli.fit_best", weights=display("weights", p["best_format"], lang)) if p["best_format"] else ""
            lines.append(f"  {p['name']:<{width}}  {_gib(p['per_device_gib'], lang) + ' GiB':>12}  {verdict}"
                         + (f"; {best}" if best else ""))
    else:
        ctx, batch = result["max_context"], result["max_batch"]
        shown = t("cli.fit_tokens", tokens=display("context", ctx["context"], lang)) if ctx["context"] else t("cli.fit_none")
        lines.append(f"{t('cli.fit_max_context')} ({display('weights', ctx['weights'], lang)}): {shown}")
        lines.append(f"{t('cli.fit_max_batch')}: {display('batch', batch['batch'], lang)}")
        lines += ["", t("cli.fit_formats") + ":"]
        for f in result["formats"]:
            verdict = t("cli.fit_yes") if f["fits"] else t("cli.fit_no")
            lines.append(f"  {display('weights', f['weights'], lang):<22}{_gib(f['per_device_gib'], lang) + ' GiB':>12}"
                         f"  {verdict}")
    return "\n".join(lines + _notes({"notes": result["notes"]}, lang))


def _published(result: dict, lang: str) -> list[str]:
    """"Weight format as published: MXFP4." when the format was left automatic for a preset."""
    if result.get("weights_source") != "published":
        return []
    return [l10n.t(lang, "answer.published", weights=display("weights", result["weights"], lang))]


def _does_not_fit(result: dict) -> bool:
    return bool(result.get("reason")) and result["reason"]["key"] == "reason.does_not_fit"


def _notes(result: dict, lang: str) -> list[str]:
    lines = []
    if result.get("reason") and not _does_not_fit(result):  # "does not fit" is printed first instead
        lines += ["", result["reason"]["message"]]
    if result["notes"]:
        lines += ["", l10n.t(lang, "cli.notes") + ":"] + [f"- {n['message']}" for n in result["notes"]]
    return lines


def _energy_rows(lang: str) -> list:
    """Energy per token at the power figure (``speed.energy_per_token``): "-" where the device states no power
    or no electricity price was given."""
    def cell(key: str, digits: int):
        return lambda e: l10n.format_significant(e["energy"][key], lang, digits) \
            if (e.get("energy") or {}).get(key) is not None else "-"
    return [(l10n.t(lang, "energy.row.watts"), "energy.watts", cell("watts", 4)),
            (l10n.t(lang, "energy.row.joules_per_token"), "energy.joules_per_token", cell("joules_per_token", 3)),
            (l10n.t(lang, "energy.row.kwh_per_million"), "energy.kwh_per_million_tokens", cell("kwh_per_million_tokens", 3)),
            (l10n.t(lang, "energy.row.cost_per_million"), "energy.usd_per_million_tokens", cell("usd_per_million_tokens", 3))]


def speed_table(result: dict, lang: str) -> str:
    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    head = t(
        "cli.speed_heading",
        model=result["model_name"] or "-",
        workload=t(f"workload.{result['workload']}"),
        weights=result["weights"] or "-",
        context=display("context", result["context"], lang),
        batch=display("batch", result["batch"], lang),
    )
    entries = [result["device"]] + ([result["baseline"]] if result["baseline"] else [])
    rows = [  # (label, the figure's key in an entry, its text)
        ("", "name", lambda e: device_name(e["name"], lang)),
        (t("cli.time") + " (s)", "time_s", lambda e: l10n.format_significant(e["time_s"], lang, 3)),
        (t("cli.tokens_per_s"), "tokens_per_s",
         lambda e: l10n.format_significant(e["tokens_per_s"], lang, 3) if e["tokens_per_s"] else "-"),
        (t("cli.bound"), "bound", lambda e: t(f"bound.{e['bound']}")),
        (t("cli.peak"), "peak_tflops",
         lambda e: f"{l10n.format_significant(e['peak_tflops'], lang, 4)} ({e['precision']}, {e['unit']})"
         if e["peak_tflops"] is not None else "-"),
        (t("cli.attainable"), "attainable_tflops", lambda e: l10n.format_significant(e["attainable_tflops"], lang, 3)),
        (t("cli.critical"), "critical_intensity", lambda e: l10n.format_significant(e["critical_intensity"], lang, 3)
         if e["critical_intensity"] is not None else "-"),
    ]
    if "engine" in result["device"]:
        rows.append((t("cli.cost_per_million"), "cost.usd_per_million_tokens",
                     lambda e: l10n.format_significant(e["cost"]["usd_per_million_tokens"], lang, 3)
                     if e.get("cost") else "-"))
        rows += _energy_rows(lang)
        rows.insert(1, (t("cli.engine"), "engine",
                        lambda e: e["engine"] + ("" if e["split"] == "none" else f" ({e['split']})")))
    if result["workload"] == "training":
        rows += [
            (t("cli.device_hours"), "device_hours", lambda e: l10n.format_significant(e["device_hours"], lang, 3)),
            (t("cli.energy"), "energy_kwh",
             lambda e: l10n.format_significant(e["energy_kwh"], lang, 3) if e["energy_kwh"] is not None else "-"),
            (t("cli.cost"), "cost_usd",
             lambda e: l10n.format_number(e["cost_usd"], lang, 0) if e["cost_usd"] is not None else "-"),
        ]
    # no time, speed or cost of what cannot run
    rows = [(label, lambda e, shown=shown: shown(e) if holds_model(e) else t("table.does_not_fit"))
            if key in RUN_FIGURES else (label, shown) for label, key, shown in rows]
    width = max(len(label) for label, _ in rows)
    # Does not fit (the device or the baseline): that, the shortfall and the nearest configuration that runs first.
    lines = ([result["reason"]["message"], ""] if _does_not_fit(result) else []) + [head] + _published(result, lang) \
        + [""]
    for label, value in rows:
        lines.append(f"{label:<{width}}" + "".join(f"  {value(e):>26}" for e in entries))
    if result["arithmetic_intensity"] is not None:
        lines.append("")
        lines.append(t("cli.intensity", value=l10n.format_significant(result["arithmetic_intensity"], lang, 3)))
    if result["speedup"] is not None:
        compare = result["comparison"]
        key = f"compare.if_fit_{compare['direction']}" if compare.get("both_fit") is False else \
            f"cli.compare_{compare['direction']}"
        count = result.get("num_devices") or 1  # the baseline runs on as many devices as the device
        names = {role: device_name(result[role]["name"], lang) if count <= 1 else
                 t("cli.device_count", count=l10n.format_number(count, lang, 0), name=device_name(result[role]["name"], lang))
                 for role in ("device", "baseline")}
        line = t(key, **names, factor=l10n.format_number(compare["factor"], lang, 2))
        engine, base_engine = result["device"].get("engine"), result["baseline"].get("engine")
        if engine and base_engine:  # the engine assumed on each device
            line += " " + t("compare.engine_same" if engine == base_engine else "compare.engines", **names,
                            engine=t(f"engine.{engine}"), baseline_engine=t(f"engine.{base_engine}"))
        lines.append(line)
    return "\n".join(lines + _plan(result, lang) + _measured(result, lang)
                     + kv_quality.lines(result.get("kv_quality"), lang) + _notes(result, lang))


def _plan(result: dict, lang: str) -> list[str]:
    """The serving plan (``atlas.core.calculators.planner``): its sentences and tokens/s against concurrency."""
    found = result.get("plan")
    if not found:
        return []
    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    lines = ["", t("plan.cli_heading", target=l10n.format_significant(found["target_tokens_per_s"], lang, 3)) + ":"]
    lines += planner.sentences(found, device_name(result["device"]["name"], lang), result["num_devices"], result["context"], lang)
    head = [t("plan.col.users"), t("plan.col.per_user"), t("plan.col.total"), t("plan.col.fits")]
    lines += ["", "  ".join(f"{h:>18}" for h in head)]
    for point in found["curve"]:
        cells = [l10n.format_number(point["concurrency"], lang, 0),
                 l10n.format_significant(point["tokens_per_s_per_user"], lang, 3),
                 l10n.format_number(point["tokens_per_s_total"], lang, 0), t("yes" if point["fits"] else "no")]
        lines.append("  ".join(f"{c:>18}" for c in cells))
    return lines


def _measured(result: dict, lang: str) -> list[str]:
    """What others measured on the device and the baseline (``atlas.core.calculators.measured``), each row with its source."""
    lines = []
    for which in ("device", "baseline"):
        listed = (result.get("measured") or {}).get(which)
        if listed is None:
            continue
        name = device_name(result[which]["name"], lang)
        lines += ["", l10n.t(lang, "measured.cli_heading", device=name) + ":"]
        if not listed["cases"]:
            lines.append("- " + l10n.t(lang, "measured.none", device=name))
            continue
        for row in listed["cases"]:
            text = measured.described(row, lang)
            source = row.get("source", {})
            lines.append(f"- {text['tokens_per_s']} {l10n.t(lang, 'measured.tokens_per_s')}: {text['model']}, {text['engine']}, "
                         f"{text['setup']}; {source.get('publisher', '')} {text['date']} <{source.get('url', '')}>")
        if listed["total"] > len(listed["cases"]):
            lines.append("  " + l10n.t(lang, "measured.more", count=l10n.format_number(listed["total"], lang, 0),
                                       shown=l10n.format_number(len(listed["cases"]), lang, 0)))
    return lines


def _imported(request: dict, catalog: Catalog, args) -> dict:
    """The response for a model read from --config or --gguf (errors rendered like handle's)."""
    from atlas.core.calculators import model_import

    try:
        if args.config:
            try:
                text = Path(args.config).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                raise model_import.ImportError_("config", "import.file.unreadable", {"path": args.config}) from None
            path = Path(args.config)
            imported = model_import.from_config(text, (path.stem if path.stem != "config" else path.parent.name) or None)
        else:
            imported = model_import.from_gguf(args.gguf)
    except model_import.ImportError_ as exc:
        return {"ok": False, "errors": [exc.render(args.lang)]}
    imported.label = Path(args.config or args.gguf).name
    return model_import.estimate(request, catalog, imported)


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "export-data":
        from atlas.data.export import write_export

        print(f"Wrote {write_export(args.output)}.")
        return EXIT_OK
    try:
        export = load_export(args.data_json)
        catalog = Catalog.from_dict(export)
    except (OSError, ValueError, CatalogError) as exc:
        print(f"error: cannot read the device and model data: {exc}", file=sys.stderr)
        return EXIT_USAGE
    params = {p.name: getattr(args, p.name) for p in params_for(args.command) if getattr(args, p.name) is not None}
    request = {"command": args.command, "params": params, "lang": args.lang}
    if args.config or args.gguf:
        response = _imported(request, catalog, args)
    else:
        response = handle(request, export)  # the document itself: it also carries the KV-cache quality rows
    if not response["ok"]:
        label = l10n.t(args.lang, "cli.error")
        for problem in response["errors"]:
            print(f"{label}: {problem['message']}", file=sys.stderr)
        return EXIT_USAGE
    result = response["result"]
    if args.json:
        print(json.dumps(result, ensure_ascii=False, allow_nan=False))
    elif args.command == "vram":
        print(memory_table(result, args.lang))
    elif args.command == "fit":
        print(fit_table(result, args.lang))
    else:
        print(speed_table(result, args.lang))
    return EXIT_OK

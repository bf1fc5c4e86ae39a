"""Macros for the edge/NPU page (``docs/hardware/edge*.md``) and the CPU-only inference page
(``docs/guide/cpu-inference*.md``).

Every figure comes from the data set (``data/hardware``) or from the estimators through
``atlas.data.chart_estimates.estimate`` — the entry point the calculators use — and every estimate in a table links to
the speed calculator with the same inputs. The tables are built by plain functions here (``edge_ids``,
``edge_rows``, ``cpu_ids``, ``cpu_cells``), which the tests call directly.

- ``edge_table_html()`` — devices with an NPU, NPU devices and edge modules: every compute figure the data set
  files for them, naming the engine (NPU or the main chip), precision, unit and sparsity, and whether the figure is
  stated, derived or estimated; memory, bandwidth, power and software.
- ``cpu_table_html()`` — CPUs: bandwidth, memory, TDP, estimated decode speed of the reference models, prefill of
  the first, and energy per token (an upper bound from the TDP), each estimate linked to the speed calculator.
- ``joules_per_token(device, **params)`` — the speed calculator's energy per token for one case.
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.calculators.fields import ComputeField
from atlas.data import tables
from atlas.data.chart_estimates import estimate
from atlas.data.safe import inline_text as escape  # data strings sit in Markdown pages: HTML and Markdown neutral
from macros.estimate_macros import calculator_html_href

# Reference models of the CPU table, in a 4-bit GGUF format llama.cpp runs on CPUs: a dense 8B, a small mixture of
# experts (3 billion active parameters) and a dense 70B.
CPU_MODELS = (("llama-3.1-8b", "q4_k_m"), ("qwen3-30b-a3b", "q4_k_m"), ("llama-3.1-70b", "q4_k_m"))
CPU_CONTEXT = 4096  # tokens: the context for decode, the prompt for prefill
CPU_ENGINE = "llama.cpp"


def _num(value: float, lang: str, decimals: int = 0) -> str:
    return l10n.format_number(value, lang, decimals)


def _unit(text: str, unit_key: str, lang: str) -> str:
    return f"{text}\u00a0{l10n.t(lang, unit_key)}"


# ---------------------------------------------------------------------------
# Edge devices and NPUs
# ---------------------------------------------------------------------------


def has_npu(device: dict) -> bool:
    return any(c.get("component") == "npu" for c in device.get("compute", []))


def edge_ids(devices: dict) -> list[str]:
    """Devices with an NPU figure, devices of kind NPU and devices of the edge segment, by vendor and name."""
    chosen = [d for d in devices.values() if d["kind"] == "npu" or d["segment"] == "edge" or has_npu(d)]
    return [d["id"] for d in sorted(chosen, key=lambda d: (d["vendor"].lower(), d["name"].lower()))]


def engine_label(device: dict, entry: dict, lang: str) -> str:
    """'NPU' for a figure of a separate NPU, else the device's kind ('GPU', 'NPU', 'CPU')."""
    kind = "npu" if entry.get("component") == "npu" else device["kind"]
    return l10n.t(lang, f"kind.{kind}")


def figure_rows(device: dict, lang: str) -> list[dict]:
    """Every compute figure of ``device``, the NPU's first, then by precision as the data set lists them."""
    entries = sorted(device.get("compute", []), key=lambda c: c.get("component") != "npu")
    rows = []
    for entry in entries:
        field = ComputeField(entry["precision"], entry["unit"], entry["sparsity"])
        rows.append({
            "engine": engine_label(device, entry, lang), "field": field.key, "value": entry["tflops"],
            "unit": l10n.t(lang, field.unit_label), "origin": entry.get("origin", "stated"),
            "component": entry.get("component", "main"), "source": entry["source"],
            "text": f"{tables.format_figure(entry['tflops'], lang)}\u00a0{l10n.t(lang, field.unit_label)}",
            "label": tables.field_label(field.key, lang),
        })
    return rows


def edge_rows(devices: dict, lang: str) -> list[dict]:
    """One row per device of ``edge_ids``: plain values for the tests and the table."""
    rows = []
    for device_id in edge_ids(devices):
        device = devices[device_id]
        rows.append({
            "id": device_id, "device": device, "figures": figure_rows(device, lang),
            "memory_gib": device["memory"]["capacity_gib"], "bandwidth_gb_s": device["memory"]["bandwidth_gb_s"],
            "tdp_w": (device.get("power") or {}).get("tdp_w"), "software": list(device.get("software", [])),
        })
    return rows


def _figure_html(device: dict, figure: dict, lang: str) -> str:
    source = device["sources"].get(figure["source"], {})
    title = escape(l10n.t(lang, "spec.source_title", title=source.get("title", "")))
    origin = "" if figure["origin"] == "stated" else " " + escape(l10n.t(lang, f"edge.origin.{figure['origin']}"))
    return (f'<li data-component="{escape(figure["component"])}" data-field="{escape(figure["field"])}">'
            f'{escape(figure["engine"])}: <span title="{title}">{escape(figure["text"])}</span> '
            f'{escape(figure["label"])}{origin}</li>')


def edge_table(devices: dict, lang: str) -> str:
    head = "".join(f'<th scope="col">{escape(l10n.t(lang, f"edge.col.{k}"))}</th>'
                   for k in ("device", "figures", "memory", "bandwidth", "power", "software"))
    body = []
    for row in edge_rows(devices, lang):
        device = row["device"]
        figures = "".join(_figure_html(device, f, lang) for f in row["figures"])
        cells = [f"<td><ul>{figures}</ul></td>" if figures else f"<td>{escape(l10n.t(lang, 'edge.none'))}</td>",
                 tables.cell(device, "memory", lang), tables.cell(device, "bandwidth", lang),
                 tables.cell(device, "tdp", lang), tables.cell(device, "software", lang)]
        body.append(f'<tr data-device="{escape(row["id"])}">{tables.name_cell(device, lang)}{"".join(cells)}</tr>')
    caption = escape(l10n.t(lang, "edge.caption"))
    return (f'<table data-atlas-table="edge" data-sortable><caption>{caption}</caption>'
            f'<thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>')


# ---------------------------------------------------------------------------
# CPU-only inference
# ---------------------------------------------------------------------------


def cpu_ids(devices: dict) -> list[str]:
    """The data set's CPUs, fastest memory first."""
    cpus = [d for d in devices.values() if d["kind"] == "cpu"]
    return [d["id"] for d in sorted(cpus, key=lambda d: (-d["memory"]["bandwidth_gb_s"], d["name"].lower()))]


def cpu_params(device_id: str, model: str, weights: str, workload: str) -> dict:
    return {"model": model, "weights": weights, "workload": workload, "device": device_id, "engine": CPU_ENGINE,
            "context": CPU_CONTEXT}


def cpu_cells(catalog, device_id: str, lang: str) -> dict:
    """Decode tokens/s of each reference model (None: does not fit), prefill tokens/s and joules per token of the
    first model, as the speed calculator answers them."""
    decode = {}
    for model, weights in CPU_MODELS:
        result = estimate("speed", cpu_params(device_id, model, weights, "decode"), lang, catalog)
        decode[model] = result["device"]["tokens_per_s"] if result["fits"] else None
    model, weights = CPU_MODELS[0]
    first = estimate("speed", cpu_params(device_id, model, weights, "decode"), lang, catalog)
    prefill = estimate("speed", cpu_params(device_id, model, weights, "prefill"), lang, catalog)
    energy = first["device"].get("energy") or {}
    return {"decode": decode, "prefill": prefill["device"]["tokens_per_s"],
            "joules_per_token": energy.get("joules_per_token")}


def _linked(href: str, text: str) -> str:
    return f'<a href="{escape(href)}">{escape(text)}</a>'


def cpu_table(catalog, devices: dict, lang: str, link) -> str:
    """CPUs × reference models: bandwidth, memory, TDP, decode tokens/s (estimated, linked), prefill and energy."""
    head = [escape(l10n.t(lang, f"edge.cpu.col.{k}")) for k in ("device", "bandwidth", "memory", "power")]
    for model, weights in CPU_MODELS:
        head.append(escape(l10n.t(lang, "edge.cpu.col.decode", model=catalog.models[model]["name"],
                                  weights=l10n.t(lang, f"format.{weights}"))))
    first, first_weights = CPU_MODELS[0]
    name = catalog.models[first]["name"]
    head.append(escape(l10n.t(lang, "edge.cpu.col.prefill", model=name)))
    head.append(escape(l10n.t(lang, "edge.cpu.col.energy", model=name)))
    body = []
    for device_id in cpu_ids(devices):
        device = devices[device_id]
        c = cpu_cells(catalog, device_id, lang)
        cells = [tables.cell(device, "bandwidth", lang), tables.cell(device, "memory", lang),
                 tables.cell(device, "tdp", lang)]
        for model, weights in CPU_MODELS:
            href = link("speed", cpu_params(device_id, model, weights, "decode"))
            tps = c["decode"][model]
            text = l10n.t(lang, "edge.cpu.no_fit") if tps is None else l10n.format_significant(tps, lang, 3)
            cells.append(f"<td>{_linked(href, text)}</td>")
        href = link("speed", cpu_params(device_id, first, first_weights, "prefill"))
        cells.append(f"<td>{_linked(href, l10n.format_significant(c['prefill'], lang, 3))}</td>")
        joules = c["joules_per_token"]
        cells.append(f"<td>{escape(l10n.format_significant(joules, lang, 2))}</td>" if joules is not None
                     else f"<td>{escape(l10n.t(lang, 'edge.none'))}</td>")
        body.append(f'<tr data-device="{escape(device_id)}">{tables.name_cell(device, lang)}{"".join(cells)}</tr>')
    caption = escape(l10n.t(lang, "edge.cpu.caption", context=_num(CPU_CONTEXT, lang), engine=CPU_ENGINE))
    head_html = "".join(f'<th scope="col">{h}</th>' for h in head)
    return (f'<table data-atlas-table="cpu-inference"><caption>{caption}</caption>'
            f'<thead><tr>{head_html}</tr></thead><tbody>{"".join(body)}</tbody></table>')


def joules_text(catalog, device: str, params: dict, lang: str) -> str:
    """Energy per token of a speed estimate in joules (two significant digits, with its unit)."""
    result = estimate("speed", {"workload": "decode", **params, "device": device}, lang, catalog)
    energy = result["device"].get("energy") or {}
    if energy.get("joules_per_token") is None:
        raise ValueError(f"the speed estimate for {device!r} has no energy per token (no power figure)")
    return _unit(l10n.format_significant(energy["joules_per_token"], lang, 2), "edge.unit.joule", lang)


def register(env, ctx):
    def html_link(command, params):
        """URL of the calculator for an ``<a href>`` in the macros' HTML."""
        return calculator_html_href(command, params, env.page.file.src_uri)

    @env.macro
    def edge_table_html():
        """Every compute figure, memory, bandwidth, power and software of the devices with an NPU and the edge
        modules."""
        return edge_table(ctx.dataset.devices, ctx.lang())

    @env.macro
    def cpu_table_html():
        """The data set's CPUs with bandwidth and the speed calculator's decode, prefill and energy estimates."""
        return cpu_table(ctx.catalog(), ctx.dataset.devices, ctx.lang(), html_link)

    @env.macro
    def joules_per_token(device, **params):
        """Energy per generated token (J) the speed calculator gives ``device`` for the workload (an upper bound
        from the device's power figure)."""
        return joules_text(ctx.catalog(), device, params, ctx.lang())

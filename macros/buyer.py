"""Macros for the buyer's pages: local machines compared (``docs/guide/local-machines*.md``) and what running a
model costs (``docs/guide/cost*.md``).

Every figure comes from the data set (devices, prices, ``data/inference``) or from the estimators through
``atlas.data.chart_estimates.estimate`` — the entry point the calculators use — and every estimate links to the
calculator with the same inputs. The tables are built by plain functions here (``machine_rows``, ``fit_cells``,
``measured_rows``, ``cost_example``), which the tests call directly.

- ``machine_table()`` — memory you can buy, bandwidth, memory the GPU may use by default, power and price.
- ``fit_table()`` — which reference model fits each machine, with estimated decode and prefill speed.
- ``measured_table()`` — published measurements beside the estimate for the same case, with their sources.
- ``gpu_share_list()`` — the unified-memory limits the data set records, how to raise them, and their sources.
- ``rent_or_buy(device, …)`` / ``cost_per_million(device, …)`` / ``break_even(device, …)`` — the cost page's
  worked example, from the speed calculator's cost (``atlas.core.calculators.cost``).
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.calculators import cost
from atlas.core.calculators.defaults import GIB
from atlas.core.calculators.devices import chosen, configurations, gpu_share, usable_bytes
from atlas.core.l10n import names
from atlas.data.chart_estimates import EstimateError, estimate
from atlas.data.safe import http_url
from atlas.data.safe import inline_text as escape  # data strings sit in Markdown pages: HTML and Markdown neutral
from macros.estimate_macros import calculator_href, calculator_html_href

# The machines a reader can put on a desk, and the rigs built from desktop cards: (device id, how many).
MACHINES = (
    ("apple-m3-ultra", 1), ("apple-m4-max", 1), ("ryzen-ai-max-395", 1), ("dgx-spark", 1),
    ("rtx-3090", 1), ("rtx-3090", 2), ("rtx-3090", 4), ("rtx-4090", 1), ("rtx-4090", 2), ("rtx-4090", 4),
    ("rtx-5090", 1), ("rtx-5090", 2), ("rtx-pro-6000-blackwell", 1),
)

# Reference models in a 4-bit format each engine runs: a dense 8B, a small mixture of experts, a large one, a dense 70B.
REFERENCE_MODELS = (
    ("llama-3.1-8b", "q4_k_m"), ("qwen3-30b-a3b", "q4_k_m"), ("gpt-oss-120b", "mxfp4"), ("llama-3.1-70b", "q4_k_m"),
)
FIT_CONTEXT = 4096  # tokens: the prompt for prefill, the context for decode

# Published measurements (data/inference) beside the estimate for the same case: source, the case's fields (a
# source's several runs of one case differ in structured fields such as ``driver``, never in free-text notes), the
# engine the estimate uses, and fields that pick the prefill and the decode run where they differ.
SHORT = {"prefill": {"prompt_tokens": 512}, "decode": {"generated_tokens": 512}}  # one run of each phase
LLAMA_BENCH = {"prefill": {"generated_tokens": 0}, "decode": {"prompt_tokens": 0}}  # llama-bench's pp and tg runs
MEASURED = (
    ("rapid-mlx-community-benchmarks", {"device": "apple-m3-ultra", "model": "llama-3.1-8b", "weights": "mlx_4bit",
                                        "prompt_tokens": 2048}, "mlx", {}),
    ("mlx-lm-benchmarks-m4-max", {"device": "apple-m4-max", "model": "qwen3-30b-a3b", "weights": "mlx_4bit"},
     "mlx", {}),
    ("kyuz0-strix-halo-toolboxes-bench", {"device": "ryzen-ai-max-395", "model": "gpt-oss-120b", "weights": "mxfp4",
                                          "backend": "vulkan", "driver": "RADV", "context_depth": None},
     "llama.cpp", {}),
    ("llamacpp-benches-dgx-spark-b7941", {"device": "dgx-spark", "model": "gpt-oss-120b", "weights": "mxfp4",
                                          "batch": 1, "context_depth": None}, "llama.cpp", LLAMA_BENCH),
    ("xiongjiedai-gpu-benchmarks-llama3", {"device": "rtx-4090", "model": "llama-3-8b", "weights": "q4_k_m",
                                           "num_devices": 1}, "llama.cpp", SHORT),
    ("xiongjiedai-gpu-benchmarks-llama3", {"device": "rtx-3090", "model": "llama-3-70b", "weights": "q4_k_m",
                                           "num_devices": 2}, "llama.cpp", SHORT),
    ("xiongjiedai-gpu-benchmarks-llama3", {"device": "rtx-4090", "model": "llama-3-70b", "weights": "q4_k_m",
                                           "num_devices": 4}, "llama.cpp", SHORT),
)


def source_link(title: str, url: str) -> str:
    """The source's title, linked when its URL is http(s); the title as plain text in a Markdown page."""
    safe = http_url(url)
    return f'<a href="{escape(safe)}" rel="noopener">{escape(title)}</a>' if safe else f"<span>{escape(title)}</span>"


def _num(value: float, lang: str, decimals: int = 0) -> str:
    return l10n.format_number(value, lang, decimals)


def _unit(value: str, unit_key: str, lang: str) -> str:
    return f"{value}\u00a0{l10n.t(lang, unit_key)}"


def machine_name(device: dict, count: int, lang: str) -> str:
    name = names.device_name(device.get("short_name") or device["name"], lang)
    return name if count == 1 else l10n.t(lang, "buyer.rig", count=count, name=name)


def machine_rows(devices: dict, prices: dict, lang: str) -> list[dict]:
    """One row per machine: plain values (for tests) and the cells' text."""
    rows = []
    for device_id, count in MACHINES:
        device = devices[device_id]
        sizes = sorted({c["capacity_gib"] for c in configurations(device)})
        share = gpu_share(device)
        usable = usable_bytes(chosen(device, max(sizes))) / GIB * count  # the fit verdict's usable memory
        power = (device.get("power") or {}).get("tdp_w")
        bought = cost.purchase_price(prices.get(device_id, []))
        rows.append({
            "id": device_id, "count": count, "sizes_gib": sizes, "share": share, "usable_gib": usable,
            "bandwidth_gb_s": device["memory"]["bandwidth_gb_s"], "power_w": power * count if power else None,
            "price": bought, "price_usd": bought["usd_mid"] * count if bought else None,
            "name": machine_name(device, count, lang),
        })
    return rows


def machine_table(devices: dict, prices: dict, lang: str) -> str:
    head = "".join(f'<th scope="col">{escape(l10n.t(lang, f"buyer.col.{k}"))}</th>'
                   for k in ("machine", "sizes", "bandwidth", "usable", "power", "price"))
    body = []
    none = escape(l10n.t(lang, "buyer.none"))
    for r in machine_rows(devices, prices, lang):
        sizes = " / ".join(_num(s * r["count"], lang) for s in r["sizes_gib"])
        usable = _unit(_num(r["usable_gib"], lang), "unit.gib", lang)
        if r["share"] < 1:
            usable += " " + l10n.t(lang, "buyer.share", share=_num(r["share"] * 100, lang))
        power = _unit(_num(r["power_w"], lang), "unit.w", lang) if r["power_w"] else none
        if r["price"]:
            p = r["price"]
            price = _unit(_num(r["price_usd"], lang), "unit.usd", lang)
            if p.get("memory_gib") and len(r["sizes_gib"]) > 1:  # the size that price buys
                price += l10n.t(lang, "buyer.price_memory", memory=_unit(_num(p["memory_gib"], lang), "unit.gib", lang))
            price = (price
                     + l10n.t(lang, "buyer.price_note", kind=l10n.t(lang, "price." + p["kind"]),
                            as_of=l10n.format_month(p["as_of"], lang)))
            price = escape(price) + " " + source_link(p["source_title"], p["source_url"])
        else:
            price = none
        cells = [escape(r["name"]), escape(_unit(sizes, "unit.gib", lang)),
                 escape(_unit(_num(r["bandwidth_gb_s"], lang), "unit.gb_s", lang)), escape(usable),
                 escape(power), price]
        body.append(f'<tr data-device="{escape(r["id"])}" data-count="{r["count"]}">'
                    + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return (f'<table><thead><tr>{head}</tr></thead><tbody>'
            + "".join(body) + "</tbody></table>")


def fit_params(device_id: str, count: int, model: str, weights: str, workload: str) -> dict:
    params = {"model": model, "weights": weights, "workload": workload, "device": device_id, "context": FIT_CONTEXT}
    if count > 1:
        params["num_devices"] = count
    return params


def fit_cells(catalog, device_id: str, count: int, model: str, weights: str, lang: str) -> dict:
    """Decode and prefill estimates (tokens/s) of one machine and model; ``fits`` False when it does not fit,
    ``prefill`` None when the device states no compute peak the estimator could use."""
    decode = estimate("speed", fit_params(device_id, count, model, weights, "decode"), lang, catalog)
    try:
        prefill = estimate("speed", fit_params(device_id, count, model, weights, "prefill"), lang, catalog)
        prefill_tps = prefill["device"]["tokens_per_s"]
    except EstimateError:
        prefill_tps = None
    return {"fits": bool(decode["fits"]), "decode": decode["device"]["tokens_per_s"], "prefill": prefill_tps}


def fit_table(catalog, devices: dict, lang: str, link) -> str:
    """Machines × reference models: 'decode / prefill' tokens/s (estimated), each linked to the speed calculator."""
    head = [f'<th scope="col">{escape(l10n.t(lang, "buyer.col.machine"))}</th>']
    for model, weights in REFERENCE_MODELS:
        name = catalog.models[model]["name"]
        head.append(f'<th scope="col">{escape(l10n.t(lang, "buyer.col.model", model=name, weights=l10n.t(lang, "format." + weights)))}</th>')
    body = []
    for device_id, count in MACHINES:
        cells = [escape(machine_name(devices[device_id], count, lang))]
        for model, weights in REFERENCE_MODELS:
            c = fit_cells(catalog, device_id, count, model, weights, lang)
            href = escape(link("speed", fit_params(device_id, count, model, weights, "decode")))
            if not c["fits"]:
                cells.append(f'<a href="{href}">{escape(l10n.t(lang, "buyer.no_fit"))}</a>')
                continue
            prefill = (l10n.format_significant(c["prefill"], lang, 3) if c["prefill"] is not None
                       else l10n.t(lang, "buyer.none"))
            text = f'{l10n.format_significant(c["decode"], lang, 3)} / {prefill}'
            cells.append(f'<a href="{href}">{escape(text)}</a>')
        body.append(f'<tr data-device="{escape(device_id)}" data-count="{count}">'
                    + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return (f'<table><thead><tr>{"".join(head)}</tr></thead><tbody>'
            + "".join(body) + "</tbody></table>")


def _case(inference: dict, source: str, match: dict, field: str) -> dict | None:
    """The one case of ``source`` matching ``match`` (None: the field is absent) that reports ``field``."""
    entry = inference[source]
    cases = [{**entry.get("defaults", {}), **c} for c in entry["cases"]]
    found = [c for c in cases if c.get(field) is not None and all(c.get(k) == v for k, v in match.items())]
    if len(found) > 1:
        raise ValueError(f"{source}: {len(found)} cases match {match} for {field}")
    return found[0] if found else None


def measured_rows(inference: dict, catalog, lang: str) -> list[dict]:
    """Each measurement in ``MEASURED`` with the estimate for the same device, model, format, engine and length."""
    rows = []
    for source, match, engine, extra in MEASURED:
        row = {"source": source, "match": match, "engine": engine, "entry": inference[source]}
        for workload, field in (("prefill", "prefill_tokens_per_s"), ("decode", "decode_tokens_per_s")):
            case = _case(inference, source, {**match, **extra.get(workload, {})}, field)
            if case is None:
                row[workload] = None
                continue
            if workload == "prefill":
                context = case["prompt_tokens"]
            else:
                context = (case.get("context_depth") or 0) + max(case.get("prompt_tokens") or 0, 1) \
                    + (case.get("generated_tokens") or 0) // 2
            params = {"model": case["model"], "weights": case["weights"], "workload": workload,
                      "device": case["device"], "engine": engine, "context": int(context)}
            if case.get("num_devices", 1) > 1:
                params["num_devices"] = case["num_devices"]
            try:
                est = estimate("speed", params, lang, catalog)["device"]["tokens_per_s"]
            except EstimateError:
                est = None
            row[workload] = {"measured": case[field], "estimate": est, "params": params, "case": case}
        rows.append(row)
    return rows


def measured_table(inference: dict, catalog, devices: dict, lang: str, link) -> str:
    cols = ("machine", "model_format", "prefill_measured", "prefill_estimated", "decode_measured",
            "decode_estimated", "source")
    head = "".join(f'<th scope="col">{escape(l10n.t(lang, f"buyer.col.{k}"))}</th>' for k in cols)
    none = escape(l10n.t(lang, "buyer.none"))
    body = []
    for r in measured_rows(inference, catalog, lang):
        m = r["match"]
        model = catalog.models[m["model"]]["name"]
        cells = [escape(machine_name(devices[m["device"]], m.get("num_devices", 1), lang)),
                 escape(f'{model}, {l10n.t(lang, "format." + m["weights"])}')]
        for workload in ("prefill", "decode"):
            w = r[workload]
            if w is None:
                cells += [none, none]
                continue
            tokens = w["case"]["prompt_tokens"] if workload == "prefill" else w["case"].get("generated_tokens")
            measured = escape(l10n.format_significant(w["measured"], lang, 3))
            if tokens:
                measured += " " + escape(l10n.t(lang, f"buyer.tokens_{workload}", tokens=_num(tokens, lang)))
            cells.append(measured)
            if w["estimate"] is None:
                cells.append(none)
            else:
                href = escape(link("speed", w["params"]))
                cells.append(f'<a href="{href}">{escape(l10n.format_significant(w["estimate"], lang, 3))}</a>')
        src = r["entry"]["source"]
        cells.append(source_link(src["title"], src["url"]))
        body.append(f'<tr data-source="{escape(r["source"])}">' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return (f'<table><thead><tr>{head}</tr></thead><tbody>'
            + "".join(body) + "</tbody></table>")


def gpu_share_items(devices: dict) -> list[dict]:
    """The machines with a recorded unified-memory limit: share, how to raise it, and its source."""
    seen, items = set(), []
    for device_id, _count in MACHINES:
        device = devices[device_id]
        share = device["memory"].get("gpu_share")
        if not share or device_id in seen:
            continue
        seen.add(device_id)
        src = device["sources"][share["source"]]
        items.append({"id": device_id, "device": device, "share": share, "source": src})
    return items


def gpu_share_list(devices: dict, lang: str) -> str:
    out = []
    for item in gpu_share_items(devices):
        d, share = item["device"], item["share"]
        cap = d["memory"]["capacity_gib"]
        text = l10n.t(lang, "buyer.share_item", name=names.device_name(d.get("short_name") or d["name"], lang),
                      share=_num(share["default_share"] * 100, lang),
                      usable=_unit(_num(cap * share["default_share"], lang), "unit.gib", lang),
                      capacity=_unit(_num(cap, lang), "unit.gib", lang))
        out.append(f"<li>{escape(text)} <code>{escape(share['how_to_raise'])}</code> "
                   f"({source_link(item['source']['title'], item['source']['url'])})</li>")
    return "<ul>" + "".join(out) + "</ul>"


# ---------------------------------------------------------------------------
# The cost page
# ---------------------------------------------------------------------------


AMORTISATION_YEARS = 3  # the speed calculator's default


def cost_answer(catalog, prices: dict, params: dict, basis: str, lang: str) -> dict:
    """The speed calculator's answer, with the cost on ``basis`` ("cloud" or "purchase")."""
    params = dict(params)
    if basis == "purchase":
        bought = cost.purchase_price(prices.get(params["device"], []))
        if bought is None:
            raise EstimateError(f"{params['device']} has no purchase price in data/prices")
        params["purchase_usd"] = bought["usd_mid"]
        params["amortisation_years"] = AMORTISATION_YEARS
    answer = estimate("speed", params, lang, catalog)
    found = answer["device"]["cost"]
    if not found or found.get("basis") != basis:
        raise EstimateError(f"{params['device']}: no {basis} cost ({found!r})")
    return {"params": params, "cost": found, "result": answer}


def cost_rows(catalog, prices: dict, devices: tuple, batches: tuple, params: dict, lang: str) -> list[dict]:
    """For each device and number of concurrent sequences: total tokens/s and US$ per million tokens rented
    (cloud median) and bought (purchase amortised round the clock), with the calculator inputs of each."""
    rows = []
    for device in devices:
        for batch in batches:
            base = {"workload": "decode", **params, "device": device, "batch": batch}
            rented = cost_answer(catalog, prices, base, "cloud", lang)
            bought = cost_answer(catalog, prices, base, "purchase", lang)
            rows.append({"device": device, "batch": batch, "tokens_per_s": rented["result"]["device"]["tokens_per_s"],
                         "fits": rented["result"]["fits"], "cloud": rented, "purchase": bought})
    return rows


def cost_table(catalog, prices: dict, devices_data: dict, devices: tuple, batches: tuple, params: dict, lang: str,
               link) -> str:
    cols = ("machine", "batch", "throughput", "per_million_cloud", "per_million_purchase")
    head = "".join(f'<th scope="col">{escape(l10n.t(lang, f"buyer.col.{k}"))}</th>' for k in cols)
    body = []
    for r in cost_rows(catalog, prices, devices, batches, params, lang):
        if not r["fits"]:
            raise EstimateError(f"{r['device']} with batch {r['batch']} does not fit: the cost table shows only cases that do")
        cells = [escape(machine_name(devices_data[r["device"]], 1, lang)), escape(_num(r["batch"], lang)),
                 escape(l10n.format_significant(r["tokens_per_s"], lang, 3))]
        for basis in ("cloud", "purchase"):
            answer = r[basis]
            text = _unit(l10n.format_significant(answer["cost"]["usd_per_million_tokens"], lang, 3), "unit.usd", lang)
            cells.append(f'<a href="{escape(link("speed", answer["params"]))}">{escape(text)}</a>')
        body.append(f'<tr data-device="{escape(r["device"])}" data-batch="{r["batch"]}">'
                    + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return (f'<table><thead><tr>{head}</tr></thead><tbody>'
            + "".join(body) + "</tbody></table>")


def break_even_share(purchase_usd_per_hour: float, cloud_usd_per_hour: float) -> float:
    """Share of the year's hours at which owning (purchase amortised round the clock) costs what renting does."""
    return purchase_usd_per_hour / cloud_usd_per_hour


def register(env, ctx):
    def link(command, params):
        """Markdown link target to the calculator."""
        return calculator_href(command, params, env.page.file.src_uri)

    def html_link(command, params):
        """URL of the calculator for an ``<a href>`` in the macros' HTML."""
        return calculator_html_href(command, params, env.page.file.src_uri)

    def prices():
        return ctx.catalog().prices

    @env.macro
    def machine_table_html():
        """Memory sizes, bandwidth, GPU-usable memory, power and price of the local machines."""
        return machine_table(ctx.dataset.devices, prices(), ctx.lang())

    @env.macro
    def fit_table_html():
        return fit_table(ctx.catalog(), ctx.dataset.devices, ctx.lang(), html_link)

    @env.macro
    def measured_table_html():
        return measured_table(ctx.dataset.inference, ctx.catalog(), ctx.dataset.devices, ctx.lang(), html_link)

    @env.macro
    def gpu_share_html():
        return gpu_share_list(ctx.dataset.devices, ctx.lang())

    @env.macro
    def measured_run(source, field, decimals=0, **match):
        """One measured figure of ``source``: the single case matching ``match`` (e.g. ``driver="RADV"`` where a
        source files several runs of the same case)."""
        case = _case(ctx.dataset.inference, source, match, field)
        if case is None:
            raise ValueError(f"{source}: no case matches {match} for {field}")
        return escape(l10n.format_number(case[field], ctx.lang(), decimals))

    @env.macro
    def fit_context():
        return _num(FIT_CONTEXT, ctx.lang())

    @env.macro
    def usd_per_hour(device, basis, **params):
        """The hourly cost the speed calculator uses: 'cloud' median or 'purchase' amortised over 3 years."""
        found = cost_answer(ctx.catalog(), prices(), {"workload": "decode", "device": device, **params}, basis,
                            ctx.lang())["cost"]
        return escape(_unit(l10n.format_significant(found["usd_per_device_hour"], ctx.lang(), 3),
                            "unit.usd_per_hour", ctx.lang()))

    @env.macro
    def usd_per_million(device, basis, **params):
        """US$ per million output tokens at the estimated speed, on the ``basis`` cost."""
        found = cost_answer(ctx.catalog(), prices(), {"workload": "decode", "device": device, **params}, basis,
                            ctx.lang())["cost"]
        return escape(_unit(l10n.format_significant(found["usd_per_million_tokens"], ctx.lang(), 3),
                            "unit.usd", ctx.lang()))

    @env.macro
    def purchase_usd(device):
        bought = cost.purchase_price(prices()[device])
        return escape(_unit(_num(bought["usd_mid"], ctx.lang()), "unit.usd", ctx.lang()))

    @env.macro
    def cost_table_html(devices, batches, **params):
        """Tokens/s and US$ per million tokens, rented and bought, for ``devices`` × ``batches``."""
        return cost_table(ctx.catalog(), prices(), ctx.dataset.devices, tuple(devices), tuple(batches), params,
                          ctx.lang(), html_link)

    @env.macro
    def amortised_per_year(device):
        """The newest purchase price spread over the calculator's amortisation years, per year."""
        bought = cost.purchase_price(prices()[device])
        return escape(_unit(_num(bought["usd_mid"] / AMORTISATION_YEARS, ctx.lang()), "unit.usd", ctx.lang()))

    @env.macro
    def amortisation_years():
        return _num(AMORTISATION_YEARS, ctx.lang())

    @env.macro
    def cloud_providers(device):
        """How many providers the cloud median is taken over, and the month of the newest price."""
        median = cost.cloud_median(prices()[device])
        key = "buyer.cloud_basis_one" if median["providers"] == 1 else "buyer.cloud_basis"
        return escape(l10n.t(ctx.lang(), key, count=_num(median["providers"], ctx.lang()),
                             as_of=l10n.format_month(median["as_of"], ctx.lang())))

    @env.macro
    def purchase_kind(device):
        return escape(l10n.t(ctx.lang(), "price." + cost.purchase_price(prices()[device])["kind"]))

    @env.macro
    def purchase_as_of(device):
        return escape(l10n.format_month(cost.purchase_price(prices()[device])["as_of"], ctx.lang()))

    @env.macro
    def break_even(device, **params):
        """Break-even utilisation in percent: purchase amortised round the clock ÷ the cloud median."""
        base = {"workload": "decode", "device": device, **params}
        bought = cost_answer(ctx.catalog(), prices(), base, "purchase", ctx.lang())["cost"]
        cloud = cost_answer(ctx.catalog(), prices(), base, "cloud", ctx.lang())["cost"]
        share = break_even_share(bought["usd_per_device_hour"], cloud["usd_per_device_hour"])
        return escape(l10n.t(ctx.lang(), "buyer.percent", value=l10n.format_number(share * 100, ctx.lang(), 0)))

    @env.macro
    def cost_link(device, basis, text=None, **params):
        """A link to the speed calculator with the cost inputs of ``basis``."""
        answer = cost_answer(ctx.catalog(), prices(), {"workload": "decode", "device": device, **params}, basis,
                             ctx.lang())
        label = text if text is not None else l10n.t(ctx.lang(), "estimate.link.speed")
        return f"[{label}]({link('speed', answer['params'])})"

"""Data-set devices as the plain inputs of the ``charts`` package (build side).

Every figure is read through ``atlas.core.calculators.fields.field_value``, so a chart shows the
same number, unit and source as the tables. Units as in the data set: memory
in GiB, bandwidth in GB/s, peaks in TFLOP/s (TOPS for integer precisions),
TDP in W, prices in US$ (per hour for cloud prices).
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.calculators import cost
from atlas.core.calculators.fields import PRECISIONS, field_value
from atlas.core.l10n.names import device_name
from atlas.data.frame import select_devices
from atlas.data.kernel_tables import workloads as kernel_workloads

PURCHASE_PRICES = cost.PURCHASE_KINDS


def label(device: dict, lang: str = "en") -> str:
    """The short label charts print: ``short_name`` if the device has one, else its name, in ``lang``."""
    return device_name(device.get("short_name") or device["name"], lang)


def _precisions(precision) -> list[str]:
    items = [precision] if isinstance(precision, str) else list(precision)
    for p in items:
        if p not in PRECISIONS:
            raise ValueError(f"unknown precision {p!r}; expected one of {', '.join(PRECISIONS)}")
    return items


def peak(device: dict, precision="bf16", unit: str = "matrix", sparsity: str = "dense"):
    """(peak, precision used) for the first of ``precision`` (a name or a list) the device states, or (None, None)."""
    for p in _precisions(precision):
        value = field_value(device, f"{p}.{unit}.{sparsity}")
        if value is not None:
            return value.value, p
    return None, None


def device_price(prices: list[dict], basis: str = "purchase") -> dict:
    """The price fields of a chart input from a device's dated prices (``atlas.data.price_lists.prices_by_device``).

    basis "purchase": the newest purchase price (launch, list or reported range; ``atlas.core.calculators.cost``);
    "cloud": the median over the newest on-demand price of each provider, per device-hour. Empty when none.
    """
    if basis == "cloud":
        cloud = cost.cloud_median(prices)
        if cloud is None:
            return {}
        return {"price_usd": cloud["usd"], "price_usd_high": None, "price_kind": "cloud-per-hour",
                "price_as_of": cloud["as_of"], "price_providers": cloud["providers"]}
    bought = cost.purchase_price(prices)
    if bought is None:
        return {}
    return {"price_usd": bought["usd"], "price_usd_high": bought.get("usd_high"), "price_kind": bought["kind"],
            "price_as_of": bought["as_of"]}


def chart_device(device: dict, precision="bf16", unit: str = "matrix", sparsity: str = "dense",
                 prices: list[dict] = (), price_basis: str = "purchase", lang: str = "en") -> dict:
    """One device as a chart input; figures the device does not state are None.

    ``prices``: the device's dated prices; the price fields follow ``device_price(prices, price_basis)``.
    """
    value, used = peak(device, precision, unit, sparsity)
    figure = lambda name: (v.value if (v := field_value(device, name)) is not None else None)  # noqa: E731
    price = device_price(list(prices), price_basis)
    return {
        "id": device["id"],
        "label": label(device, lang),
        "vendor": device["vendor"],
        "kind": device["kind"],
        "launch_year": device["launch_year"],
        "capacity_gib": figure("memory"),
        "bandwidth_gb_s": figure("bandwidth"),
        "peak_tflops": value,
        "precision": used,
        "tdp_w": figure("tdp"),
        "price_usd": price.get("price_usd"),
        "price_usd_high": price.get("price_usd_high"),
        "price_kind": price.get("price_kind"),
        "price_as_of": price.get("price_as_of"),
    }


def chart_devices(devices: dict, ids=None, kind=None, segment=None, vendor=None, precision="bf16",
                  unit: str = "matrix", sparsity: str = "dense", require=(), price_kinds=None,
                  prices: dict | None = None, lang: str = "en") -> list[dict]:
    """The selected devices as chart inputs with every figure in ``require``.

    Devices picked by ``kind``/``segment``/``vendor`` that lack a figure are
    left out; a device listed in ``ids`` that lacks one raises ``ValueError``.

    Selection as in the tables (``ids`` in that order, else ``kind``/``segment``
    filters in name order); ``vendor`` filters further (a name or a list);
    ``price_kinds`` keeps only prices of those kinds; ``prices`` are the dated prices by device id
    (``atlas.data.price_lists.prices_by_device``, ``Catalog.prices``): cloud prices when ``price_kinds`` names only
    "cloud-per-hour", else the newest purchase price.
    """
    selected = select_devices(devices, kind=kind, ids=ids, segment=segment)
    vendors = None if vendor is None else ([vendor] if isinstance(vendor, str) else list(vendor))
    out = []
    for device in selected:
        if vendors is not None and device["vendor"] not in vendors:
            continue
        basis = "cloud" if price_kinds is not None and set(price_kinds) == {"cloud-per-hour"} else "purchase"
        item = chart_device(device, precision, unit, sparsity, (prices or {}).get(device["id"], ()), basis, lang)
        if price_kinds is not None and item["price_kind"] not in price_kinds:
            continue
        missing = [key for key in require if item.get(key) is None]
        if missing and ids is not None:
            raise ValueError(f"device {device['id']!r} does not state {', '.join(missing)} for this chart")
        if not missing:
            out.append(item)
    return out


def kernel_markers(lang: str, precision: str = "bf16", names=None) -> list[dict]:
    """Roofline markers for the kernel demos' example workloads (``atlas.data.kernel_tables.workloads``,
    intensities derived by ``atlas.core.kernels.roofline``), labelled in ``lang``; ``names`` picks some
    ("triad", "decode", "fma", "matmul"), None takes all."""
    out = []
    for key, params, intensity in kernel_workloads(precision):
        name = key.rsplit(".", 1)[1]
        if names is not None and name not in names:
            continue
        text = {k: l10n.format_number(v, lang, 0) for k, v in params.items()}
        out.append({"label": l10n.t(lang, key, **text), "intensity": intensity})
    if names is not None and not out:
        raise ValueError(f"no kernel example named {', '.join(names)}; use triad, decode, fma or matmul")
    return out

"""Macros for the content pages: derived figures with their inputs from the
data set, localised numbers for worked arithmetic, and the glossary.

Thin on purpose: the arithmetic is the estimators' (``atlas.core.calculators.roofline``),
the glossary is ``atlas.data.glossary``; this module reads device figures and
formats results for the page's language.
"""

from __future__ import annotations

from html import escape

from atlas.core import l10n
from atlas.core.calculators import roofline
from atlas.core.calculators.defaults import WEIGHT_FORMATS
from atlas.core.calculators.fields import field_number as figure
from atlas.core.calculators.fields import field_value
from atlas.core.l10n import names
from atlas.data import chart_estimates, glossary
from atlas.data.safe import inline_text
from atlas.data.tables import field_label


def derived_span(text: str, title: str, kind: str) -> str:
    """A derived figure for running text; ``title`` says how it was computed (Markdown syntax in it stays text)."""
    return f'<span class="atlas-derived" data-derived="{escape(kind)}" title="{inline_text(title)}">{escape(text)}</span>'


def register(env, ctx):
    def lang():
        return ctx.lang()

    def device(device_id):
        return ctx.dataset.device(device_id)

    @env.macro
    def num(value, decimals=None):
        """A number of worked arithmetic in the page's format: ``decimals``
        fraction digits, or three significant digits when None."""
        if decimals is None:
            return l10n.format_rounded(value, lang(), 3)
        return l10n.format_number(value, lang(), decimals)

    @env.macro
    def intensity(device_id, field="bf16.matrix.dense"):
        """Critical arithmetic intensity (operations per byte) = peak of ``field`` ÷ memory bandwidth."""
        dev = device(device_id)
        value = roofline.critical_intensity(figure(dev, field), figure(dev, "bandwidth"))
        title = l10n.t(lang(), "derived.intensity_title", device=names.device_name(dev["name"], lang()), field=field_label(field, lang()))
        return derived_span(l10n.format_rounded(value, lang(), 3), title, "intensity")

    @env.macro
    def ratio(device_a, field_a, device_b, field_b, digits=2):
        """Figure ``field_a`` of ``device_a`` divided by ``field_b`` of ``device_b`` (e.g. 2 for FP8 vs BF16)."""
        a, b = device(device_a), device(device_b)
        value = figure(a, field_a) / figure(b, field_b)
        title = l10n.t(lang(), "derived.ratio_title", a=f"{a['name']} {field_label(field_a, lang())}", b=f"{b['name']} {field_label(field_b, lang())}")
        return derived_span(l10n.format_rounded(value, lang(), digits), title, "ratio")

    @env.macro
    def read_time_ms(device_id, gigabytes):
        """Milliseconds to stream ``gigabytes`` (10⁹ bytes) once at the device's memory bandwidth."""
        dev = device(device_id)
        value = roofline.transfer_time_s(gigabytes * roofline.GIGA, figure(dev, "bandwidth")) * 1000
        title = l10n.t(lang(), "derived.read_time_title", device=names.device_name(dev["name"], lang()))
        return derived_span(l10n.format_rounded(value, lang(), 2), title, "read-time")

    @env.macro
    def tokens_per_s_bound(device_id, gigabytes):
        """Upper bound on single-stream decoding speed: bandwidth ÷ bytes read per token."""
        dev = device(device_id)
        value = 1 / roofline.transfer_time_s(gigabytes * roofline.GIGA, figure(dev, "bandwidth"))
        title = l10n.t(lang(), "derived.tokens_title", device=names.device_name(dev["name"], lang()))
        return derived_span(l10n.format_rounded(value, lang(), 2), title, "tokens-per-s")

    @env.macro
    def compute_time_ms(device_id, field, flops):
        """Milliseconds for ``flops`` operations at the device's peak for ``field``."""
        dev = device(device_id)
        value = roofline.compute_time_s(flops, figure(dev, field)) * 1000
        title = l10n.t(lang(), "derived.compute_time_title", device=names.device_name(dev["name"], lang()), field=field_label(field, lang()))
        return derived_span(l10n.format_rounded(value, lang(), 2), title, "compute-time")

    @env.macro
    def device_hours(device_id, field, flops, utilisation):
        """Device-hours to execute ``flops`` operations at ``utilisation`` (0–1) of the peak of ``field``."""
        dev = device(device_id)
        if not 0 < utilisation <= 1:
            raise ValueError(f"utilisation must be in (0, 1]; got {utilisation!r}")
        value = roofline.compute_time_s(flops, figure(dev, field), utilisation) / 3600
        title = l10n.t(lang(), "derived.device_hours_title", device=names.device_name(dev["name"], lang()), field=field_label(field, lang()))
        return derived_span(l10n.format_rounded(value, lang(), 2), title, "device-hours")

    @env.macro
    def wall_days(device_id, field, flops, utilisation, devices):
        """Days for ``devices`` devices to execute ``flops`` at ``utilisation`` of the peak of ``field``."""
        dev = device(device_id)
        if not 0 < utilisation <= 1 or devices < 1:
            raise ValueError(f"need 0 < utilisation <= 1 and devices >= 1; got {utilisation!r}, {devices!r}")
        value = roofline.compute_time_s(flops, figure(dev, field) * devices, utilisation) / 86400
        title = l10n.t(lang(), "derived.wall_days_title", device=names.device_name(dev["name"], lang()), field=field_label(field, lang()), devices=devices)
        return derived_span(l10n.format_rounded(value, lang(), 2), title, "wall-days")

    def work_intensity(work, device_id) -> float:
        """Operations per byte of ``work``: a number, speed-calculator parameters (``{"workload": ...}``,
        computed by the estimators) or a matrix product (``{"m", "n", "k", "bytes_per_value"}``)."""
        if not isinstance(work, dict):
            return work
        case = {k: v for k, v in work.items() if k != "label"}  # a chart's label is no parameter
        if "workload" in case:
            return chart_estimates.workload_intensity(case, device_id, lang(), ctx.catalog())
        return roofline.matmul_intensity(**case)

    @env.macro
    def attainable(device_id, field, ops_per_byte):
        """Roofline: attainable throughput of ``field`` at ``ops_per_byte``, with its unit.

        ``ops_per_byte``: a number, the parameters of a speed-calculator workload, e.g.
        ``{"workload": "decode", "model": "llama-3.1-8b", "weights": "bf16", "batch": 32}``, or a
        matrix product ``{"m": 4096, "n": 4096, "k": 4096, "bytes_per_value": 2}``.
        """
        dev = device(device_id)
        intensity = work_intensity(ops_per_byte, device_id)
        value = roofline.attainable_tflops(figure(dev, field), figure(dev, "bandwidth"), intensity)
        unit = l10n.t(lang(), field_value(dev, field).unit)
        title = l10n.t(lang(), "derived.attainable_title", device=names.device_name(dev["name"], lang()), field=field_label(field, lang()))
        return derived_span(f"{l10n.format_rounded(value, lang(), 3)}\u00a0{unit}", title, "attainable")

    @env.macro
    def workload_intensity(**params):
        """Arithmetic intensity (FLOP per byte) the speed calculator computes for a workload, e.g.
        ``workload_intensity(device="h100-sxm", workload="decode", model="llama-3.1-8b", batch=32)``
        (any device that states the precision: the intensity is the workload's)."""
        if "device" not in params or "workload" not in params:
            raise ValueError(f"workload_intensity needs device= and workload=; got {sorted(params)}")
        value = work_intensity(params, params["device"])
        title = l10n.t(lang(), "derived.workload_intensity_title")
        return derived_span(l10n.format_rounded(value, lang(), 3), title, "workload-intensity")

    @env.macro
    def matmul_intensity(m, n, k, bytes_per_value):
        """FLOP per byte of an m×k by k×n product moving each value once."""
        return l10n.format_significant(roofline.matmul_intensity(m, n, k, bytes_per_value), lang(), 3)

    @env.macro
    def weight_bits(fmt, decimals=1):
        """Average bits per weight of weight format ``fmt`` as the estimators count it (GGUF types:
        llama.cpp's per-tensor recipe over the reference Llama-3-8B)."""
        value = WEIGHT_FORMATS[fmt].bits
        title = l10n.t(lang(), "derived.weight_bits_title", fmt=fmt.upper())
        return derived_span(l10n.format_number(value, lang(), decimals), title, "weight_bits")

    @env.macro
    def size_ratio(fmt_a, fmt_b, digits=2):
        """How many times larger weights stored in ``fmt_a`` are than in ``fmt_b`` (bits ÷ bits)."""
        value = WEIGHT_FORMATS[fmt_a].bits / WEIGHT_FORMATS[fmt_b].bits
        title = l10n.t(lang(), "derived.size_ratio_title", a=fmt_a.upper(), b=fmt_b.upper())
        return derived_span(l10n.format_rounded(value, lang(), digits), title, "size_ratio")

    @env.macro
    def glossary_list(group):
        """The glossary entries of ``group`` as a Markdown definition list."""
        return glossary.glossary_markdown(group, lang())

    @env.macro
    def glossary_group(group):
        """The heading text of a glossary group."""
        return escape(l10n.t(lang(), f"glossary.group.{group}"))

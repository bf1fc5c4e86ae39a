"""Macros for the accuracy page: the speed model's cross-validated error, from ``atlas/data/fit_report.json``.

Every figure the page states comes from here, so a refit updates the text with the tables. Ratios are predicted ÷
measured tokens per second throughout (``atlas.data.accuracy.predicted_over_measured``).
"""

from __future__ import annotations

import posixpath

from atlas.core import l10n
from atlas.core.charts.accuracy import accuracy_figure
from atlas.data import accuracy
from atlas.data.downloads import ACCURACY_CSV, FOLDER, accuracy_csv, file_size

# By the report file's size and time (a build reads it once): the parsed report and, once asked for, its cases as
# the CSV download (downloads.accuracy_csv), whose size the chart's link states.
_REPORTS: dict[tuple[int, int], dict] = {}
_CASES_CSV: dict[tuple[int, int], str] = {}


def _report_key() -> tuple[int, int]:
    stat = accuracy.REPORT.stat()
    key = (stat.st_size, stat.st_mtime_ns)
    if key not in _REPORTS:  # no macro changes the report it is given
        _REPORTS.clear()
        _CASES_CSV.clear()
        _REPORTS[key] = accuracy.load_report()
    return key


def register(env, ctx):
    def report():
        return _REPORTS[_report_key()]

    def cases_csv():
        key = _report_key()
        if key not in _CASES_CSV:
            _CASES_CSV[key] = accuracy_csv(_REPORTS[key])
        return _CASES_CSV[key]

    @env.macro
    def accuracy_summary():
        """Per group of cases: count, share within ×0.8–1.25 and ×0.67–1.5, median and worst, target met or not."""
        return accuracy.summary_table(report(), ctx.lang())

    @env.macro
    def accuracy_chart(colour_by="engine", caption=None):
        """Predicted against measured tokens/s, log–log, coloured by engine (or device_class, backend); below it
        the points per group and a link to every case as CSV (the site's downloads/, relative to this page)."""
        href = posixpath.relpath(f"{FOLDER}/{ACCURACY_CSV}", env.page.url or ".")
        return accuracy_figure(accuracy.chart_points(report(), colour_by, ctx.lang()), ctx.lang(), caption,
                               cases_file=(href, file_size(cases_csv(), ctx.lang())))

    @env.macro
    def accuracy_breakdown(by="engine", group=None):
        """Per engine, device class (every class, those without cases included), back end or engine and device
        class (``engine_device_class``); of all cases or of one group."""
        return accuracy.breakdown_table(report(), ctx.lang(), by, ctx.dataset.devices, group)

    @env.macro
    def accuracy_worst(count=12):
        return accuracy.worst_table(report(), ctx.dataset.inference, ctx.lang(), count)

    @env.macro
    def accuracy_sources():
        return accuracy.sources_list(report(), ctx.dataset.inference, ctx.lang())

    @env.macro
    def accuracy_refused():
        """The measurements the fit leaves out, per reason, with counts."""
        return accuracy.refused_list(report(), ctx.lang())

    @env.macro
    def accuracy_target(group):
        """A target's state: 'missed: 78 % within ×0.8–1.25, target 90 %' ('answered': no case left out for its
        device)."""
        if group not in accuracy.TARGETS and group != "answered":
            raise ValueError(f"no target for {group!r}")
        return accuracy.target_status(report(), group, ctx.lang())

    @env.macro
    def accuracy_figure_of(group, key):
        """One figure of a group as the summary table shows it (e.g. accuracy_figure_of('prefill',
        'within_0.67_1.5')): a share as a percentage, a ratio (predicted ÷ measured) with two decimals."""
        if group != "all" and group not in report()["summary"]["cross_validated"]:
            return "–"
        return accuracy_subset(key, group=None if group == "all" else group)

    @env.macro
    def accuracy_subset(what, without=None, **filters):
        """One figure (cases, within_0.8_1.25, within_0.67_1.5, median_ratio, worst_ratio, min_ratio, max_ratio,
        measured_min, measured_max) of the cases matching ``filters`` (group, engine, device_class, source, split,
        phase, device, min_devices, min_batch, max_batch) less those matching all of ``without``."""
        filters = {k: v for k, v in filters.items() if v is not None}
        cases = accuracy.select(report(), ctx.dataset.devices, without, **filters)
        figures = accuracy.page_figures(cases)
        if figures is not None and what not in figures:
            raise ValueError(f"unknown figure {what!r}")
        return accuracy.figure_text(figures, what, ctx.lang())

    @env.macro
    def accuracy_count(what="cases"):
        summary = report()["summary"]
        count = {"sources": len(summary["sources"]), "refused": accuracy.refused_cases(report()),
                 "fitted": summary["cases"]}.get(what, len(report()["cases"]))
        return l10n.format_number(count, ctx.lang(), 0)

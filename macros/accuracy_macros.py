"""Macros for the accuracy page: the speed model's cross-validated error, from ``atlas/data/fit_report.json``."""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.charts.accuracy import accuracy_figure
from atlas.data import accuracy


def register(env, ctx):
    def report():
        return accuracy.load_report()

    @env.macro
    def accuracy_summary():
        """Per group of cases: count, share within ×0.8–1.25 and ×0.67–1.5, median and worst, target met or not."""
        return accuracy.summary_table(report(), ctx.lang())

    @env.macro
    def accuracy_chart(colour_by="engine", caption=None):
        """Predicted against measured tokens/s, log–log, coloured by engine (or device_class, backend)."""
        return accuracy_figure(accuracy.chart_points(report(), colour_by), ctx.lang(), caption)

    @env.macro
    def accuracy_breakdown(by="engine"):
        return accuracy.breakdown_table(report(), ctx.lang(), by)

    @env.macro
    def accuracy_worst(count=12):
        return accuracy.worst_table(report(), ctx.dataset.inference, ctx.lang(), count)

    @env.macro
    def accuracy_sources():
        return accuracy.sources_list(report(), ctx.dataset.inference, ctx.lang())

    @env.macro
    def accuracy_figure_of(group, key):
        """One figure of the summary (e.g. accuracy_figure_of('prefill', 'within_0.67_1.5')) as a percentage."""
        value = report()["summary"]["cross_validated"].get(group, {}).get(key)
        return accuracy._pct(value, ctx.lang()) if value is not None else "–"

    @env.macro
    def accuracy_count(what="cases"):
        summary = report()["summary"]
        count = len(summary["sources"]) if what == "sources" else summary["cases"]
        return l10n.format_number(count, ctx.lang(), 0)

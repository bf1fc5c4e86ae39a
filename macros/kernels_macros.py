"""Macros for the kernel-demo pages (docs/kernels/): measured-vs-peak tables
and the systolic-array and roofline results, pre-rendered at build time by
``atlas.data.kernel_tables`` from the same ``atlas/demos/`` modules the pages show."""

from __future__ import annotations

from atlas.data import kernel_tables


def register(env, ctx):
    @env.macro
    def measurements_table(demo, backend=None, op=None):
        """Recorded measurements of one demo against their devices' peaks, e.g. measurements_table('matmul');
        op= keeps one operation of the fused demo, e.g. measurements_table('fused', op='layernorm')."""
        return kernel_tables.measurements_table(ctx.dataset.measurements, ctx.dataset.devices, ctx.lang(), demo, backend, op)

    @env.macro
    def kernel_figure(measurement_id, what="value", fmas=None):
        """One figure of a recorded measurement for prose: what="value", "percent" (of the device's peak), "speedup",
        'peak' or 'ms'; fmas= picks a point of an intensity sweep, e.g. kernel_figure('h200-sxm-matmul-cuda-bf16-8192-2026-12-04', 'percent')."""
        return kernel_tables.measured_figure(ctx.dataset.measurements, ctx.dataset.devices, ctx.lang(), measurement_id, what, fmas)

    @env.macro
    def roofline_table(ids, precision="bf16", intensities=(1, 10, 100, 1000), demo="matmul"):
        """Ridge point and attainable TFLOP/s per device, e.g. roofline_table(['h100-sxm', 'a100-sxm-80gb']);
        demo='intensity' compares with the vector unit (an element-wise FMA chain)."""
        return kernel_tables.roofline_table(ctx.dataset.devices, ctx.lang(), ids, precision, intensities, demo)

    @env.macro
    def roofline_workloads(device_id, precision="bf16"):
        """Example workloads on one device's roofline, e.g. roofline_workloads('h100-sxm')."""
        return kernel_tables.roofline_workloads(ctx.dataset.devices, ctx.lang(), device_id, precision)

    @env.macro
    def systolic_table(size=128, sizes=(8, 32, 128, 256, 1024, 4096)):
        """Cycles and utilisation of square products on a size x size systolic array."""
        return kernel_tables.systolic_table(ctx.lang(), size, sizes)

    @env.macro
    def systolic_trace(size=4, m=6):
        """The cycle-by-cycle data flow of a small product through the array."""
        return kernel_tables.systolic_trace(ctx.lang(), size, m)

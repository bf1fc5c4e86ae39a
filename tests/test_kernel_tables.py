"""Measured-vs-peak and roofline tables: values from the data set, locale formatting, escaping."""

import pytest

from atlas.data import kernel_tables


def entry(**changes):
    base = {
        "id": "m1",
        "demo": "matmul",
        "backend": "torch",
        "device": "h100-sxm",
        "device_name": "NVIDIA H100 80GB HBM3",
        "platform": "cuda",
        "params": {"precision": "bf16", "size": 8192},
        "result": {"value": 742.05, "unit": "tflops"},
        "software": {"python": "3.12.3", "torch": "2.11.0"},
        "date": "2026-11-30",
        "command": "python -m atlas.demos.matmul_torch --precision bf16 --size 8192 --json",
    }
    base.update(changes)
    return base


@pytest.mark.parametrize(
    "lang, measured, peak, share, date",
    [
        ("en", ">742\u00a0TFLOP/s<", "989.4 TFLOP/s (BF16, matrix unit, dense)", ">75%<", ">2026-11-30<"),
        ("de", ">742\u00a0TFLOP/s<", "989,4\u00a0TFLOP/s (BF16, Matrixeinheit, dicht)", ">75\u202f%<", ">30.11.2026<"),
    ],
)
def test_measurement_row_against_the_data_set_peak(dataset, lang, measured, peak, share, date):
    html = kernel_tables.measurements_table({"m1": entry()}, dataset.devices, lang, "matmul")
    assert measured in html and peak in html and share in html and date in html
    assert 'data-device="h100-sxm"' in html and "<code>--precision bf16 --size 8192</code>" in html


def test_unmatched_device_shows_no_peak(dataset):
    html = kernel_tables.measurements_table({"m1": entry(device=None, device_name="AMD EPYC")}, dataset.devices, "de", "matmul")
    assert "AMD EPYC <small>(nicht im Datensatz)</small>" in html
    assert html.count('data-sort="-1"') == 2 and "data-device" not in html


def test_strings_from_measurements_are_escaped(dataset):
    hostile = entry(device=None, device_name='<img src=x onerror=alert(1)>', command='"><script>alert(1)</script>')
    html = kernel_tables.measurements_table({"m1": hostile}, dataset.devices, "en", "matmul")
    assert "<img" not in html and "<script>" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_other_demos_and_empty_tables(dataset):
    assert "No measurements recorded" in kernel_tables.measurements_table({"m1": entry()}, dataset.devices, "en", "fused")
    with pytest.raises(ValueError, match="unknown demo"):
        kernel_tables.measurements_table({}, dataset.devices, "en", "gemm")


def test_roofline_table_and_errors(dataset):
    html = kernel_tables.roofline_table(dataset.devices, "en", ["a100-sxm-80gb"], "bf16", [1, 1000])
    # A100: 312 TFLOP/s / 2,039 GB/s = 153 FLOP/byte; memory roof at 1 FLOP/byte = 2.04 TFLOP/s.
    assert ">153<" in html and ">2.04<" in html and ">312<" in html
    with pytest.raises(ValueError, match="states no fp8 peak"):
        kernel_tables.roofline_table(dataset.devices, "en", ["a100-sxm-80gb"], "fp8")
    with pytest.raises(ValueError, match="unknown device id"):
        kernel_tables.roofline_workloads(dataset.devices, "en", "h300")


def test_h200_peak_cell_says_it_is_half_the_sparse_figure(dataset):
    for lang, text in (("en", "half the sparse 1,979"), ("de", "Hälfte des Sparsity-Werts 1.979")):
        html = kernel_tables.measurements_table({"m1": entry(device="h200-sxm")}, dataset.devices, lang, "matmul")
        assert text in html


def fused_entry(entry_id, op, value, backend="torch"):
    return entry(
        id=entry_id,
        demo="fused",
        backend=backend,
        params={"op": op, "rows": 32768, "cols": 8192, "dtype": "fp32"},
        result={"value": value, "unit": "gb_s"},
        command=f"python kernels/fused_{backend}.py --op {op} --rows 32768 --cols 8192 --json",
    )


def test_fused_table_keeps_softmax_and_layer_norm_apart(dataset):
    import re

    recorded = {
        "sm": fused_entry("sm", "softmax", 3000.0),
        "ln": fused_entry("ln", "layernorm", 2900.0),
        "ln-jax": fused_entry("ln-jax", "layernorm", 3100.0, backend="jax"),
    }
    both = kernel_tables.measurements_table(recorded, dataset.devices, "en", "fused")
    # Grouped by operation (layernorm sorts before softmax), each row naming its op.
    assert re.findall(r'data-measurement="([^"]+)"', both) == ["ln-jax", "ln", "sm"]
    # dtype is recorded (fused_entry has it) but is not an option of the fused demos.
    assert "<code>--op layernorm --rows 32768 --cols 8192</code>" in both
    assert "<code>--op softmax --rows 32768 --cols 8192</code>" in both
    ln = kernel_tables.measurements_table(recorded, dataset.devices, "de", "fused", op="layernorm")
    assert 'data-op="layernorm"' in ln and re.findall(r'data-measurement="([^"]+)"', ln) == ["ln-jax", "ln"]
    assert ">2.900\u00a0GB/s<" in ln  # German digit grouping
    sm = kernel_tables.measurements_table(recorded, dataset.devices, "en", "fused", op="softmax")
    assert re.findall(r'data-measurement="([^"]+)"', sm) == ["sm"]
    # H100 SXM: 3,000 GB/s of 3,350 GB/s = 89.6 %
    assert ">89.6%<" in sm
    only_softmax = {"sm": recorded["sm"]}
    assert "No measurements of this operation recorded yet." in kernel_tables.measurements_table(only_softmax, dataset.devices, "en", "fused", op="layernorm")
    assert "Für diese Operation liegen noch keine Messungen vor." in kernel_tables.measurements_table(only_softmax, dataset.devices, "de", "fused", op="layernorm")


def test_op_filter_is_checked(dataset):
    with pytest.raises(ValueError, match="unknown op 'gelu'"):
        kernel_tables.measurements_table({}, dataset.devices, "en", "fused", op="gelu")
    with pytest.raises(ValueError, match="unknown op 'softmax' for the matmul demo"):
        kernel_tables.measurements_table({}, dataset.devices, "en", "matmul", op="softmax")


def test_options_column_shows_only_options_the_demo_takes(dataset):
    """Every --option the column shows for a recorded measurement is one its demo reads (in its own file,
    the demo's shared module or the harness every demo uses), so a reader can type what the page shows."""
    import re

    from atlas.demos import REPO_ROOT, demo_file

    assert dataset.measurements, "no recorded measurements to check"
    for m in dataset.measurements.values():
        shown = re.findall(r"--[a-z]+", kernel_tables.options_text(m["params"], m["demo"]))
        sources = [demo_file(m["demo"], m["backend"]), REPO_ROOT / "atlas" / "demos" / "harness.py"]
        sources += [REPO_ROOT / "atlas" / "demos" / f"{m['demo']}_common.py"]
        text = "".join(p.read_text(encoding="utf-8") for p in sources if p.is_file())
        for option in shown:
            assert f'"{option}"' in text, f"{m['id']}: the options column shows {option}, which {m['demo']}/{m['backend']} does not take"


H200 = "h200-sxm-{}-2026-12-04"


@pytest.mark.parametrize(
    "lang, measurement, what, fmas, expected",
    [
        # The first H200 run (data/measurements/h200-sxm/): hand-written CUDA C BF16 against 989.5 TFLOP/s dense.
        ("en", "matmul-cuda-bf16-8192", "value", None, "86.1\u00a0TFLOP/s"),
        ("en", "matmul-cuda-bf16-8192", "percent", None, "8.7%"),
        ("de", "matmul-cuda-bf16-8192", "percent", None, "8,7\u202f%"),
        ("en", "matmul-torch-bf16-8192", "percent", None, "78.3%"),
        ("en", "matmul-torch-fp8-8192", "peak", None, "1,979\u00a0TFLOP/s"),
        ("de", "matmul-triton-fp8-8192", "value", None, "177\u00a0TFLOP/s"),
        ("en", "bandwidth-cuda-copy-268435456-fp32", "percent", None, "81.9%"),
        ("de", "bandwidth-torch-copy-268435456-fp32", "value", None, "3.918\u00a0GB/s"),
        ("en", "intensity-jax-fp32-268435456", "percent", None, "44%"),
        ("de", "intensity-jax-fp32-268435456", "ms", 64, "2,09\u00a0ms"),
        ("en", "intensity-jax-fp32-268435456", "value", 16, "12.7\u00a0TFLOP/s"),
        ("en", "fused-triton-softmax-32768-8192-fp32", "speedup", None, "4.9×"),
        ("de", "fused-triton-layernorm-32768-8192-fp32", "speedup", None, "6,8×"),
        ("en", "fused-triton-softmax-32768-8192-fp32", "ms", None, "0.554\u00a0ms"),
    ],
)
def test_measured_figure_for_prose(dataset, lang, measurement, what, fmas, expected):
    assert kernel_tables.measured_figure(dataset.measurements, dataset.devices, lang, H200.format(measurement), what, fmas) == expected


def test_measured_figure_refuses_what_it_cannot_show(dataset):
    figure = kernel_tables.measured_figure
    with pytest.raises(ValueError, match="no recorded measurement"):
        figure(dataset.measurements, dataset.devices, "en", "h200-sxm-matmul-cuda-bf16-8192-2025-01-01")
    with pytest.raises(ValueError, match="unknown figure"):
        figure(dataset.measurements, dataset.devices, "en", H200.format("matmul-cuda-bf16-8192"), "median")
    with pytest.raises(ValueError, match="no point at 3 FMAs"):
        figure(dataset.measurements, dataset.devices, "en", H200.format("intensity-jax-fp32-268435456"), "value", 3)
    with pytest.raises(ValueError, match="no speed-up"):
        figure(dataset.measurements, dataset.devices, "en", H200.format("matmul-cuda-bf16-8192"), "speedup")
    cpu = next(m for m in dataset.measurements.values() if m["device"] is None)
    with pytest.raises(ValueError, match="no peak to compare with"):
        figure(dataset.measurements, dataset.devices, "en", cpu["id"], "percent")


def test_every_h200_demo_and_backend_is_recorded(dataset):
    """Issue 28: all four demos, every GPU back end, with command, software and date."""
    h200 = [m for m in dataset.measurements.values() if m["device"] == "h200-sxm"]
    assert len(h200) == 34
    assert {(m["demo"], m["backend"]) for m in h200} == {(d, b) for d in ("bandwidth", "matmul", "intensity", "fused") for b in ("torch", "triton", "jax", "cuda")}
    assert all(m["command"].startswith("python -m kernels") and m["software"] and m["date"] == "2026-12-04" for m in h200)

"""The audit rules of issue 32: dense figures that are 'with sparsity' ones, derived halves that are
not half, and estimates beside a stated figure. Broken fixtures are in tests/fixtures/invalid_devices
(dense-is-sparse-quote, derived-not-half, estimate-beside-stated); these tests pin the rules' edges."""

import pytest

from atlas.data.checks.devices import estimate_problems, sparsity_problems


def entry(precision="bf16", sparsity="dense", tflops=835.5, **extra):
    return {"precision": precision, "unit": "matrix", "sparsity": sparsity, "tflops": tflops, "source": "s", **extra}


@pytest.mark.parametrize(
    "note",
    [
        'Per GPU: "1,671 TFLOPS*" (* with sparsity).',
        "1671 TFLOPS with sparsity, per GPU",
        "NVIDIA gives 1,671 TFLOP/s, with sparsity.",
    ],
)
def test_dense_equal_to_a_quoted_sparse_figure_is_refused(note):
    problems = sparsity_problems([entry(tflops=1671, note=note)])
    assert [p[0] for p in problems] == [("compute", 0, "tflops")]
    assert "equals the 'with sparsity' figure" in problems[0][1]


def test_dense_half_of_a_quoted_sparse_figure_passes():
    assert sparsity_problems([entry(tflops=835.5, note='The datasheet gives "1,671 TFLOPS*" (* with sparsity).')]) == []


def test_sparse_entry_quoting_itself_passes():
    assert sparsity_problems([entry(sparsity="sparse", tflops=1671, note="1,671 TFLOPS with sparsity")]) == []


def test_derived_half_must_be_half():
    method = 'one half of the sparse 1,671 TFLOP/s (the datasheet footnotes it "With sparsity")'
    assert sparsity_problems([entry(tflops=835.5, origin="derived", method=method)]) == []
    problems = sparsity_problems([entry(tflops=1671, origin="derived", method=method)])
    assert problems and "is not one half of the sparse 1,671" in problems[0][1]


def test_derived_method_citing_another_device_is_not_a_quote():
    # h200-sxm: the method compares with the H100's "989.4 dense vs 1,978.9 sparse FP16"; its FP8 dense is 1,979.
    method = "one half of the sparse 3,958 TFLOP/s (Hopper whitepaper: 989.4 dense vs 1,978.9 sparse FP16)"
    assert sparsity_problems([entry(precision="fp8", tflops=1979, origin="derived", method=method)]) == []


def test_estimate_beside_stated_figure_is_refused_unless_it_names_it():
    stated = entry(precision="fp16", sparsity="sparse", tflops=1671)
    bare = entry(precision="fp16", tflops=800, origin="estimate", method="132 SMs x 1,024 FLOP x 1.5 GHz")
    problems = estimate_problems([stated, bare])
    assert [p[0] for p in problems] == [("compute", 1, "origin")]
    named = dict(
        bare, method="cores x clock; not derived from the 1,671 above, whose sparsity the source does not state"
    )
    assert estimate_problems([stated, named]) == []


def test_estimate_beside_other_precision_or_unit_passes():
    stated = entry(precision="fp16", sparsity="sparse", tflops=1671)
    other_precision = entry(precision="bf16", tflops=800, origin="estimate", method="cores x clock")
    other_unit = dict(entry(precision="fp16", tflops=100, origin="estimate", method="cores x clock"), unit="vector")
    assert estimate_problems([stated, other_precision, other_unit]) == []


def test_estimate_beside_derived_figure_passes():
    derived = entry(precision="fp8", tflops=1979, origin="derived", method="one half of the sparse 3,958")
    estimate = entry(precision="fp8", sparsity="sparse", tflops=3958, origin="estimate", method="twice the dense")
    assert estimate_problems([derived, estimate]) == []


def test_shipped_data_set_passes_the_audit_rules(dataset):
    for device in dataset.devices.values():
        assert sparsity_problems(device["compute"]) == [], device["id"]
        assert estimate_problems(device["compute"]) == [], device["id"]


def test_audited_figures_hold(dataset):
    """The issue-32 corrections, read back from the data set (dense = one half of the datasheet's sparse)."""
    nvl = {(c["precision"], c["sparsity"]): c["tflops"] for c in dataset.devices["h100-nvl"]["compute"]}
    for precision, sparse in (("fp16", 1671), ("bf16", 1671), ("int8", 3341), ("tf32", 835)):
        assert nvl[(precision, "sparse")] == sparse
        assert nvl[(precision, "dense")] == pytest.approx(sparse / 2)
    assert dataset.devices["gb200"]["memory"]["capacity_gib"] == 186
    v100 = dataset.devices["v100-pcie-16gb"]
    assert v100["power"]["tdp_w"] == 250
    fp16 = next(c for c in v100["compute"] if (c["precision"], c["unit"]) == ("fp16", "matrix"))
    assert fp16["tflops"] == 112 and fp16.get("origin", "stated") == "stated"


def test_azure_rows_are_linux_rates_throughout(dataset):
    """Issue 32: the multi-GPU NC A100 v4 / NC H100 v5 rows held Windows rates; per GPU-hour they now
    match the one-GPU Linux rows of the same series."""
    rows = dataset.prices["azure-2026-11"]["prices"]
    per_gpu = {}
    for row in rows:
        if row["instance"].startswith("Standard_NC"):
            per_gpu.setdefault(row["device"], set()).add(round(row["usd"] / row.get("unit_count", 1), 3))
    assert per_gpu == {"a100-pcie-80gb": {3.673}, "h100-nvl": {6.98}}

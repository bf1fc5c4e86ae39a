"""The host-memory collection (data/host-memory/): schema, checks, and the figures filed."""

import copy
import datetime

import pytest

from atlas.data.checks.host_memory import host_memory_problems, peak_bandwidth_gb_s
from atlas.data.schema import schema_problems

TODAY = datetime.date(2026, 12, 7)  # on or after the newest access date in data/


def test_collection_is_loaded(dataset):
    assert {"ddr5-5600-dual-channel", "ddr5-4800-12-channel", "lpddr5x-8533-128-bit"} <= set(dataset.host_memory)
    assert dataset.files["host_memory"]["ddr5-4800-12-channel"] == "data/host-memory/ddr5-4800-12-channel.yaml"


@pytest.mark.parametrize(
    "entry_id, bandwidth",
    [
        ("ddr4-3200-dual-channel", 51.2),
        ("ddr5-4800-dual-channel", 76.8),  # Intel ARK, Core i9-12900K: 'Max Memory Bandwidth 76.8 GB/s'
        ("ddr5-5600-dual-channel", 89.6),  # Intel ARK, Core i9-13900K: 'Max Memory Bandwidth 89.6 GB/s'
        ("ddr5-4800-12-channel", 460.8),  # AMD, EPYC 9654: 'Per Socket Mem BW 460.80 GB/s'
        ("ddr5-6400-12-channel", 614.4),
        ("lpddr5x-8533-128-bit", 136.5),
    ],
)
def test_peak_is_bus_bytes_times_transfer_rate(dataset, entry_id, bandwidth):
    entry = dataset.host_memory[entry_id]
    assert entry["bandwidth_gb_s"] == pytest.approx(bandwidth)
    assert peak_bandwidth_gb_s(entry) == pytest.approx(bandwidth, rel=0.001)


def test_computed_figures_say_how(dataset):
    for entry in dataset.host_memory.values():
        if entry.get("origin", "stated") == "stated":
            assert entry["bandwidth_source"] in entry["sources"], entry["id"]
        else:
            assert entry["method"], entry["id"]


def test_epyc_9654_device_and_host_memory_agree(dataset):
    device = dataset.device("epyc-9654")["memory"]
    assert device["bandwidth_gb_s"] == dataset.host_memory["ddr5-4800-12-channel"]["bandwidth_gb_s"]


@pytest.fixture
def good(dataset):
    return copy.deepcopy(dataset.host_memory["ddr5-5600-dual-channel"])


def test_a_valid_entry_has_no_problems(good):
    assert schema_problems(good, "host-memory.schema.json") == []
    assert host_memory_problems(good, TODAY) == []


def test_bandwidth_that_does_not_follow_from_the_bus_is_refused(good):
    good["bandwidth_gb_s"] = 179.2  # counted both directions or four channels
    messages = [m for _, m in host_memory_problems(good, TODAY)]
    assert any("differs from bus width x transfer rate" in m for m in messages)


def test_ddr_channels_are_64_bits(good):
    good["bus_width_bits"] = 256
    good["bandwidth_gb_s"] = 179.2
    messages = [m for _, m in host_memory_problems(good, TODAY)]
    assert any("64 bits wide" in m for m in messages)


def test_unknown_and_unused_sources_are_refused(good):
    good["capacity"]["source"] = "nowhere"
    problems = host_memory_problems(good, TODAY)
    assert any(path == ("capacity", "source") for path, _ in problems)


def test_derived_bandwidth_needs_a_method(good):
    good["origin"] = "derived"
    problems = schema_problems(good, "host-memory.schema.json")
    assert any("method" in message for _, message in problems)


def test_typical_size_above_the_maximum_is_refused(good):
    good["typical_capacity_gib"] = [64, 256]
    messages = [m for _, m in host_memory_problems(good, TODAY)]
    assert any("above the stated maximum" in m for m in messages)

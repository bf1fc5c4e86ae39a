"""The prices collection (data/prices/): schema, per-file checks and device references."""

import datetime
import html
import re
import shutil

import pytest

from atlas.core.calculators import cost
from atlas.data.checks.prices import (
    per_device_usd,
    price_problems,
    price_references,
    prices_by_device,
    reference_problems,
)
from atlas.data.dataset import COLLECTIONS, CROSS_CHECKS, load_dataset
from atlas.data.errors import DataValidationError
from atlas.data.schema import schema_problems
from conftest import REPO_ROOT

TODAY = datetime.date(2026, 12, 7)  # on or after the newest access date in data/
PRICE_FILES = sorted((REPO_ROOT / "data" / "prices").glob("*.yaml"))


def entry(**changes) -> dict:
    """A valid cloud price list; ``changes`` replace top-level keys."""
    base = {
        "schema_version": 1,
        "id": "example-2026-09",
        "title": "Example on-demand prices",
        "kind": "cloud-per-hour",
        "as_of": "2026-09",
        "region": "us-east-1",
        "provider": "Example Cloud",
        "source": "page",
        "prices": [{"device": "h100-sxm", "usd": 55.04, "unit_count": 8, "instance": "p5.48xlarge"}],
        "sources": {
            "page": {"url": "https://example.com/pricing", "title": "Pricing", "publisher": "Example", "accessed": "2026-12-03"}
        },
    }
    base.update(changes)
    return base


def messages(data: dict) -> list[str]:
    return [m for _, m in schema_problems(data, "price.schema.json") + price_problems(data, TODAY)]


def test_registered():
    assert any(c.name == "prices" and c.schema == "price.schema.json" for c in COLLECTIONS)
    assert price_references in CROSS_CHECKS


def test_valid_entry_has_no_problems():
    assert messages(entry()) == []


def test_per_device_price_divides_by_unit_count():
    assert per_device_usd({"usd": 55.04, "unit_count": 8}) == pytest.approx(6.88)
    assert per_device_usd({"usd": 2.69}) == 2.69


def test_future_month_is_refused():
    assert any("future" in m for m in messages(entry(as_of="2027-01")))


def test_usd_high_only_in_a_street_range():
    priced = [{"device": "b200", "usd": 30000, "usd_high": 40000}]
    assert any("only a street-range" in m for m in messages(entry(prices=priced)))
    assert messages(entry(kind="street-range", prices=priced)) == []
    low = [{"device": "b200", "usd": 40000, "usd_high": 30000}]
    assert any("must be above usd" in m for m in messages(entry(kind="street-range", prices=low)))


def test_unit_count_must_be_positive():
    priced = [{"device": "h100-sxm", "usd": 1.0, "unit_count": 0}]
    assert messages(entry(prices=priced))


def test_source_keys_defined_and_used():
    assert any("not in 'sources'" in m for m in messages(entry(source="other")))
    extra = entry()
    extra["sources"]["unused"] = dict(extra["sources"]["page"])
    assert any("does not cite it" in m for m in messages(extra))
    cited = entry(prices=[{"device": "h100-sxm", "usd": 1.0, "source": "unused"}])
    cited["sources"]["unused"] = dict(cited["sources"]["page"])
    assert messages(cited) == []


def test_cloud_list_names_provider_and_region():
    data = entry()
    del data["region"]
    assert any("needs 'region'" in m for m in messages(data))


def test_repeated_price_is_refused():
    price = {"device": "h100-sxm", "usd": 1.0, "instance": "x"}
    assert any("repeats" in m for m in messages(entry(prices=[price, dict(price)])))


def test_unknown_key_is_refused():
    assert messages(entry(currency="EUR"))


def test_reference_problems():
    devices = {"h100-sxm": {"memory": {"capacity_gib": 80}}, "rtx-4060-ti-16gb": {"memory": {"capacity_gib": 16, "configurations": [{"capacity_gib": 16}, {"capacity_gib": 8}]}}}
    ok = entry(prices=[{"device": "rtx-4060-ti-16gb", "usd": 399, "memory_gib": 8}])
    assert reference_problems(ok, devices) == []
    unknown = reference_problems(entry(prices=[{"device": "h100-sxn", "usd": 1}]), devices)
    assert unknown and "did you mean 'h100-sxm'" in unknown[0][1]
    wrong = reference_problems(entry(prices=[{"device": "h100-sxm", "usd": 1, "memory_gib": 94}]), devices)
    assert wrong and "not a memory size" in wrong[0][1]


def test_prices_by_device_groups_all_files():
    grouped = prices_by_device({"a": entry(), "b": entry(id="b")})
    assert [file_id for file_id, _ in grouped["h100-sxm"]] == ["a", "b"]


@pytest.mark.parametrize("path", PRICE_FILES, ids=[p.stem for p in PRICE_FILES])
def test_shipped_price_file_is_valid_on_its_own(path):
    from atlas.data.yamlfile import read_yaml

    data = read_yaml(path).data
    assert data["id"] == path.stem
    assert schema_problems(data, "price.schema.json") == []
    assert price_problems(data, TODAY) == []


def test_unknown_device_fails_the_data_set(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(REPO_ROOT / "data" / "hardware", data / "hardware")
    (data / "prices").mkdir()
    (data / "prices" / "bad.yaml").write_text(
        "schema_version: 1\nid: bad\ntitle: Bad\nkind: launch-msrp\nas_of: 2024-01\nsource: s\n"
        "prices:\n  - {device: no-such-card, usd: 100}\n"
        "sources:\n  s: {url: 'https://example.com', title: T, publisher: P, accessed: '2026-12-03'}\n",
        encoding="utf-8",
    )
    with pytest.raises(DataValidationError) as err:
        load_dataset(data, root=tmp_path, today=TODAY)
    assert "unknown device 'no-such-card'" in str(err.value)


def test_unit_count_source_is_a_cited_source():
    priced = [{"device": "inferentia2", "usd": 12.98, "unit_count": 12, "unit_count_source": "docs"}]
    assert any("not in 'sources'" in m for m in messages(entry(prices=priced)))
    data = entry(prices=priced)
    data["sources"]["docs"] = dict(data["sources"]["page"])
    assert messages(data) == []
    orphan = entry(prices=[{"device": "inferentia2", "usd": 1.0, "unit_count_source": "page"}])
    assert any("not given" in m for m in messages(orphan))


# --- Purchase prices of unified-memory machines (issue 35): filed, exported and amortised in the speed answer ---

MACHINE_PRICES = [  # (device, list id, usd, memory_gib or None) as the new price files state them
    ("apple-m4-max", "apple-mac-studio-launch-2025-03", 1999, 36),
    ("apple-m3-ultra", "apple-mac-studio-launch-2025-03", 3999, 96),
    ("apple-m4-pro", "apple-mac-mini-m4-pro-launch-2024-10", 1399, 24),
    ("apple-m4-pro", "apple-macbook-pro-m4-launch-2024-10", 2499, None),
    ("apple-m4-max", "apple-macbook-pro-m4-launch-2024-10", 3199, None),
    ("apple-m3-max", "apple-macbook-pro-m3-max-2023-11", 3200, None),
    ("dgx-spark", "nvidia-dgx-spark-launch-2025-10", 3999, 128),
    ("ryzen-ai-max-395", "framework-desktop-review-2026-12", 1999, 128),
]


@pytest.mark.parametrize("device_id,list_id,usd,memory_gib", MACHINE_PRICES)
def test_machine_price_is_filed_and_exported(device_id, list_id, usd, memory_gib):
    from atlas.data.yamlfile import read_yaml
    from calculators_support import catalog

    data = read_yaml(REPO_ROOT / "data" / "prices" / f"{list_id}.yaml").data
    rows = [r for r in data["prices"] if r["device"] == device_id and r["usd"] == usd]
    assert len(rows) == 1 and rows[0].get("memory_gib") == memory_gib
    assert f"{usd:,}" in data["note"]  # the quoted page states the number as filed
    exported = [p for p in catalog().prices[device_id] if p["list"] == list_id and p["usd"] == usd]
    assert len(exported) == 1 and exported[0]["kind"] in ("launch-msrp", "list")


def test_rtx_pro_6000_street_range():
    from atlas.core.calculators import cost
    from calculators_support import catalog

    bought = cost.purchase_price(catalog().prices["rtx-pro-6000-blackwell"])
    assert (bought["usd"], bought["usd_high"], bought["usd_mid"]) == (8000, 9200, 8600)
    assert bought["as_of"] == "2026-04"


# device, the newest purchase price the speed answer must amortise (US$), the month it was stated
AMORTISED = [
    ("dgx-spark", 3999, "2025-10"),
    ("ryzen-ai-max-395", 1999, "2026-12"),
    ("apple-m3-ultra@96", 3999, "2025-03"),  # the price names its memory size: that configuration
    ("apple-m4-max@36", 1999, "2025-03"),  # Mac Studio (March 2025), the size its price names
]


@pytest.mark.parametrize("device_id,usd,as_of", AMORTISED)
def test_speed_answer_amortises_the_machine_price(device_id, usd, as_of):
    from calculators_support import ok

    r = ok("speed", device=device_id, model="llama-3.1-8b", weights="q4_k_m")["device"]
    c = r["cost"]
    assert c["basis"] == "purchase" and c["purchase_usd"] == usd and c["as_of"] == as_of
    assert c["electricity_usd_per_hour"] is None  # no price per kWh given
    per_hour = usd / (3 * 365 * 24)
    assert c["usd_per_hour"] == pytest.approx(per_hour, rel=1e-12)
    assert c["usd_per_million_tokens"] == pytest.approx(per_hour / (r["tokens_per_s"] * 3600) * 1e6, rel=1e-12)


def test_machine_price_plus_electricity_at_the_system_power():
    from calculators_support import catalog, ok

    r = ok("speed", device="dgx-spark", model="llama-3.1-8b", weights="q4_k_m", amortisation_years=2,
           electricity_usd_per_kwh=0.25)["device"]
    watts = catalog().devices["dgx-spark"]["power"]["tdp_w"]
    c = r["cost"]
    assert c["electricity_usd_per_hour"] == pytest.approx(watts / 1000 * 0.25, rel=1e-12)
    assert c["usd_per_hour"] == pytest.approx(3999 / (2 * 8760) + watts / 1000 * 0.25, rel=1e-12)


def test_cli_prints_the_amortised_cost(capsys):
    from atlas import cli

    code = cli.main(["speed", "--device", "dgx-spark", "--model", "llama-3.1-8b", "--weights", "q4_k_m", "--json"])
    assert code == 0
    import json

    out = json.loads(capsys.readouterr().out)
    assert out["device"]["cost"]["basis"] == "purchase" and out["device"]["cost"]["purchase_usd"] == 3999


def test_a_price_names_its_memory_size_and_another_size_gets_none():
    """A Mac Studio's 96 GB price is not the price of its 512 GB configuration: the speed answer amortises the
    named size's price and has no purchase basis for a size without one (the reader can type a price)."""
    from atlas.core.calculators import cost
    from calculators_support import catalog, ok

    rows = catalog().prices["apple-m3-ultra"]
    priced = {p["memory_gib"] for p in rows if p["kind"] in cost.PURCHASE_KINDS and p.get("memory_gib")}
    assert priced == {96}
    assert cost.purchase_price(rows, 96)["memory_gib"] == 96
    assert cost.purchase_price(rows, 512) is None
    assert cost.purchase_price(rows)["memory_gib"] == 96  # no size asked: the newest price, as the tables show it
    params = {"workload": "decode", "model": "llama-3.1-8b", "weights": "q4_k_m"}
    small = ok("speed", device="apple-m3-ultra@96", **params)["device"]["cost"]
    assert small["basis"] == "purchase" and small["purchase_usd"] == 3999 and small["price_memory_gib"] == 96
    assert ok("speed", device="apple-m3-ultra", **params)["device"]["cost"] is None  # 512 GB: no price of its own
    typed = ok("speed", device="apple-m3-ultra", purchase_usd=9499, **params)["device"]["cost"]
    assert typed["basis"] == "purchase" and typed["purchase_usd"] == 9499


@pytest.mark.parametrize("lang, words", [("en", "Purchase price of"), ("de", "Kaufpreis von")])
def test_the_answer_links_the_purchase_price_to_its_source(lang, words):
    from calculators_support import catalog, rendered

    out = rendered("speed", {"workload": "decode", "device": "dgx-spark", "model": "llama-3.1-8b",
                             "weights": "q4_k_m"}, lang)
    found = out["result"]["device"]["cost"]
    bought = cost.purchase_price(catalog().prices["dgx-spark"])
    assert found["source_url"] == bought["source_url"] and found["source_url"].startswith("https://")
    line = re.search(r'<p class="atlas-calc-price-source">(.*?)</p>', out["html"]).group(1)
    assert words in line and f'href="{html.escape(bought["source_url"])}"' in line
    # a cloud median (many providers) gets no single source line
    cloud = rendered("speed", {"workload": "decode", "device": "h100-sxm", "model": "llama-3.1-8b"}, lang)
    assert cloud["result"]["device"]["cost"]["basis"] == "cloud" and "atlas-calc-price-source" not in cloud["html"]

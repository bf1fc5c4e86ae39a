"""The built site in a real browser (Debian's Chromium through Playwright)."""

import pytest

pytestmark = pytest.mark.browser


def same_origin(urls, base):
    return [u for u in urls if not (u.startswith(base) or u.startswith("data:") or u.startswith("blob:"))]


@pytest.mark.parametrize("path", ["/compare/", "/de/compare/"])
def test_compare_table_sorts_and_stays_on_origin(page, site_server, dataset, path):
    gpus = {i: d["memory"]["bandwidth_gb_s"] for i, d in dataset.devices.items() if d["kind"] == "gpu"}
    widest, narrowest = max(gpus, key=gpus.get), min(gpus, key=gpus.get)
    page.goto(site_server + path)
    table = page.locator("table[data-atlas-table]").first
    table.wait_for()
    header = table.locator("thead tr:last-child th").nth(5)  # memory bandwidth (the row above groups the columns)
    header.click()
    first = table.locator("tbody tr").first.get_attribute("data-device")
    header.click()
    last_first = table.locator("tbody tr").first.get_attribute("data-device")
    assert {first, last_first} == {widest, narrowest}  # one click each way, whichever comes first
    assert same_origin(page.requests_seen, site_server) == []
    assert page.console_errors == []
    assert page.failed_requests == []


def test_language_switcher_goes_to_twin(page, site_server):
    page.goto(site_server + "/compare/")
    page.locator('a.md-select__link[hreflang="de"]').first.dispatch_event("click")
    page.wait_for_url("**/de/compare/")
    assert page.locator("h1").inner_text().rstrip("¶") == "Hardware-Vergleich"


@pytest.mark.parametrize(
    "path, expected",
    [("/hardware/gpus/", "High Bandwidth Memory: DRAM dies stacked"), ("/de/hardware/gpus/", "gestapelte DRAM-Chips")],
)
def test_glossary_tooltip_in_the_page_language(page, site_server, path, expected):
    page.goto(site_server + path)
    term = page.locator("article abbr", has_text="HBM").first
    term.scroll_into_view_if_needed()
    term.hover()
    tooltip = page.locator(".md-tooltip2, .md-tooltip").filter(has_text=expected).first
    tooltip.wait_for(state="visible", timeout=5000)
    assert same_origin(page.requests_seen, site_server) == []
    assert page.console_errors == []

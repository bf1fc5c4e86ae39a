"""Readers on any screen (issue #18), in a real browser at 1,366 and 390 px, in both languages: no page slides
sideways, wide tables scroll in their own box with a sticky header and device column and a shade at the edge
that can scroll, chart text is legible and never overprinted, the comparison page's filters work and live in
the address, and a figure's source opens on tap and on keyboard focus."""

import re
from urllib.parse import parse_qs, urlparse

import pytest

from tests.crawl import is_page, sitemap_paths

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 850}

# Every visible <text> of every chart: its rendered font size in CSS px and the pairs whose boxes overlap.
CHART_TEXT = """() => {
  const out = {charts: 0, texts: 0, smallest: null, small: [], overlaps: []};
  for (const svg of document.querySelectorAll('svg.atlas-chart')) {
    const frame = svg.getBoundingClientRect();
    if (frame.width === 0) continue;
    out.charts += 1;
    const scale = frame.width / svg.viewBox.baseVal.width;
    const boxes = [];
    for (const t of svg.querySelectorAll('text')) {
      const r = t.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      out.texts += 1;
      const px = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (out.smallest === null || px < out.smallest) out.smallest = px;
      if (px < 11 - 1e-6) out.small.push(`${svg.dataset.chart}: "${t.textContent}" ${px.toFixed(2)} px`);
      boxes.push([r, t.textContent]);
    }
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i][0], b = boxes[j][0];
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 1 && h > 1) out.overlaps.push(`${svg.dataset.chart}: "${boxes[i][1]}" / "${boxes[j][1]}"`);
      }
    }
  }
  return out;
}"""

WIDTHS = "() => [document.documentElement.scrollWidth, window.innerWidth]"

# Opens every block with the numbers behind a chart and measures each of its tables: where it sits, how wide its
# content is against its box, and whether it scrolls sideways in that box.
CHART_TABLES = """() => {
  for (const d of document.querySelectorAll('details.atlas-chart-data')) d.open = true;
  const tables = [...document.querySelectorAll('details.atlas-chart-data table')].map((t) => {
    const r = t.getBoundingClientRect();
    return {right: r.right, left: r.left, scroll: t.scrollWidth, client: t.clientWidth,
            overflow: getComputedStyle(t).overflowX};
  });
  return {tables, width: document.documentElement.clientWidth};
}"""


@pytest.fixture(scope="module")
def phone_pages(built_site):
    paths = [p for p in sitemap_paths(built_site) if is_page(p)]
    assert any(p.startswith("/de/") for p in paths) and "/compare/" in paths
    return paths


@pytest.fixture(scope="module")
def phone_visits(browser, site_server, phone_pages):
    """Every page of the site loaded once at 390 px: {path: what the tests below measured there}.

    First the layout a reader sees on arrival, measured at the load event, before any calculator's runtime has
    answered: the runtime starts on the first focus here (as `make bench` does for its comparison), so the
    measurement never depends on how far Python got, and the eight pages with a calculator (two calculators
    and two kernel demos a language) do not each start Pyodide for nothing. What a result looks like at 390 px:
    test_browser_calculators' phone tests. Then, on the same page, every table of a chart's numbers opened (which
    changes the layout, so it comes last)."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    context.add_init_script("globalThis.atlasCalculatorStart = 'focus';")
    page = context.new_page()
    visits = {}
    try:
        for path in phone_pages:
            page.goto(site_server + path, wait_until="load")
            visits[path] = {"widths": page.evaluate(WIDTHS), "charts": page.evaluate(CHART_TEXT),
                            "chart_tables": page.evaluate(CHART_TABLES)}
    finally:
        context.close()
    return visits


def test_no_page_slides_sideways_and_chart_text_is_legible_at_390_px(phone_visits):
    too_wide, small, overlaps = [], [], []
    charts_seen = 0
    for path, visit in phone_visits.items():
        scroll_width, inner_width = visit["widths"]
        assert inner_width == 390
        if scroll_width > inner_width:
            too_wide.append(f"{path}: {scroll_width} px")
        charts_seen += visit["charts"]["charts"]
        small += [f"{path} {s}" for s in visit["charts"]["small"]]
        overlaps += [f"{path} {s}" for s in visit["charts"]["overlaps"]]
    assert too_wide == []
    assert charts_seen >= 20  # the charts of both languages were measured, not skipped
    assert small == []
    assert overlaps == []


def test_chart_data_tables_scroll_in_their_own_box_at_390_px(phone_visits, built_site):
    """Every page with the numbers behind a chart (compare, use cases, the accuracy page …): at 390 px each table
    stays inside the screen and scrolls sideways in its own box (the page itself does not scroll sideways)."""
    pages = sorted("/" + str(f.parent.relative_to(built_site)) + "/" for f in built_site.rglob("index.html")
                   if "atlas-chart-data" in f.read_text(encoding="utf-8"))
    assert "/compare/" in pages and "/de/compare/" in pages and len(pages) >= 10
    assert set(pages) <= set(phone_visits), sorted(set(pages) - set(phone_visits))  # the sitemap has every one
    wide = []
    for path in pages:
        tables, width = phone_visits[path]["chart_tables"]["tables"], phone_visits[path]["chart_tables"]["width"]
        assert tables, f"no chart data on {path}"
        for table in tables:
            assert table["left"] >= -1 and table["right"] <= width + 1, (path, table)  # nothing cut off
            assert table["overflow"] == "auto", path
            if table["scroll"] > table["client"] + 1:
                wide.append(path)
    assert "/compare/" in wide  # its wide tables really are scroll boxes, not squeezed


@pytest.mark.parametrize("path", ["/compare/", "/de/compare/", "/guide/use-cases/", "/de/kernels/roofline/"])
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1366", "390"])
def test_chart_labels_never_overlap(browser, site_server, phone_visits, path, viewport):
    if viewport is PHONE:
        facts = phone_visits[path]["charts"]  # measured there on arrival at 390 px
    else:
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        page.goto(site_server + path, wait_until="load")
        facts = page.evaluate(CHART_TEXT)
        context.close()
    assert facts["charts"] >= 1 and facts["texts"] > 10
    assert facts["overlaps"] == []
    if viewport is PHONE:
        assert facts["smallest"] >= 11


EDGES = """() => [...document.querySelectorAll('.atlas-scroll')].filter((b) => b.querySelector('table[data-atlas-table]'))
  .map((b) => ({more: b.getAttribute('data-more'), after: getComputedStyle(b, '::after').opacity,
                before: getComputedStyle(b, '::before').opacity}))"""


def source_tooltips_after_hovering_a_cell(page) -> int:
    """Hover the first figure of a device table that names its source (its title) and count Material's tooltips
    that then show a source."""
    cell = page.locator("table[data-atlas-table] td[title]").first
    assert cell.get_attribute("title").startswith(("Source:", "Quelle:"))
    cell.scroll_into_view_if_needed()
    cell.hover()
    page.wait_for_timeout(1000)
    return page.locator(".md-tooltip2, .md-tooltip").filter(has_text=re.compile("^(Source|Quelle):")).count()


@pytest.mark.parametrize("path", ["/hardware/gpus/", "/de/hardware/tpus/", "/compare/"])
def test_wide_tables_show_a_shade_where_they_can_scroll_at_1366_px(browser, site_server, path):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(site_server + path, wait_until="load")
    page.wait_for_function("() => document.querySelector('.atlas-scroll[data-more]') !== null")
    page.wait_for_timeout(400)  # the shade fades in (0.15 s)
    edges = page.evaluate(EDGES)
    wide = [e for e in edges if "right" in e["more"].split()]
    assert wide, edges  # at least one table is cut at the right at 1,366 px, and says so
    assert all(e["after"] == "1" and e["before"] == "0" for e in wide)
    wrap = page.locator(".atlas-scroll[data-more~='right'] .md-typeset__scrollwrap").first
    wrap.evaluate("(w) => { w.scrollLeft = w.scrollWidth; }")
    box = page.locator(".atlas-scroll[data-more~='right'], .atlas-scroll[data-more~='left']").first
    page.wait_for_function("(b) => b.getAttribute('data-more').split(' ').includes('left')", arg=box.element_handle())
    page.wait_for_timeout(400)
    assert box.evaluate("(b) => getComputedStyle(b, '::before').opacity") == "1"
    # With a mouse, a figure's source shows in Material's tooltip on hover.
    assert source_tooltips_after_hovering_a_cell(page) == 1
    page.locator("table[data-atlas-table] td[title]").first.click()
    assert page.locator(".atlas-cell-tip").count() == 0  # a tap's bubble is for screens without hover
    context.close()


@pytest.mark.parametrize("lang", ["", "/de"])
def test_compare_table_keeps_header_and_device_column_in_view_on_a_phone(browser, site_server, lang):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(site_server + lang + "/compare/", wait_until="load")
    table = page.locator("table[data-atlas-filterable]").first
    wrap = page.locator(".md-typeset__scrollwrap:has(table[data-atlas-filterable])").first
    groups = table.locator("thead tr.atlas-col-groups th")
    assert groups.count() >= 4  # a header row that groups the columns
    row_header = table.locator("tbody th[scope=row]").first
    before = row_header.bounding_box()
    wrap.evaluate("(w) => { w.scrollLeft = 400; w.scrollTop = 300; }")
    page.wait_for_timeout(100)
    after = row_header.bounding_box()
    assert wrap.evaluate("(w) => w.scrollLeft") > 100
    header = table.locator("thead tr:last-child th").nth(3).bounding_box()
    wrap_box = wrap.bounding_box()
    # The device column has not moved sideways; the column names are still at the top of the box.
    first_row_name = table.locator("tbody th[scope=row]").nth(8).bounding_box()
    assert before["x"] >= wrap_box["x"] and abs(first_row_name["x"] - wrap_box["x"]) < 1.5
    assert after["y"] < before["y"]  # the box scrolled down ...
    assert wrap_box["y"] - 1 <= header["y"] <= wrap_box["y"] + 80  # ... and the header stuck to its top
    # Cells of one row share a baseline: the device name sits level with its figures.
    tops = table.locator("tbody tr").nth(2).evaluate(
        "(tr) => [...tr.children].slice(0, 4).map((c) => { const r = document.createRange(); r.selectNodeContents(c);"
        " const b = r.getClientRects()[0]; return b ? b.bottom : null; })")
    tops = [t for t in tops if t is not None]
    assert max(tops) - min(tops) < 2, tops
    assert page.evaluate(WIDTHS)[0] <= 390
    # Without hover, Material mounts no tooltip on the figures (tables.js: about 1,950 here, some 60 MB of memory); each
    # keeps its source in its title all the same.
    assert page.evaluate("matchMedia('(hover: none)').matches")
    assert page.locator("table[data-atlas-table] td[title]").count() > 1000
    assert source_tooltips_after_hovering_a_cell(page) == 0
    # A tap on a figure shows its source in one bubble below it, inside the screen; a second tap closes it, a tap
    # on a device's short name shows its full name, scrolling the table sideways closes it.
    figure = table.locator("tbody td[title^='Source:'], tbody td[title^='Quelle:']").nth(5)
    figure.scroll_into_view_if_needed()
    figure.tap()
    tip = page.locator(".atlas-cell-tip")
    assert tip.is_visible() and tip.inner_text() == figure.get_attribute("title")
    assert tip.inner_text().startswith("Quelle:" if lang else "Source:")
    tip_box, figure_box = tip.bounding_box(), figure.bounding_box()
    assert 0 <= tip_box["x"] and tip_box["x"] + tip_box["width"] <= 390
    assert 0 <= tip_box["y"] - (figure_box["y"] + figure_box["height"]) <= 8
    figure.tap()
    assert not tip.is_visible()
    name = table.locator("tbody th[title]").nth(2)
    name.tap()
    assert tip.is_visible() and tip.inner_text() == name.get_attribute("title") != name.inner_text()
    wrap.evaluate("(w) => { w.scrollLeft = 0; }")
    page.wait_for_function("() => document.querySelector('.atlas-cell-tip').hidden")
    assert page.locator(".atlas-cell-tip").count() == 1  # one bubble for the page
    context.close()


def visible_rows(page):
    return page.evaluate("""() => [...document.querySelectorAll('table[data-atlas-filterable] tbody tr')]
      .filter((r) => !r.hidden).map((r) => ({id: r.dataset.device, kind: r.dataset.kind, vendor: r.dataset.vendor,
        segment: r.dataset.segment, memory: r.dataset.memoryGib ? parseFloat(r.dataset.memoryGib) : null}))""")


@pytest.mark.parametrize(
    "lang, status_word, viewport",
    [("", "devices shown", DESKTOP), ("/de", "Geräten werden angezeigt", PHONE)],
)
def test_compare_filters_work_and_round_trip_through_the_address(
    browser, site_server, dataset, lang, status_word, viewport
):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(site_server + lang + "/compare/", wait_until="load")
    form = page.locator("form.atlas-filters")
    form.wait_for(state="visible")
    everything = visible_rows(page)
    assert len(everything) == page.locator("table[data-atlas-filterable] tbody tr").count() > 100

    form.locator("select[name=kind]").select_option("gpu")
    form.locator("select[name=vendor]").select_option("NVIDIA")
    form.locator("input[name=min_memory_gib]").fill("48")
    rows = visible_rows(page)
    expected = {i for i, d in dataset.devices.items()
                if d["kind"] == "gpu" and d["vendor"] == "NVIDIA" and d["memory"].get("capacity_gib", 0) >= 48}
    assert expected and {r["id"] for r in rows} == expected
    assert all(r["kind"] == "gpu" and r["vendor"] == "NVIDIA" and r["memory"] >= 48 for r in rows)
    query = parse_qs(urlparse(page.url).query)
    assert query == {"kind": ["gpu"], "vendor": ["NVIDIA"], "min_memory_gib": ["48"]}
    status = form.locator(".atlas-filter-status").inner_text()
    assert status_word in status and status.startswith(f"{len(expected)} ")
    assert str(len(dataset.devices)) in status  # out of every device, each counted once over both tables

    # The address alone restores the same state (a shared link), other parameters stay untouched.
    url = page.url + "&segment=datacenter&foo=bar"
    page.goto(url, wait_until="load")
    form.wait_for(state="visible")
    assert form.locator("select[name=kind]").input_value() == "gpu"
    assert form.locator("select[name=segment]").input_value() == "datacenter"
    assert form.locator("input[name=min_memory_gib]").input_value() == "48"
    again = visible_rows(page)
    assert again and all(r["segment"] == "datacenter" and r["memory"] >= 48 for r in again)
    assert {r["id"] for r in again} <= expected
    assert parse_qs(urlparse(page.url).query)["foo"] == ["bar"]

    form.locator("button[type=reset]").click()
    page.wait_for_function("() => !new URLSearchParams(location.search).has('kind')")
    assert len(visible_rows(page)) == len(everything)
    assert parse_qs(urlparse(page.url).query) == {"foo": ["bar"]}
    context.close()


def test_compare_page_without_javascript_shows_every_row_and_no_filters(browser, site_server, dataset):
    context = browser.new_context(java_script_enabled=False, viewport=PHONE)
    page = context.new_page()
    page.goto(site_server + "/compare/?kind=tpu", wait_until="load")
    assert not page.locator("form.atlas-filters").is_visible()
    rows = page.locator("table[data-atlas-filterable]").last.locator("tbody tr")
    assert rows.count() == len(dataset.devices)
    assert rows.filter(has=page.locator("th[scope=row]")).count() == len(dataset.devices)
    context.close()


@pytest.mark.parametrize("path, word", [("/kernels/matmul/", "Source"), ("/de/kernels/matmul/", "Quelle")])
def test_source_toggletip_opens_on_tap_and_on_focus(browser, site_server, path, word):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(site_server + path, wait_until="load")
    spec = page.locator("article .atlas-spec[aria-describedby]").first
    spec.wait_for()
    tip = page.locator("#" + spec.get_attribute("aria-describedby"))
    assert tip.get_attribute("role") == "tooltip"
    assert not tip.is_visible()
    spec.scroll_into_view_if_needed()
    spec.tap()
    assert tip.is_visible() and word in tip.inner_text()
    assert spec.get_attribute("aria-expanded") == "true"
    box = tip.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    page.locator("h1").tap()  # a tap elsewhere closes it
    assert not tip.is_visible()
    # Keyboard: the figure is in the tab order and its source opens on focus, Escape closes it.
    assert spec.get_attribute("tabindex") == "0"
    spec.focus()
    assert tip.is_visible()
    page.keyboard.press("Escape")
    assert not tip.is_visible()
    context.close()

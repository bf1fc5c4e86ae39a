"""The charts in a real browser: visible, sized, and coloured by the palette (light and dark)."""

import pytest

pytestmark = pytest.mark.browser

CHART_COLOURS = """() => {
  const svg = document.querySelector('svg[data-chart="roofline"]');
  const series = svg.querySelector('.atlas-series.atlas-s0');
  const body = getComputedStyle(document.body);
  return {
    scheme: document.body.getAttribute('data-md-color-scheme'),
    text: getComputedStyle(svg).color,
    series: getComputedStyle(series).color,
    stroke: getComputedStyle(series.querySelector('polyline')).stroke,
    background: body.backgroundColor,
  };
}"""


@pytest.mark.parametrize("path", ["/compare/", "/de/compare/"])
def test_charts_render_in_light_and_dark(browser, site_server, path):
    seen = {}
    for scheme in ("light", "dark"):
        # A fresh context per scheme: Material remembers the palette in local storage.
        context = browser.new_context(color_scheme=scheme)
        page = context.new_page()
        errors = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)  # noqa: B023
        page.on("pageerror", lambda e: errors.append(str(e)))  # noqa: B023
        page.goto(site_server + path)
        charts = page.locator("svg[data-chart]")
        assert charts.count() >= 4
        for i in range(charts.count()):
            box = charts.nth(i).bounding_box()
            assert box and box["width"] > 300 and box["height"] > 100, (charts.nth(i).get_attribute("data-chart"), box)
        seen[scheme] = page.evaluate(CHART_COLOURS)
        colours = seen[scheme]
        assert colours["stroke"] == colours["series"]  # the line draws in its series colour (currentColor)
        assert colours["text"] != colours["background"]
        assert errors == []
        context.close()
    assert seen["light"]["scheme"] == "default" and seen["dark"]["scheme"] == "slate"
    assert seen["light"]["series"] != seen["dark"]["series"]  # each palette has its own series colours
    assert seen["light"]["text"] != seen["dark"]["text"]  # text follows the page's text colour


def test_numbers_behind_the_chart_open_as_a_table(page, site_server):
    page.goto(site_server + "/de/compare/")
    details = page.locator("details.atlas-chart-data").first
    table = details.locator("table").first
    assert not table.is_visible()
    details.locator("summary").click()
    assert table.is_visible()
    row = table.locator("tr[data-chart-device='h100-sxm'] td")
    assert row.all_inner_texts()[:3] == ["989,4", "3.350", "295"]

// Accessibility fixes on top of Material, found by the axe-core crawl (tests/test_crawl.py).
// Runs on every page load through Material's document$ observable.
document$.subscribe(function () {
  // The search overlay is a dialog: give it the (localised) name of its input.
  var dialog = document.querySelector(".md-search[role='dialog']");
  var input = document.querySelector(".md-search__input");
  if (dialog && input && !dialog.hasAttribute("aria-label")) {
    dialog.setAttribute("aria-label", input.getAttribute("aria-label"));
  }
  // A table wider than the page scrolls sideways; keyboard users reach it with Tab and scroll with the arrows.
  // Material wraps Markdown tables in a scroll box; the accuracy page's tables scroll themselves (display: block).
  document.querySelectorAll(".md-typeset__scrollwrap, table.atlas-accuracy").forEach(function (wrap) {
    if (wrap.scrollWidth <= wrap.clientWidth || wrap.hasAttribute("tabindex")) return;
    var isTable = wrap.tagName === "TABLE";
    var table = isTable ? wrap : wrap.querySelector("table");
    var caption = table && table.caption ? table.caption.textContent : "";
    var heading = null;
    for (var el = wrap.previousElementSibling; el && !heading; el = el.previousElementSibling) {
      if (/^H[1-6]$/.test(el.tagName)) heading = el;
    }
    wrap.setAttribute("tabindex", "0");
    if (!isTable) wrap.setAttribute("role", "region");  // a table keeps its own role and takes the name
    if (heading && heading.id) wrap.setAttribute("aria-labelledby", heading.id);
    else wrap.setAttribute("aria-label", caption || document.title);
  });
});

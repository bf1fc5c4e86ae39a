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
  document.querySelectorAll(".md-typeset__scrollwrap").forEach(function (wrap) {
    if (wrap.scrollWidth <= wrap.clientWidth || wrap.hasAttribute("tabindex")) return;
    var table = wrap.querySelector("table");
    var caption = table && table.caption ? table.caption.textContent : "";
    var heading = null;
    for (var el = wrap.previousElementSibling; el && !heading; el = el.previousElementSibling) {
      if (/^H[1-6]$/.test(el.tagName)) heading = el;
    }
    wrap.setAttribute("tabindex", "0");
    wrap.setAttribute("role", "region");
    if (heading && heading.id) wrap.setAttribute("aria-labelledby", heading.id);
    else wrap.setAttribute("aria-label", caption || document.title);
  });
});

// The language switcher opens the same page in the other language; this makes it keep the page's inputs too.
// A calculator's fields and the comparison's filters live in the address's query, so switching language shows
// the same answer in the other language instead of the page's defaults. The fragment is left out: headings have
// other ids in each language. The query is read when the link is about to be followed (pressed, focused,
// clicked), as the calculators rewrite it while the reader types.
(function () {
  function keepQuery(event) {
    var link = event.target.closest ? event.target.closest("a.md-select__link[hreflang]") : null;
    if (!link) return;
    if (!link.hasAttribute("data-atlas-href")) link.setAttribute("data-atlas-href", link.getAttribute("href"));
    var url = new URL(link.getAttribute("data-atlas-href"), window.location.href);
    url.search = window.location.search;
    link.href = url.href;
  }
  ["pointerdown", "focusin", "click"].forEach(function (type) {
    document.addEventListener(type, keepQuery, true);
  });
})();

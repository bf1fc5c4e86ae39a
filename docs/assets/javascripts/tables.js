// The data-set tables in the browser: sorting (tablesort is vendored from npm, see package.json), a shade at
// each edge a wide table can still scroll to, the filters of the comparison page (state in the address's
// query: kind, vendor, segment, min_memory_gib, max_price_usd), the figures' source toggletips and, on screens
// without hover, the table cells' sources on a tap.
// Runs on every page load through Material's document$ observable.
(function () {
  var FILTER_KEYS = ["kind", "vendor", "segment", "min_memory_gib", "max_price_usd"];

  // --- scroll cue --------------------------------------------------------------------------
  // Reading a size makes the browser lay out what changed since the last read, so reads come before writes:
  // edgesOf reads, markEdges writes only a changed value. Reading right after wrapping each table had the
  // comparison page laid out once per table and chart; scrollCues now lays it out once.
  function edgesOf(wrap) {
    var more = [];
    if (wrap.scrollLeft > 1) more.push("left");
    if (wrap.scrollLeft + wrap.clientWidth < wrap.scrollWidth - 1) more.push("right");
    return more.join(" ");
  }

  function setEdges(box, more) {
    if (box.getAttribute("data-more") !== more) box.setAttribute("data-more", more);
  }

  function markEdges(box, wrap) {
    setEdges(box, edgesOf(wrap));
  }

  function scrollCues() {
    var wraps = Array.prototype.filter.call(
      document.querySelectorAll(".md-typeset__scrollwrap, .atlas-chart-box"),
      function (wrap) { return !wrap.parentElement.classList.contains("atlas-scroll"); }
    );
    // Writes: each table and chart in its shade box.
    var boxes = wraps.map(function (wrap) {
      var box = document.createElement("div");
      box.className = "atlas-scroll";
      wrap.parentElement.insertBefore(box, wrap);
      box.appendChild(wrap);
      return box;
    });
    // Reads: one layout for all of them.
    var sizes = wraps.map(function (wrap) {
      var groups = wrap.querySelector("thead tr.atlas-col-groups");
      return {
        more: edgesOf(wrap),
        scrolls: wrap.scrollWidth > wrap.clientWidth,
        groups: groups,
        groupsHeight: groups ? groups.getBoundingClientRect().height : 0,
      };
    });
    // Writes again, and the listeners that keep the shades in step with scrolling and resizing.
    wraps.forEach(function (wrap, i) {
      var box = boxes[i], size = sizes[i];
      var update = function () { markEdges(box, wrap); };
      setEdges(box, size.more);
      wrap.addEventListener("scroll", update, { passive: true });
      window.addEventListener("resize", update);
      if (window.ResizeObserver) new ResizeObserver(update).observe(wrap);
      // A chart box that scrolls is reached with Tab and scrolled with the arrow keys.
      if (wrap.classList.contains("atlas-chart-box") && size.scrolls && !wrap.hasAttribute("tabindex")) {
        var title = wrap.querySelector("svg > title");
        wrap.setAttribute("tabindex", "0");
        wrap.setAttribute("role", "region");
        wrap.setAttribute("aria-label", title ? title.textContent : document.title);
      }
      // Two header rows: the second sticks just below the first.
      if (size.groups) {
        var groups = size.groups, table = groups.closest("table");
        table.style.setProperty("--atlas-group-row", size.groupsHeight + "px");
        if (window.ResizeObserver) {
          new ResizeObserver(function () {
            table.style.setProperty("--atlas-group-row", groups.getBoundingClientRect().height + "px");
          }).observe(groups);
        }
      }
    });
  }

  // --- filters -----------------------------------------------------------------------------
  function readQuery() {
    var params = new URLSearchParams(window.location.search);
    var state = {};
    FILTER_KEYS.forEach(function (key) {
      var value = params.get(key);
      if (value !== null && value !== "") state[key] = value;
    });
    return state;
  }

  function writeQuery(state) {
    var params = new URLSearchParams(window.location.search);  // other parameters stay as they are
    FILTER_KEYS.forEach(function (key) {
      if (state[key] !== undefined && state[key] !== "") params.set(key, state[key]);
      else params.delete(key);
    });
    var query = params.toString();
    var url = window.location.pathname + (query ? "?" + query : "") + window.location.hash;
    window.history.replaceState(window.history.state, "", url);
  }

  function number(text) {
    var value = parseFloat(String(text).replace(",", "."));
    return isFinite(value) ? value : null;
  }

  function rowMatches(row, state) {
    var d = row.dataset;
    if (state.kind && d.kind !== state.kind) return false;
    if (state.vendor && d.vendor !== state.vendor) return false;
    if (state.segment && d.segment !== state.segment) return false;
    var minMemory = number(state.min_memory_gib);
    if (minMemory !== null && !(number(d.memoryGib) >= minMemory)) return false;
    var maxPrice = number(state.max_price_usd);
    if (maxPrice !== null && !(number(d.priceUsd) !== null && number(d.priceUsd) <= maxPrice)) return false;
    return true;
  }

  function applyFilters(form, state) {
    var tables = document.querySelectorAll("table[data-atlas-filterable]");
    var shownIds = new Set();
    var allIds = new Set();  // a device listed in two tables counts once
    tables.forEach(function (table) {
      table.querySelectorAll("tbody tr[data-device]").forEach(function (row) {
        var keep = rowMatches(row, state);
        row.hidden = !keep;
        allIds.add(row.dataset.device);
        if (keep) shownIds.add(row.dataset.device);
      });
    });
    var shown = shownIds.size;
    var total = allIds.size;
    var status = form.querySelector(".atlas-filter-status");
    if (status) {
      var template = shown === total ? form.dataset.msgAll : (shown === 0 ? form.dataset.msgNone : form.dataset.msgSome);
      status.textContent = template.replace("{shown}", String(shown)).replace("{total}", String(total));
    }
    // Each table's shade follows its new width.
    document.querySelectorAll(".atlas-scroll").forEach(function (box) {
      var wrap = box.querySelector(".md-typeset__scrollwrap, .atlas-chart-box");
      if (wrap) markEdges(box, wrap);
    });
  }

  function formState(form) {
    var state = {};
    FILTER_KEYS.forEach(function (key) {
      var field = form.elements.namedItem(key);
      if (field && field.value !== "") state[key] = field.value.trim();
    });
    return state;
  }

  function filters() {
    document.querySelectorAll("form.atlas-filters").forEach(function (form) {
      if (form.dataset.ready) return;
      form.dataset.ready = "1";
      var state = readQuery();
      FILTER_KEYS.forEach(function (key) {
        var field = form.elements.namedItem(key);
        if (!field || state[key] === undefined) return;
        if (field.tagName === "SELECT" && !field.querySelector('option[value="' + CSS.escape(state[key]) + '"]')) return;
        field.value = state[key];
      });
      var update = function () {
        var now = formState(form);
        writeQuery(now);
        applyFilters(form, now);
      };
      form.addEventListener("input", update);
      form.addEventListener("change", update);
      form.addEventListener("submit", function (event) { event.preventDefault(); update(); });
      form.addEventListener("reset", function () { window.setTimeout(update, 0); });
      form.hidden = false;
      applyFilters(form, formState(form));
    });
  }

  // --- source toggletips -------------------------------------------------------------------
  var tipCount = 0;

  function closeTips(except) {
    document.querySelectorAll(".atlas-spec[aria-expanded='true']").forEach(function (spec) {
      if (spec !== except) setTip(spec, false);
    });
  }

  function setTip(spec, open) {
    var tip = spec.querySelector(".atlas-spec-tip");
    if (!tip) return;
    tip.hidden = !open;
    spec.setAttribute("aria-expanded", open ? "true" : "false");
    if (!open) return;
    tip.style.left = "0px";
    var box = tip.getBoundingClientRect();
    var room = document.documentElement.clientWidth - 8;
    if (box.right > room) tip.style.left = Math.min(0, room - box.right) + "px";
    if (tip.getBoundingClientRect().left < 8) tip.style.left = (parseFloat(tip.style.left) + 8 - tip.getBoundingClientRect().left) + "px";
  }

  function toggletips() {
    takeTitles();
    document.querySelectorAll(".md-typeset .atlas-spec[data-atlas-title]").forEach(function (spec) {
      var text = spec.getAttribute("data-atlas-title");
      spec.removeAttribute("data-atlas-title");
      tipCount += 1;
      var tip = document.createElement("span");
      tip.className = "atlas-spec-tip";
      tip.id = "atlas-spec-tip-" + tipCount;
      tip.setAttribute("role", "tooltip");
      tip.hidden = true;
      tip.textContent = text;
      spec.appendChild(tip);
      spec.setAttribute("tabindex", "0");
      spec.setAttribute("role", "button");
      spec.setAttribute("aria-describedby", tip.id);
      spec.setAttribute("aria-expanded", "false");
      var openedAt = 0;  // a tap focuses first, then clicks: the click must not close what the focus opened
      var open = function () { closeTips(spec); setTip(spec, true); openedAt = Date.now(); };
      spec.addEventListener("click", function (event) {
        event.stopPropagation();
        if (spec.getAttribute("aria-expanded") === "true" && Date.now() - openedAt > 400) setTip(spec, false);
        else open();
      });
      spec.addEventListener("focus", open);
      spec.addEventListener("blur", function () { setTip(spec, false); });
      spec.addEventListener("mouseenter", open);
      spec.addEventListener("mouseleave", function () { if (document.activeElement !== spec) setTip(spec, false); });
      spec.addEventListener("keydown", function (event) {
        if (event.key === "Escape") setTip(spec, false);
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          setTip(spec, spec.getAttribute("aria-expanded") !== "true");
        }
      });
    });
  }

  // Every element ``selector`` finds keeps the value of its attribute ``from`` under ``to`` instead.
  function moveAttribute(selector, from, to) {
    document.querySelectorAll(selector).forEach(function (el) {
      el.setAttribute(to, el.getAttribute(from));
      el.removeAttribute(from);
    });
  }

  // The title (the tooltip without JavaScript) moves aside before Material mounts its own hover tooltip on it,
  // so the toggletip is the only one.
  function takeTitles() {
    moveAttribute(".md-typeset .atlas-spec[title]", "title", "data-atlas-title");
  }
  takeTitles();

  // The device tables' cells name each figure's source (and a short name's full name) in their title, shown on
  // hover. Material's content.tooltips mounts a tooltip component on every one of them: about 1,950 on the
  // comparison page, some 60 MB more JavaScript memory and 0.3 s more script per load. On a screen
  // without hover (a phone) none of them can ever show, so there these titles step aside while Material mounts
  // its components (on DOMContentLoaded, after this script) and come back right after, plain.
  var HOVERLESS = !!(window.matchMedia && window.matchMedia("(hover: none)").matches);
  if (HOVERLESS) {
    moveAttribute("table[data-atlas-table] td[title], table[data-atlas-table] th[title]", "title", "data-atlas-cell-title");
  }

  document.addEventListener("click", function () { closeTips(null); });

  // --- cell sources on screens without hover -----------------------------------------------
  // The title of a table cell (a figure's source, a short name's full name) shows on hover; without hover a tap
  // on the cell shows it in one bubble below the cell, as the home page promises ("tap a number"). One listener
  // and one bubble for the page instead of a control per cell: the comparison page has some 1,950 such cells.
  // A second tap on the cell, a tap elsewhere, scrolling the table or turning the phone closes it.
  var CELL_WITH_TITLE = "table[data-atlas-table] td[title], table[data-atlas-table] tbody th[title]";
  var cellTip = null;
  var cellTipFor = null;

  function closeCellTip() {
    if (cellTip) cellTip.hidden = true;
    cellTipFor = null;
  }

  function showCellTip(cell) {
    if (!cellTip) {
      cellTip = document.createElement("div");
      cellTip.className = "atlas-cell-tip";
      cellTip.setAttribute("role", "status");
      document.body.appendChild(cellTip);
    }
    cellTip.textContent = cell.getAttribute("title");
    cellTip.hidden = false;
    cellTipFor = cell;
    var at = cell.getBoundingClientRect();
    var room = document.documentElement.clientWidth;
    var left = Math.max(8, Math.min(at.left, room - cellTip.offsetWidth - 8));
    cellTip.style.left = left + window.scrollX + "px";
    cellTip.style.top = at.bottom + window.scrollY + 4 + "px";
  }

  if (HOVERLESS) {
    document.addEventListener("click", function (event) {
      var cell = event.target.closest ? event.target.closest(CELL_WITH_TITLE) : null;
      if (!cell || cell === cellTipFor || event.target.closest("a, button, input, select, label")) closeCellTip();
      else showCellTip(cell);
    });
    document.addEventListener("scroll", function (event) {
      if (event.target !== document) closeCellTip();  // a table scrolled sideways: the bubble would point elsewhere
    }, true);
    window.addEventListener("resize", closeCellTip);
  }

  document$.subscribe(function () {
    document.querySelectorAll("table[data-sortable]").forEach(function (table) {
      if (!table.dataset.sortReady) {
        new Tablesort(table);
        table.dataset.sortReady = "1";
      }
    });
    scrollCues();
    filters();
    toggletips();
    if (HOVERLESS) {  // once Material's subscribers have mounted its components
      window.setTimeout(function () { moveAttribute("[data-atlas-cell-title]", "data-atlas-cell-title", "title"); }, 0);
    }
  });
})();

// Make the data-set tables sortable (tablesort is vendored from npm, see package.json).
// Runs on every page load through Material's document$ observable.
document$.subscribe(function () {
  document.querySelectorAll("table[data-sortable]").forEach(function (table) {
    if (!table.dataset.sortReady) {
      new Tablesort(table);
      table.dataset.sortReady = "1";
    }
  });
});

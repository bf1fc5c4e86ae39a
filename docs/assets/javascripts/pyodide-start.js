// Starts the page's Python runtime as early as possible.
//
// A classic script loaded with `async` from <head> (overrides/main.html writes
// it on pages that declare <meta name="atlas-runtime">): it runs as soon as it
// has downloaded, before the body is parsed, so Pyodide's 10 MB of WebAssembly
// download and compile while the page itself is still loading. Module scripts
// (pyodide-client.mjs) only run once the document has been parsed.
//
// It creates the module worker (pyodide-worker.mjs), sends it the boot message
// and keeps the worker's messages until pyodide-client.mjs adopts it through
// globalThis.atlasStartPython(options), which also starts the worker on pages
// that load it later (start on first focus). All URLs are resolved against this
// script's own URL, so they never leave the site.
(function () {
  "use strict";
  var here = document.currentScript && document.currentScript.src;

  function withVersion(url, version) {
    return version ? url + "?v=" + encodeURIComponent(version) : url;
  }

  function controlled() {
    try {
      return !!(navigator.serviceWorker && navigator.serviceWorker.controller);
    } catch (err) {
      return false;
    }
  }

  // options: {bundle: version, data: {name: version}, warm: [entry points], snapshot: file name (optional),
  //           stdlib: version of the trimmed python_stdlib.zip (optional)}
  function start(options) {
    if (globalThis.atlasPython) return globalThis.atlasPython;
    var handle = { worker: null, messages: [], failed: null, started: performance.now() };
    globalThis.atlasPython = handle;
    if (!here || typeof Worker !== "function" || typeof WebAssembly !== "object") {
      handle.failed = { reason: "no-wasm", detail: "WebAssembly or Web Workers are not available" };
      return handle;
    }
    try {
      handle.worker = new Worker(new URL("pyodide-worker.mjs", here).href, { type: "module", name: "atlas-python" });
    } catch (err) {
      handle.failed = { reason: "load", detail: String(err) };
      return handle;
    }
    handle.worker.onmessage = function (event) {
      handle.messages.push(event.data || {});
    };
    handle.worker.addEventListener("message", function (event) {
      if (event.data && event.data.type === "ready") keepOffline();
    });
    handle.worker.onerror = function (event) {
      event.preventDefault();
      handle.failed = { reason: "load", detail: event.message || "the worker script could not be loaded" };
    };
    var data = {};
    Object.keys(options.data || {}).forEach(function (name) {
      data[name] = withVersion(new URL("../data/" + name, here).href, options.data[name]);
    });
    handle.worker.postMessage({
      type: "boot",
      pyodideURL: new URL("../vendor/pyodide/", here).href,
      bundleURL: withVersion(new URL("../python/atlas-python.zip", here).href, options.bundle),
      // The memory snapshot of this build (its content hash in its name), when the build made one.
      snapshotURL: options.snapshot ? new URL("../vendor/pyodide/" + options.snapshot, here).href : null,
      // The standard library of this build, by its content hash: never an older build's copy.
      stdlibURL: options.stdlib ? withVersion(new URL("../vendor/pyodide/python_stdlib.zip", here).href, options.stdlib) : null,
      data: data,
      warm: options.warm || [],
      // Whether a service worker (sw.js) controls this page: then the worker, having left the snapshot out
      // on a slow link, fetches it after "ready" through it for the next visit.
      controlled: controlled(),
    });
    return handle;
  }

  // Once the runtime is ready (so it never competes with the first start), register the service worker
  // the build serves at the site root (sw.js: the runtime by content hash, pages for offline use) and ask
  // it to keep this page and the files it loaded. Sets <html data-atlas-offline="ready"> when everything
  // a reload needs is kept. Where service workers are missing or refused nothing changes.
  function keepOffline() {
    try {
      var sw = navigator.serviceWorker;
      if (!here || !sw || !globalThis.isSecureContext || typeof sw.register !== "function") return;
      sw.addEventListener("message", function (event) {
        var msg = event.data || {};
        if (msg.type === "kept") document.documentElement.dataset.atlasOffline = msg.runtime ? "ready" : "partial";
      });
      sw.startMessages();
      sw.register(new URL("../../sw.js", here).href)
        .then(function () { return sw.ready; })
        .then(function (registration) {
          var urls = [];
          if (!sw.controller) {  // the first visit: nothing went through the service worker yet
            urls = [location.href.split("#")[0], new URL("pyodide-worker.mjs", here).href];
            performance.getEntriesByType("resource").forEach(function (entry) {
              if (entry.name.indexOf(location.origin + "/") === 0) urls.push(entry.name.split("#")[0]);
            });
          }
          if (registration.active) registration.active.postMessage({ type: "keep", urls: urls });
        })
        .catch(function () {});
    } catch (err) {
      // never break the page
    }
  }

  globalThis.atlasStartPython = start;

  // "Detect my GPU" (gpu-detect.mjs) only where the browser has WebGPU: elsewhere its button stays hidden
  // and the module is not even loaded. A module script, so it shares the page's runtime (pyodide-client.mjs).
  function loadGpuDetect() {
    try {
      if (!here || !navigator.gpu || document.querySelector('script[src*="gpu-detect.mjs"]')) return;
      var script = document.createElement("script");
      script.type = "module";
      script.src = new URL("gpu-detect.mjs", here).href;
      document.head.appendChild(script);
    } catch (err) {
      // never break the page
    }
  }

  var meta = document.querySelector('meta[name="atlas-runtime"]');
  // `make bench` sets atlasCalculatorStart = "focus" to compare starting on the first focus.
  var onFocus = globalThis.atlasCalculatorStart === "focus" && location.search.length <= 1;
  if (meta && !onFocus) start(JSON.parse(meta.content));
  if (meta) loadGpuDetect();
})();

// The in-page Python runtime: Pyodide in a module Web Worker.
//
// Started by pyodide-client.mjs as `new Worker(url, {type: "module"})`, so the
// page never freezes while WebAssembly compiles. It boots once and then answers
// calls until the page goes away. Everything it loads comes from this site:
// Pyodide from assets/vendor/pyodide/ (copied from the pinned npm package by
// the build), the project's Python packages from one zip the build makes from
// their source folders, and data files the build exports.
//
// Messages in:
//   {type: "boot", pyodideURL, bundleURL, data: {name: url}, warm: [entry names]}
//   {type: "call", id, name, payload}      name: an entry point in pyweb.ENTRY_POINTS
// Messages out:
//   {type: "ready", timings: {pyodide_ms, total_ms}}
//   {type: "failed", reason: "no-wasm" | "load" | "python", detail}
//   {type: "answer", id, response}         response: whatever the entry point returned
//
// Python is only ever reached through pyweb.call(name, json), which refuses
// names that are not registered, catches every exception and returns JSON;
// no JavaScript string is run as Python code.

let pyweb = null; // the pyweb module once booted
let booting = null;

async function fetchOk(url, kind) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return kind === "text" ? response.text() : response.arrayBuffer();
}

async function boot({ pyodideURL, bundleURL, data = {}, warm = [] }) {
  const t0 = performance.now();
  if (typeof WebAssembly !== "object") {
    postMessage({ type: "failed", reason: "no-wasm", detail: "WebAssembly is not available" });
    return;
  }
  let pyodide;
  // The bundle and data files download while Pyodide compiles.
  const bundle = fetchOk(bundleURL, "bytes");
  const files = Object.entries(data).map(([name, url]) => fetchOk(url, "text").then((text) => [name, text]));
  bundle.catch(() => {});
  files.forEach((f) => f.catch(() => {}));
  try {
    const { loadPyodide } = await import(new URL("pyodide.mjs", pyodideURL).href);
    // When pyodide.asm.wasm cannot be fetched or compiled, Pyodide only logs
    // "wasm instantiation failed!" with console.warn and loadPyodide never settles
    // (pyodide.mjs, getInstantiateWasmFunc): watch for that message while booting.
    const warn = console.warn;
    const aborted = new Promise((_, reject) => {
      console.warn = (...args) => {
        warn.apply(console, args);
        if (String(args[0]).includes("wasm instantiation failed")) reject(new Error("pyodide.asm.wasm could not be loaded"));
      };
    });
    try {
      pyodide = await Promise.race([loadPyodide({ indexURL: pyodideURL }), aborted]);
    } finally {
      console.warn = warn;
    }
  } catch (err) {
    postMessage({ type: "failed", reason: "load", detail: String(err && err.message ? err.message : err) });
    return;
  }
  const t1 = performance.now();
  let zip, texts;
  try {
    [zip, texts] = await Promise.all([bundle, Promise.all(files)]);
  } catch (err) {
    postMessage({ type: "failed", reason: "load", detail: String(err && err.message ? err.message : err) });
    return;
  }
  try {
    pyodide.unpackArchive(zip, "zip", { extractDir: "/atlas/lib" });
    pyodide.FS.mkdirTree("/atlas/data");
    for (const [name, text] of texts) {
      pyodide.FS.writeFile(`/atlas/data/${name}`, text, { encoding: "utf8" });
    }
    pyodide.runPython("import sys\nif '/atlas/lib' not in sys.path: sys.path.insert(0, '/atlas/lib')");
    pyweb = pyodide.pyimport("pyweb"); // kept for the page's lifetime
    const warmed = pyweb.warm(warm);
    if (warmed && warmed.destroy) warmed.destroy();
  } catch (err) {
    postMessage({ type: "failed", reason: "python", detail: String(err && err.message ? err.message : err) });
    return;
  }
  postMessage({ type: "ready", timings: { pyodide_ms: t1 - t0, total_ms: performance.now() - t0 } });
}

self.onmessage = async (event) => {
  const msg = event.data || {};
  if (msg.type === "boot") {
    if (!booting) booting = boot(msg);
    return;
  }
  if (msg.type === "call") {
    await booting;
    let response;
    try {
      if (!pyweb) throw new Error("the runtime did not boot");
      response = JSON.parse(pyweb.call(String(msg.name), JSON.stringify(msg.payload ?? null)));
    } catch (err) {
      // Only reached if Python itself is broken; pyweb.call catches everything else.
      response = { ok: false, errors: [{ field: null, key: "runtime.internal_error", params: {} }], detail: String(err) };
    }
    postMessage({ type: "answer", id: msg.id, response });
  }
};

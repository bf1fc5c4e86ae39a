// Page side of the in-page Python runtime (see pyodide-worker.mjs and the
// Python package pyweb for the other two sides).
//
//   import { pageRuntime } from "./pyodide-client.mjs";
//   const runtime = pageRuntime();             // the runtime this page declares, started now
//   runtime.onStatus((status, info) => ...);   // "loading" | "ready" | "failed"
//   const response = await runtime.call("calculators.render", payload);
//
// A page declares its runtime in <head> (overrides/main.html writes it from
// page.meta.atlas_runtime, which a macro sets):
//   <meta name="atlas-runtime" content='{"bundle": "<hash>", "data": {"atlas-data.json": "<hash>"},
//                                        "warm": ["calculators.render"]}'>
//   <script type="module" async src=".../calculator.mjs"></script>
// so the worker starts while the rest of the page is still loading.
//
// One worker per page: every caller shares it, and it boots once. All URLs are
// resolved against this module's own URL, so they work under / and /de/ and
// at any depth, and never leave the site's origin.

const here = import.meta.url;
const PYODIDE_DIR = new URL("../vendor/pyodide/", here).href;
const BUNDLE = new URL("../python/atlas-python.zip", here).href;
const DATA_DIR = new URL("../data/", here).href;
const WORKER = new URL("./pyodide-worker.mjs", here).href;

let shared = null;

function withVersion(url, version) {
  return version ? `${url}?v=${encodeURIComponent(version)}` : url;
}

class Runtime {
  constructor({ bundleVersion = "", data = {}, warm = [] }) {
    this.status = "loading";
    this.info = {};
    this.listeners = [];
    this.pending = new Map();
    this.nextId = 1;
    this.started = performance.now();
    if (typeof Worker !== "function" || typeof WebAssembly !== "object") {
      this.fail("no-wasm", "WebAssembly or Web Workers are not available");
      return;
    }
    try {
      this.worker = new Worker(WORKER, { type: "module", name: "atlas-python" });
    } catch (err) {
      this.fail("load", String(err));
      return;
    }
    this.worker.onmessage = (event) => this.receive(event.data || {});
    this.worker.onerror = (event) => {
      event.preventDefault();
      this.fail("load", event.message || "the worker script could not be loaded");
    };
    const files = {};
    for (const [name, version] of Object.entries(data)) files[name] = withVersion(DATA_DIR + name, version);
    this.worker.postMessage({
      type: "boot",
      pyodideURL: PYODIDE_DIR,
      bundleURL: withVersion(BUNDLE, bundleVersion),
      data: files,
      warm,
    });
  }

  receive(msg) {
    if (msg.type === "ready") {
      this.setStatus("ready", { ...msg.timings, ready_ms: performance.now() - this.started });
    } else if (msg.type === "failed") {
      this.fail(msg.reason, msg.detail);
    } else if (msg.type === "answer" && this.pending.has(msg.id)) {
      this.pending.get(msg.id).resolve(msg.response);
      this.pending.delete(msg.id);
    }
  }

  fail(reason, detail) {
    if (this.status === "failed") return;
    if (detail) console.warn(`Python runtime failed (${reason}): ${detail}`);
    if (this.worker) this.worker.terminate();
    this.setStatus("failed", { reason, detail });
    for (const { reject } of this.pending.values()) reject(new Error(reason));
    this.pending.clear();
  }

  setStatus(status, info = {}) {
    this.status = status;
    this.info = info;
    for (const listener of this.listeners) listener(status, info);
  }

  // Calls listener now with the current status, then on every change.
  onStatus(listener) {
    this.listeners.push(listener);
    listener(this.status, this.info);
  }

  // Resolves with the entry point's answer; rejects only if the runtime failed.
  call(name, payload) {
    if (this.status === "failed") return Promise.reject(new Error(this.info.reason || "failed"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ type: "call", id, name, payload });
    });
  }
}

// The page's runtime, started on the first call; later calls get the same one.
export function startRuntime(options = {}) {
  if (!shared) shared = new Runtime(options);
  return shared;
}

// The options the page declares in <meta name="atlas-runtime">, or null.
export function pageOptions() {
  const meta = document.querySelector('meta[name="atlas-runtime"]');
  if (!meta) return null;
  const { bundle = "", data = {}, warm = [] } = JSON.parse(meta.content);
  return { bundleVersion: bundle, data, warm };
}

// The page's runtime, started with the options from its <meta name="atlas-runtime">.
export function pageRuntime() {
  return startRuntime(pageOptions() || {});
}

export function currentRuntime() {
  return shared;
}

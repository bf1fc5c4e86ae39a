// Page side of the in-page Python runtime. Three parts work together:
//   pyodide-start.js    classic async script in <head>: starts the module worker at once
//   pyodide-worker.mjs  the worker: loads Pyodide and the project's packages, answers calls
//   pyodide-client.mjs  this module: one Runtime object per page over that worker
// and the Python package pyweb, whose ENTRY_POINTS list what may be called.
//
//   import { pageRuntime } from "./pyodide-client.mjs";
//   const runtime = pageRuntime();             // the runtime this page declares (started if need be)
//   runtime.onStatus((status, info) => ...);   // "loading" | "ready" | "failed"
//   const response = await runtime.call("calculators.render", payload);
//
// A page declares its runtime in <head>; overrides/main.html writes this from
// page.meta (a macro sets atlas_runtime, atlas_start and atlas_modules):
//   <meta name="atlas-runtime" content='{"bundle": "<hash>", "data": {"atlas-data.json": "<hash>"},
//                                        "warm": ["calculators.render"]}'>
//   <script async src=".../pyodide-start.js"></script>
//   <script type="module" async src=".../calculator.mjs"></script>
// To run another feature on the same runtime, register its entry point in
// pyweb.ENTRY_POINTS, list it in "warm" and call it as above.

let shared = null;

// Resolves with globalThis.atlasStartPython once pyodide-start.js has run, or null if it never
// will (missing from the page or failed to load): both scripts are async and may run in any order.
function startFunction() {
  return new Promise((resolve) => {
    const found = () => (typeof globalThis.atlasStartPython === "function" ? globalThis.atlasStartPython : null);
    if (found() || document.readyState === "complete") return resolve(found());
    const script = document.querySelector('script[src*="pyodide-start.js"]');
    if (script) script.addEventListener("load", () => resolve(found()), { once: true });
    window.addEventListener("load", () => resolve(found()), { once: true });
  });
}

class Runtime {
  constructor(options) {
    this.status = "loading";
    this.info = {};
    this.listeners = [];
    this.pending = new Map();
    this.outbox = [];
    this.nextId = 1;
    this.started = performance.now();
    startFunction().then((start) => {
      if (!start) this.fail("load", "pyodide-start.js did not run on this page");
      else this.adopt(start(options));
    });
  }

  // Take over the worker pyodide-start.js created, then replay what it said before this module ran.
  adopt(handle) {
    this.started = handle.started;
    if (handle.failed) {
      this.fail(handle.failed.reason, handle.failed.detail);
      return;
    }
    this.worker = handle.worker;
    this.worker.onmessage = (event) => this.receive(event.data || {});
    this.worker.onerror = (event) => {
      event.preventDefault();
      this.fail("load", event.message || "the worker script could not be loaded");
    };
    for (const msg of handle.messages.splice(0)) this.receive(msg);
    for (const msg of this.outbox.splice(0)) this.worker.postMessage(msg);
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
      const msg = { type: "call", id, name, payload };
      if (this.worker) this.worker.postMessage(msg);
      else this.outbox.push(msg);
    });
  }
}

// The options the page declares in <meta name="atlas-runtime">: {bundle, data, warm}.
export function pageOptions() {
  const meta = document.querySelector('meta[name="atlas-runtime"]');
  return meta ? JSON.parse(meta.content) : {};
}

// The page's runtime; later calls get the same one.
export function pageRuntime() {
  if (!shared) shared = new Runtime(pageOptions());
  return shared;
}

export function currentRuntime() {
  return shared;
}

// Run ``callback`` once the page is there and again after each of Material's instant navigations (its
// ``document$`` observable), or once on DOMContentLoaded where the theme's script is absent.
export function onEveryPage(callback) {
  if (typeof document$ !== "undefined") document$.subscribe(callback);
  else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => onEveryPage(callback), { once: true });
  } else callback();
}

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
//   {type: "boot", pyodideURL, bundleURL, snapshotURL, stdlibURL, data: {name: url}, warm: [entry names]}
//     snapshotURL (or null): a memory snapshot the build made (macros/make_snapshot.mjs) of Pyodide with
//     the bundle imported and warmed; restoring it replaces CPython's start. Without it, or when it
//     fails in any way, the worker starts Pyodide as usual.
//     stdlibURL (or null): this build's trimmed python_stdlib.zip with ?v=<content hash> (loadPyodide's
//     stdLibURL), so a service worker of an older build cannot hand over its own copy.
//   {type: "call", id, name, payload}      name: an entry point in pyweb.ENTRY_POINTS
// Messages out:
//   {type: "ready", timings: {pyodide_ms, total_ms, snapshot: true | false}}
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

function message(err) {
  return String(err && err.message ? err.message : err);
}

// The snapshot's bytes, checked against the content hash in its name (atlas-snapshot-<hash>.bin, the
// first 12 hex digits of its SHA-256): a truncated or damaged file is refused before Pyodide sees it.
// Where WebCrypto is missing (not a secure context) the check is left to Pyodide's own (magic number,
// build id).
async function fetchSnapshot(url) {
  const bytes = await fetchOk(url, "bytes");
  const expected = (/atlas-snapshot-([0-9a-f]{12})\.bin$/.exec(new URL(url).pathname) || [])[1];
  if (!expected) throw new Error(`${url}: not a snapshot name`);
  if (globalThis.crypto && crypto.subtle) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const hex = Array.from(digest.slice(0, 6), (b) => b.toString(16).padStart(2, "0")).join("");
    if (hex !== expected) throw new Error(`${url}: content does not match its name`);
  }
  return new Uint8Array(bytes);
}

// Pyodide restores a snapshot by copying it over the WebAssembly memory (HEAP8.set), but it never grows the
// memory first: the module starts with 30 MiB, so a snapshot of a Python that needed more (ours does, with the
// catalogue read) fails with "offset is out of bounds". This fsInit hook, run before the restore, makes the
// memory as large as the snapshot's: MEMFS's mmap allocates its buffer in the WebAssembly heap, which grows it;
// the restore then overwrites that buffer with the rest of the heap. macros/make_snapshot.mjs checks the
// restore the same way when it makes the snapshot.
function growMemoryFor(snapshot) {
  const header = new Uint32Array(snapshot.buffer, snapshot.byteOffset, 4)[1];  // bytes before the heap
  const heapBytes = snapshot.byteLength - header;
  return async (FS) => {
    const stream = FS.open("/tmp/atlas-snapshot-heap", "w+");
    FS.mmap(stream, heapBytes, 0, 3, 2);  // PROT_READ | PROT_WRITE, MAP_PRIVATE
    FS.close(stream);
    FS.unlink("/tmp/atlas-snapshot-heap");
  };
}

// loadPyodide, refused when pyodide.asm.wasm cannot be fetched or compiled: Pyodide then only logs
// "wasm instantiation failed!" with console.warn and loadPyodide never settles (pyodide.mjs,
// getInstantiateWasmFunc), so that message is watched for while it runs.
async function startPyodide(loadPyodide, options) {
  const warn = console.warn;
  const aborted = new Promise((_, reject) => {
    console.warn = (...args) => {
      warn.apply(console, args);
      if (String(args[0]).includes("wasm instantiation failed")) reject(new Error("pyodide.asm.wasm could not be loaded"));
    };
  });
  try {
    return await Promise.race([loadPyodide(options), aborted]);
  } finally {
    console.warn = warn;
  }
}

// What the build did before it took the snapshot (macros/make_snapshot.mjs does the same): the bundle
// in /atlas/lib, the data files in /atlas/data, /atlas/lib on sys.path, pyweb imported, entry points
// warmed. After a restore the imports and the warming find their modules already loaded, but the file
// system is not part of the snapshot, so the files are written again.
function setUp(pyodide, zip, texts, warm) {
  pyodide.unpackArchive(zip, "zip", { extractDir: "/atlas/lib" });
  pyodide.FS.mkdirTree("/atlas/data");
  for (const [name, text] of texts) {
    pyodide.FS.writeFile(`/atlas/data/${name}`, text, { encoding: "utf8" });
  }
  pyodide.runPython("import sys\nif '/atlas/lib' not in sys.path: sys.path.insert(0, '/atlas/lib')");
  const module = pyodide.pyimport("atlas.core.pyweb");
  const warmed = module.warm(warm);
  if (warmed && warmed.destroy) warmed.destroy();
  return module;
}

async function boot({ pyodideURL, bundleURL, snapshotURL = null, stdlibURL = null, data = {}, warm = [] }) {
  const t0 = performance.now();
  if (typeof WebAssembly !== "object") {
    postMessage({ type: "failed", reason: "no-wasm", detail: "WebAssembly is not available" });
    return;
  }
  // The bundle, the data files and the snapshot download while Pyodide's script loads.
  const bundle = fetchOk(bundleURL, "bytes");
  const files = Object.entries(data).map(([name, url]) => fetchOk(url, "text").then((text) => [name, text]));
  const snapshot = snapshotURL ? fetchSnapshot(snapshotURL) : null;
  bundle.catch(() => {});
  files.forEach((f) => f.catch(() => {}));
  if (snapshot) snapshot.catch(() => {});
  let loadPyodide;
  try {
    ({ loadPyodide } = await import(new URL("pyodide.mjs", pyodideURL).href));
  } catch (err) {
    postMessage({ type: "failed", reason: "load", detail: message(err) });
    return;
  }
  let zip, texts;
  const inputs = () => Promise.all([bundle, Promise.all(files)]).then(([z, t]) => { [zip, texts] = [z, t]; });

  // From the snapshot first, when the page names one; any failure there (no snapshot, a damaged one, another
  // Pyodide build, an error while setting up) falls back to the normal start, which does not depend on it.
  for (const fromSnapshot of snapshot ? [true, false] : [false]) {
    const last = !fromSnapshot;
    let pyodide;
    try {
      const options = { indexURL: pyodideURL };
      if (stdlibURL) options.stdLibURL = stdlibURL;  // python_stdlib.zip?v=<hash>: this build's, never a stale copy
      if (fromSnapshot) {
        options._loadSnapshot = await snapshot;
        options.fsInit = growMemoryFor(options._loadSnapshot);
      }
      pyodide = await startPyodide(loadPyodide, options);
    } catch (err) {
      if (last) {
        postMessage({ type: "failed", reason: "load", detail: message(err) });
        return;
      }
      console.info(`Python runtime: starting without the snapshot (${message(err)})`);
      continue;
    }
    const t1 = performance.now();
    try {
      await inputs();
    } catch (err) {
      postMessage({ type: "failed", reason: "load", detail: message(err) });
      return;
    }
    try {
      pyweb = setUp(pyodide, zip, texts, warm);
    } catch (err) {
      pyweb = null;
      if (last) {
        postMessage({ type: "failed", reason: "python", detail: message(err) });
        return;
      }
      console.info(`Python runtime: starting without the snapshot (${message(err)})`);
      continue;
    }
    const timings = { pyodide_ms: t1 - t0, total_ms: performance.now() - t0, snapshot: fromSnapshot };
    postMessage({ type: "ready", timings });
    return;
  }
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

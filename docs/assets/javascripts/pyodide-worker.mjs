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
//   {type: "boot", pyodideURL, bundleURL, snapshotURL, stdlibURL, data: {name: url}, warm: [entry names],
//    controlled}
//     snapshotURL (or null): a memory snapshot the build made (macros/make_snapshot.mjs) of Pyodide with
//     the bundle imported and warmed; restoring it replaces CPython's start. Without it, or when it
//     fails in any way, the worker starts Pyodide as usual. It is taken only where it pays (snapshotPlan):
//     from the service worker's cache, or over a fast link; on a slow one the worker starts without it.
//     controlled: whether a service worker controls the page (then the snapshot, left out on a slow link,
//     is fetched after "ready" through it, so the next visit finds it in the cache).
//     stdlibURL (or null): this build's trimmed python_stdlib.zip with ?v=<content hash> (loadPyodide's
//     stdLibURL), so a service worker of an older build cannot hand over its own copy.
//   {type: "call", id, name, payload}      name: an entry point in pyweb.ENTRY_POINTS
// Messages out:
//   {type: "ready", timings: {pyodide_ms, total_ms, snapshot: true | false, snapshot_plan, link}}
//     snapshot: whether Pyodide was restored from the snapshot; snapshot_plan: where it was to come from
//     ("cache" | "network") or why it was left out ("none" | "slow-link" | "save-data"); link: what
//     navigator.connection said ({effectiveType, downlink, rtt, saveData}) or null where it is missing.
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
async function fetchSnapshot(url, response = null) {
  const bytes = response ? await response.arrayBuffer() : await fetchOk(url, "bytes");
  const expected = (/atlas-snapshot-([0-9a-f]{12})\.bin$/.exec(new URL(url).pathname) || [])[1];
  if (!expected) throw new Error(`${url}: not a snapshot name`);
  if (globalThis.crypto && crypto.subtle) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const hex = Array.from(digest.slice(0, 6), (b) => b.toString(16).padStart(2, "0")).join("");
    if (hex !== expected) throw new Error(`${url}: content does not match its name`);
  }
  return new Uint8Array(bytes);
}

// Whether the snapshot pays. It saves Python's start (about 2 s of CPU on the development machine, more on a
// phone) but adds its download: 7.4 MB gzipped, more than everything else the calculator needs (6.5 MB). On
// Lighthouse's mobileSlow4G profile (1.6 Mbit/s, 562 ms) the calculator was ready after 77.8 s with it and
// 44.1 s without it; on a fast link it wins (0.94 x a bare loadPyodide). The break-even lies near
// 59 Mbit / 2–8 s, i.e. 7–30 Mbit/s.
//
// The Network Information API (navigator.connection, in Chromium's workers too; missing in Safari and
// Firefox) is all a page can read, and it is coarse: Chromium caps downlink at 10 Mbit/s and, before it has
// measured anything on a network, reports the typical values of the connection type (Ethernet: 4g, 1.45 Mbit/s,
// rtt 100 ms, seen in the test browser; localhost traffic is never measured). A threshold of downlink >= 10
// would refuse the snapshot to every fresh desktop session, so the link counts as slow when
//   - saveData is on (the reader asked for fewer bytes: no snapshot before or after "ready"), or
//   - effectiveType is "slow-2g", "2g" or "3g" (Chromium derives it from the round-trip time: 3g from 272 ms;
//     the bench's mobileSlow4G profile reads 3g), or
//   - downlink is below MIN_DOWNLINK_MBIT (a measured link that slow loses more than 40 s to the snapshot).
// Where the API is missing the link counts as fast: the snapshot is used, as before this check.
// Chromium's DevTools throttling (CDP Network.emulateNetworkConditions, what `make bench` uses) does change
// navigator.connection in the page and in its workers (3g, 1.7 Mbit/s, rtt 600 ms under mobileSlow4G).
const MIN_DOWNLINK_MBIT = 1;

function linkInfo() {
  const c = globalThis.navigator && navigator.connection;
  if (!c) return null;
  return { effectiveType: c.effectiveType ?? null, downlink: c.downlink ?? null, rtt: c.rtt ?? null, saveData: !!c.saveData };
}

// null (fast or unknown: take the snapshot), "save-data" or "slow-link".
function slowLink(link) {
  if (!link) return null;
  if (link.saveData) return "save-data";
  if (["slow-2g", "2g", "3g"].includes(link.effectiveType)) return "slow-link";
  if (typeof link.downlink === "number" && link.downlink > 0 && link.downlink < MIN_DOWNLINK_MBIT) return "slow-link";
  return null;
}

// The snapshot as the service worker keeps it (sw.js: RUNTIME, key <path>?v=<hash>; its name carries its own
// content hash, so any kept copy under that name is this build's and fetchSnapshot checks it anyway), or null.
// Read straight from the cache, so it is found even where the page is not controlled (a forced reload).
async function cachedSnapshot(url) {
  try {
    if (!globalThis.caches) return null;
    const hit = await caches.match(url, { ignoreSearch: true });
    return hit && hit.ok ? hit : null;
  } catch (err) {
    return null;  // caches refused (an opaque origin, storage off): as if nothing were kept
  }
}

// Where the snapshot comes from: {plan, snapshot (a promise of its bytes, or null)}.
//   fast or unknown link: fetched at once, as before (through the service worker when it controls the page);
//   slow link or saveData: only from the service worker's cache; otherwise Pyodide starts without it.
async function snapshotPlan(url, link) {
  if (!url) return { plan: "none", snapshot: null };
  const slow = slowLink(link);
  if (!slow) return { plan: "network", snapshot: fetchSnapshot(url) };
  const hit = await cachedSnapshot(url);
  if (hit) return { plan: "cache", snapshot: fetchSnapshot(url, hit) };
  return { plan: slow, snapshot: null };
}

// After "ready" on a slow link, without saveData: fetch the snapshot through the service worker, which keeps
// it by its hash (sw.js, fromRuntime), so the next visit starts from it. Only where a service worker controls
// the page: on the first visit pyodide-start.js registers one after "ready", and its install fetches every
// runtime file of the manifest, the snapshot included; fetching it here as well would download it twice.
// Known gap: a page still controlled by an older build's service worker (whose manifest lacks this snapshot)
// has it kept network-first among the pages, and the new build's service worker fetches it again on install.
function fetchForNextVisit(url) {
  fetch(url).then((response) => (response.body ? response.body.pipeTo(new WritableStream()) : null)).catch(() => {});
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

async function boot({ pyodideURL, bundleURL, snapshotURL = null, stdlibURL = null, data = {}, warm = [], controlled = false }) {
  const t0 = performance.now();
  if (typeof WebAssembly !== "object") {
    postMessage({ type: "failed", reason: "no-wasm", detail: "WebAssembly is not available" });
    return;
  }
  // The bundle, the data files and the snapshot (where it pays) download while Pyodide's script loads.
  const bundle = fetchOk(bundleURL, "bytes");
  const files = Object.entries(data).map(([name, url]) => fetchOk(url, "text").then((text) => [name, text]));
  const link = linkInfo();
  const script = import(new URL("pyodide.mjs", pyodideURL).href);
  script.catch(() => {});
  const { plan, snapshot } = await snapshotPlan(snapshotURL, link);
  bundle.catch(() => {});
  files.forEach((f) => f.catch(() => {}));
  if (snapshot) snapshot.catch(() => {});
  let loadPyodide;
  try {
    ({ loadPyodide } = await script);
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
    const timings = { pyodide_ms: t1 - t0, total_ms: performance.now() - t0, snapshot: fromSnapshot,
                      snapshot_plan: plan, link };
    postMessage({ type: "ready", timings });
    if (plan === "slow-link" && controlled) fetchForNextVisit(snapshotURL);
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

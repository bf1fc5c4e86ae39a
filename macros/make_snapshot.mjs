// Makes the memory snapshot the calculators start from (run by macros/runtime_hooks.py at build time).
//
//   node macros/make_snapshot.mjs JOB.json
//
// JOB.json: {"pyodide": "<folder of pyodide.mjs>", "bundle": "<atlas-python.zip>",
//            "data": {"atlas-data.json": "<file>"}, "warm": ["calculators.render", ...], "out": "<file>"}
//
// Loads Pyodide from node_modules with _makeSnapshot, then does exactly what pyodide-worker.mjs does
// after loadPyodide(): unpacks the bundle into /atlas/lib, writes the data files into /atlas/data, puts
// /atlas/lib on sys.path, imports pyweb and warms the entry points. Then writes makeMemorySnapshot().
//
// The snapshot holds the WebAssembly memory only: the imported modules, the catalogue read from the
// data export, sys.path. Pyodide's file system lives outside that memory, so the worker unpacks the
// bundle and writes the data files again after restoring (they are small; Python reads the
// translations and the like lazily from them). The build names the snapshot by its content hash and
// makes it again whenever Pyodide, the bundle, the data or this script change.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
const { loadPyodide } = await import(pathToFileURL(path.join(job.pyodide, "pyodide.mjs")).href);
const t0 = performance.now();
const pyodide = await loadPyodide({ indexURL: job.pyodide + path.sep, _makeSnapshot: true });
const t1 = performance.now();
pyodide.unpackArchive(new Uint8Array(readFileSync(job.bundle)), "zip", { extractDir: "/atlas/lib" });
pyodide.FS.mkdirTree("/atlas/data");
for (const [name, file] of Object.entries(job.data || {})) {
  pyodide.FS.writeFile(`/atlas/data/${name}`, readFileSync(file, "utf8"), { encoding: "utf8" });
}
pyodide.runPython("import sys\nif '/atlas/lib' not in sys.path: sys.path.insert(0, '/atlas/lib')");
const pyweb = pyodide.pyimport("atlas.core.pyweb");
const warmed = pyweb.warm(job.warm || []);
if (warmed && warmed.destroy) warmed.destroy();
pyweb.destroy(); // no JavaScript reference may be left in the snapshot
const snapshot = pyodide.makeMemorySnapshot();
writeFileSync(job.out, snapshot);
console.log(JSON.stringify({ bytes: snapshot.length, load_ms: Math.round(t1 - t0), total_ms: Math.round(performance.now() - t0) }));

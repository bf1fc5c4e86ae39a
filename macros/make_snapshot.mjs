// Makes the memory snapshot the calculators start from (run by macros/runtime_hooks.py at build time).
//
//   node macros/make_snapshot.mjs JOB.json
//
// JOB.json: {"pyodide": "<folder of pyodide.mjs>", "stdlib": "<python_stdlib.zip the site ships>",
//            "bundle": "<atlas-python.zip>", "data": {"atlas-data.json": "<file>"},
//            "warm": ["calculators.render", ...], "out": "<file>", "stdlib_full": ["<module>", ...]}
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
//
// Python starts on the standard library the site ships ("stdlib", trimmed by atlas/data/webbundle.py), so
// this is also the proof that it is complete: after the snapshot is written, every module of the bundle
// and every module of that zip is imported; one that fails because a module of Pyodide's full standard
// library ("stdlib_full") is not in the trimmed zip is printed on a line starting "atlas-stdlib-missing:"
// and the script exits with status 3, which stops the build (as does a ModuleNotFoundError before that).
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

// Errors are printed as their message only (a Python traceback for a PythonError) and set the exit status:
// Node's own report of an uncaught error starts with the whole minified line of pyodide.asm.mjs it came
// from, which fills the pipe to the build (64 kB) before the message.
// The same as growMemoryFor in docs/assets/javascripts/pyodide-worker.mjs (a page's worker cannot import
// from macros/): Pyodide copies a snapshot over a memory it never grows first (30 MiB at the start), so the hook
// grows it to the snapshot's heap through MEMFS's mmap, which allocates in the WebAssembly heap.
function growMemoryFor(snapshot) {
  const header = new Uint32Array(snapshot.buffer, snapshot.byteOffset, 4)[1];
  const heapBytes = snapshot.byteLength - header;
  return async (FS) => {
    const stream = FS.open("/tmp/atlas-snapshot-heap", "w+");
    FS.mmap(stream, heapBytes, 0, 3, 2);  // PROT_READ | PROT_WRITE, MAP_PRIVATE
    FS.close(stream);
    FS.unlink("/tmp/atlas-snapshot-heap");
  };
}

async function main() {
  const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
  const { loadPyodide } = await import(pathToFileURL(path.join(job.pyodide, "pyodide.mjs")).href);
  const t0 = performance.now();
  const options = { indexURL: job.pyodide + path.sep, _makeSnapshot: true };
  if (job.stdlib) options.stdLibURL = job.stdlib;
  const pyodide = await loadPyodide(options);
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

  // Restore it as the worker does (pyodide-worker.mjs: _loadSnapshot, with the hook that first grows the memory
  // to the snapshot's size), so a snapshot that cannot be restored stops here instead of shipping.
  const restored = await loadPyodide({ indexURL: options.indexURL, stdLibURL: options.stdLibURL,
                                       _loadSnapshot: snapshot, fsInit: growMemoryFor(snapshot) });
  if (restored.runPython("'atlas.core.pyweb' in __import__('sys').modules") !== true) {
    throw new Error("the restored snapshot does not hold atlas.core.pyweb");
  }

  // The check of the trimmed standard library (see above), after the snapshot so that it holds none of it.
  if (job.stdlib_full) {
    pyodide.globals.set("stdlib_full", pyodide.toPy(job.stdlib_full));
    const found = pyodide.runPython(`
import importlib, os, sys, zipfile
def _names():
    zips = [p for p in sys.path if p.endswith(".zip")]
    for name in zipfile.ZipFile(zips[0]).namelist():
        if name.endswith(".py"):
            yield name[:-3].removesuffix("/__init__").replace("/", ".")
    for folder, _, files in os.walk("/atlas/lib/atlas"):
        for file in files:
            if file.endswith(".py"):
                yield os.path.join(folder, file)[len("/atlas/lib/"):-3].removesuffix("/__init__").replace("/", ".")
_full, _missing = set(stdlib_full), []
for _name in sorted(set(_names())):
    if _name.split(".")[-1] == "__main__" or not all(p.isidentifier() for p in _name.split(".")):
        continue
    try:
        importlib.import_module(_name)
    except ModuleNotFoundError as exc:
        if exc.name in _full:
            _missing.append(f"{exc.name} (importing {_name})")
    except Exception:
        pass  # fails the same way on the full standard library (no processes, no _ctypes, ...)
chr(10).join(_missing)
`);
    if (found) {
      for (const line of found.split("\n")) console.error(`atlas-stdlib-missing: ${line}`);
      process.exitCode = 3;
      return;
    }
  }
  console.log(JSON.stringify({ bytes: snapshot.length, load_ms: Math.round(t1 - t0), total_ms: Math.round(performance.now() - t0) }));
}

try {
  await main();
} catch (err) {
  console.error(String(err && err.message ? err.message : err));
  process.exitCode = 1;
}

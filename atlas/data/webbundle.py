"""The files the build adds to the site for the in-page Python runtime.

Pyodide itself is copied from ``node_modules/pyodide`` (pinned in
``package.json``). The project's own stdlib-only code, the folder ``atlas/core/``, is zipped
whole at build time, so no copy of them is
ever checked into ``docs/``; the worker unpacks the zip into Pyodide's file
system. Everything here is deterministic: the same sources give the same
bytes, so the version hash in the page changes only when the code does.
"""

from __future__ import annotations

import hashlib
import io
import tokenize
import zipfile
from pathlib import Path

from atlas.data import REPO_ROOT
from atlas.data.buildcache import disk_cached

# Files of the pinned npm package that the browser needs. The lock file and the standard library are
# written trimmed (see ``pyodide_lock`` and ``pyodide_stdlib``), the rest is copied as it is.
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm")
STDLIB_NAME = "python_stdlib.zip"  # Pyodide's default name (indexURL + this), so loadPyodide needs no option
PYODIDE_DIR = "assets/vendor/pyodide"  # in the site
BUNDLE_PATH = "assets/python/atlas-python.zip"  # in the site
DATA_PATH = "assets/data/atlas-data.json"  # in the site

# What goes into the bundle from each package folder.
BUNDLED_SUFFIXES = (".py", ".json")
_FIXED_TIME = (2020, 1, 1, 0, 0, 0)


def bundle_files(root: Path = REPO_ROOT) -> list[Path]:
    """The files the browser bundle holds, in a stable order: ``atlas/__init__.py`` and every ``.py`` and
    ``.json`` file under ``atlas/core/`` — the core folder whole, no list of files to keep up to date.

    Raises ``FileNotFoundError`` if the core folder is missing, so a moved package stops the build.
    """
    core = root / "atlas" / "core"
    if not (core / "__init__.py").is_file():
        raise FileNotFoundError(f"the browser core is not at {core}")
    files = [
        p for p in core.rglob("*")
        if p.is_file() and p.suffix in BUNDLED_SUFFIXES and "__pycache__" not in p.parts
    ]
    return sorted([root / "atlas" / "__init__.py", *files])


def bundle_zip(root: Path = REPO_ROOT) -> bytes:
    """A zip of :func:`bundle_files` (paths relative to ``root``), byte-for-byte reproducible."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for path in bundle_files(root):
            info = zipfile.ZipInfo(path.relative_to(root).as_posix(), date_time=_FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, path.read_bytes())
    return buf.getvalue()


def version_of(content: bytes) -> str:
    """A short content hash, appended to URLs (``?v=…``) so browsers never mix old and new files."""
    return hashlib.sha256(content).hexdigest()[:12]


def pyodide_files(node_modules: Path = REPO_ROOT / "node_modules") -> list[tuple[Path, str]]:
    """(file in node_modules, path in the site) for each Pyodide runtime file."""
    return [(node_modules / "pyodide" / name, f"{PYODIDE_DIR}/{name}") for name in PYODIDE_FILES]


def pyodide_lock(node_modules: Path = REPO_ROOT / "node_modules") -> bytes:
    """Pyodide's ``pyodide-lock.json`` with its header only and no packages.

    ``loadPyodide`` reads the lock file and refuses one whose ABI header does
    not match the runtime; the site installs no package from the Pyodide
    distribution, so the 120 kB list of packages would be dead weight.
    """
    import json

    with open(node_modules / "pyodide" / "pyodide-lock.json", encoding="utf-8") as fh:
        info = json.load(fh)["info"]
    return json.dumps({"info": info, "packages": {}}, sort_keys=True).encode("utf-8")


def pyodide_version(node_modules: Path = REPO_ROOT / "node_modules") -> str:
    """The installed Pyodide npm package's version (e.g. ``314.0.8``)."""
    import json

    with open(node_modules / "pyodide" / "package.json", encoding="utf-8") as fh:
        return json.load(fh)["version"]


def site_bundle(root: Path = REPO_ROOT) -> tuple[bytes, str]:
    """The bundle the site ships (the folder ``atlas/core/`` whole, see :func:`bundle_files`) and its version hash."""
    content = bundle_zip(root)
    return content, version_of(content)


def site_data(dataset) -> tuple[bytes, str]:
    """The data export the browser reads (``atlas-data.json``) and its version hash."""
    from atlas.data.export import export_json

    content = export_json(dataset).encode("utf-8")
    return content, version_of(content)


# The standard library the site ships: Pyodide's python_stdlib.zip (2.5 MB, 9.6 MB unpacked) cut down to the
# modules that can be imported in the page. The kept set is computed at build time, never listed by hand:
# the roots are every module the browser core (``atlas/core``, see ``bundle_files``) imports anywhere in
# its source, plus STDLIB_ROOTS below; then every module those import anywhere in their source (also
# inside functions and ``try`` blocks), read from the zip itself, until nothing new turns up. Imports by
# a computed name are the only ones this cannot see: those made by Pyodide's start-up and by CPython's C
# code are the roots below. The build proves it in Node (macros/make_snapshot.mjs starts Pyodide on the
# trimmed zip, warms every entry point and imports every core module; a missing module stops the build).
STDLIB_ROOTS = (
    # Pyodide's own Python side, whole: loadPyodide imports _pyodide and pyodide (and through them
    # asyncio, ast, inspect, ...), and pyimport/runPython go through them on every call.
    "_pyodide", "pyodide",
    # Run by CPython at start-up (site) or imported by its C code by name: codecs look their module up in
    # ``encodings`` by the codec's name (so the package is kept whole), int/str conversion of huge numbers
    # (_pylong), time.strptime (_strptime), printing a traceback (traceback, linecache, _colorize), warnings,
    # pickling and copy (copyreg, _compat_pickle), annotations (annotationlib), help()/exit() (_sitebuiltins).
    "site", "encodings", "_pylong", "_strptime", "traceback", "linecache", "_colorize", "warnings",
    "_py_warnings", "copyreg", "_compat_pickle", "annotationlib", "_sitebuiltins", "__future__",
)
# Packages kept whole, with every module under them (their modules are imported by computed names) -- but
# for the codecs in ``encodings`` that are a 256-character table each (cp1252, iso8859_2, mac_roman, ...,
# 70 modules, 283 kB of the zip): they are loaded only when a program names that encoding, so only those
# whose name is a string in the source of the core or of a module kept are (see ``codec_modules``).
STDLIB_WHOLE_PACKAGES = ("_pyodide", "pyodide", "encodings")
# Never followed: what these need cannot work in a browser's Web Worker (no terminal, no processes, no
# sockets or HTTP from Python, no debugger) or is not there (importlib.metadata: the site installs no
# distribution), and the standard library only reaches them inside functions for that (help() -> pydoc ->
# http.server, email; the REPL; ProcessPoolExecutor; pathlib's as_uri -> urllib.request; PathFinder's
# find_distributions -> importlib.metadata). A module kept that imports one of them when it is imported stops the build: the Node step
# imports every module of the trimmed zip.
STDLIB_EXCLUDED = (
    "pydoc", "_pyrepl", "pdb", "bdb", "multiprocessing", "concurrent.futures.process", "xmlrpc", "http",
    "socketserver", "email", "urllib.request", "ftplib", "smtplib", "imaplib", "poplib", "mailbox",
    "webbrowser", "unittest", "doctest", "cProfile", "profile", "pstats", "trace", "timeit", "importlib.metadata",
)


def imported_names(source: bytes, module: str = "", is_package: bool = False, strings: set | None = None) -> set[str]:
    """Every module name an ``import`` or ``from ... import`` statement anywhere in ``source`` may load, with
    its parent packages, and for ``from a import b`` also ``a.b`` (which may be a module). Relative imports
    are resolved against ``module``. Read with ``tokenize`` rather than ``ast``: the build's Python may be
    older than Pyodide's and not parse its newest syntax, and its tokenizer reads all of it. With ``strings``,
    adds the short plain string literals to it (the codec names among them, see ``codec_modules``)."""
    tokens = [t for t in tokenize.tokenize(io.BytesIO(source).readline)
              if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING)]
    if strings is not None:
        strings.update(t.string[1:-1] for t in tokens if t.type == tokenize.STRING and len(t.string) <= 40
                       and t.string[0] in "'\"" and t.string[:3] not in ('"""', "'''") and "\\" not in t.string)
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()

    def add(name: str) -> None:
        parts = name.split(".")
        found.update(".".join(parts[: i + 1]) for i in range(len(parts)))

    def dotted(i: int) -> tuple[str, int]:
        parts = []
        while i < len(tokens) and tokens[i].type == tokenize.NAME and tokens[i].string != "import":
            parts.append(tokens[i].string)
            if i + 1 < len(tokens) and tokens[i + 1].string == ".":
                i += 2
            else:
                i += 1
                break
        return ".".join(parts), i

    starts = {tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    depth, i = 0, 0
    while i < len(tokens):
        tok = tokens[i]
        depth += (tok.type == tokenize.INDENT) - (tok.type == tokenize.DEDENT)
        prev = tokens[i - 1] if i else None
        at_start = prev is None or prev.type in starts or prev.string in (";", ":")
        if depth == 0 and at_start and _is_main_guard(tokens, i):
            i = _after_block(tokens, i)  # never runs on import: "if __name__ == '__main__': import doctest"
            continue
        i += 1
        if tok.type != tokenize.NAME or tok.string not in ("import", "from") or not at_start:
            continue  # "raise X from Y", "yield from": not an import
        if tok.string == "import":
            j = i
            while True:
                name, j = dotted(j)
                if name:
                    add(name)
                if j < len(tokens) and tokens[j].string == "as":
                    j += 2
                if j < len(tokens) and tokens[j].string == ",":
                    j += 1
                    continue
                break
            continue
        j, level = i, 0
        while j < len(tokens) and tokens[j].string in (".", "..."):
            level += len(tokens[j].string)
            j += 1
        name, j = dotted(j)
        if level:
            base = package.split(".") if package else []
            base = base[: len(base) - (level - 1)] if level > 1 else base
            name = ".".join([*base, name] if name else base)
        if not name or j >= len(tokens) or tokens[j].string != "import":
            continue
        add(name)
        j += 1
        while j < len(tokens) and tokens[j].type not in (tokenize.NEWLINE, tokenize.ENDMARKER) and tokens[j].string != ";":
            if tokens[j].type == tokenize.NAME and tokens[j - 1].string != "as" and tokens[j].string != "as":
                found.add(f"{name}.{tokens[j].string}")
            j += 1
    return found


def _is_main_guard(tokens, i: int) -> bool:
    """Whether ``if __name__ == "__main__":`` starts at ``tokens[i]``."""
    words = [t.string for t in tokens[i:i + 5]]
    return (len(words) == 5 and words[:3] == ["if", "__name__", "=="] and words[4] == ":"
            and words[3] in ("'__main__'", '"__main__"'))


def _after_block(tokens, i: int) -> int:
    """The index of the first token after the block of the ``if`` statement at ``tokens[i]``."""
    i += 5
    if i + 1 < len(tokens) and tokens[i].type == tokenize.NEWLINE and tokens[i + 1].type == tokenize.INDENT:
        depth, i = 1, i + 2
        while i < len(tokens) and depth:
            depth += (tokens[i].type == tokenize.INDENT) - (tokens[i].type == tokenize.DEDENT)
            i += 1
        return i
    while i < len(tokens) and tokens[i].type != tokenize.NEWLINE:
        i += 1
    return i + 1


def _stdlib_modules(names) -> dict[str, str]:
    """{module name: its file in the zip} for the ``.py`` files of ``names`` (the zip's file list)."""
    modules = {}
    for name in names:
        if not name.endswith(".py"):
            continue
        parts = name[: -len(".py")].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts and all(p.isidentifier() for p in parts):
            modules[".".join(parts)] = name
    return modules


def _excluded(module: str) -> bool:
    return any(module == e or module.startswith(e + ".") for e in STDLIB_EXCLUDED)


def _is_table_codec(source: bytes) -> bool:
    """Whether a module of ``encodings`` is a single-byte codec made from a 256-character table."""
    return b"decoding_table = (" in source or b"codecs.charmap_build(" in source


def codec_modules(strings) -> set[str]:
    """The ``encodings`` modules of the codecs named by ``strings`` (``"utf-8-sig"``, ``"cp437"``, ...),
    resolved as Python's codec search does."""
    import codecs
    import encodings
    from encodings.aliases import aliases

    found: set[str] = set()
    for text in strings:
        try:
            codecs.lookup(text)
        except (LookupError, TypeError, ValueError):
            continue
        norm = encodings.normalize_encoding(text).lower()
        found.add(f"encodings.{aliases.get(norm, norm)}")
    return found


def core_imports(root: Path = REPO_ROOT, strings: set | None = None) -> set[str]:
    """Every module name the browser core's sources import (its own modules included); with ``strings``,
    adds their short string literals to it."""
    found: set[str] = set()
    for path in bundle_files(root):
        if path.suffix == ".py":
            rel = path.relative_to(root).with_suffix("").parts
            is_package = rel[-1] == "__init__"
            module = ".".join(rel[:-1] if is_package else rel)
            found |= imported_names(path.read_bytes(), module, is_package, strings)
    return found


def stdlib_kept(full: zipfile.ZipFile, roots, strings=()) -> set[str]:
    """The files of the zip ``full`` that the modules ``roots`` need: the closure described at STDLIB_ROOTS,
    with the table codecs named by ``strings`` or by a string in a module kept (zipfile's "cp437", ...)."""
    names = full.namelist()
    modules = _stdlib_modules(names)
    strings = set(strings)
    roots = set(roots)
    todo = [m for m in sorted(roots) if m in modules]
    for m in modules:
        if m.split(".")[0] in STDLIB_WHOLE_PACKAGES and not _excluded(m):
            if m.startswith("encodings.") and m not in roots and _is_table_codec(full.read(modules[m])):
                continue
            todo.append(m)
    seen: set[str] = set()
    while True:
        if not todo:  # the closure is complete: add the codecs its strings name, and what they import
            todo = [m for m in sorted(codec_modules(strings)) if m in modules and m not in seen]
            if not todo:
                break
        module = todo.pop()
        if module in seen or _excluded(module):
            continue
        seen.add(module)
        parent = module.rpartition(".")[0]
        if parent:
            todo.append(parent)
        path = modules[module]
        # (not the strings of ``encodings`` itself: its table of aliases names every codec there is)
        imports = imported_names(full.read(path), module, path.endswith("/__init__.py"),
                                 None if module.split(".")[0] == "encodings" else strings)
        todo += [m for m in imports if m in modules and m not in seen]
    if "sysconfig" in seen:  # it imports its platform data by a computed name
        seen |= {m for m in names if m.startswith("_sysconfigdata_")}
    files = {modules[m] for m in seen if m in modules} | {m for m in seen if m.endswith(".py")}
    dirs = {n for n in names if n.endswith("/") and any(f.startswith(n) for f in files)}
    return files | dirs


def stdlib_module_names(node_modules: Path = REPO_ROOT / "node_modules") -> list[str]:
    """Every module of Pyodide's full ``python_stdlib.zip``."""
    with zipfile.ZipFile(node_modules / "pyodide" / STDLIB_NAME) as full:
        return sorted(_stdlib_modules(full.namelist()))


_STDLIB_CACHE: dict[tuple[str, str], bytes] = {}  # (hash of the full zip, hash of the bundle): trimmed zip


def pyodide_stdlib(node_modules: Path = REPO_ROOT / "node_modules", root: Path = REPO_ROOT) -> bytes:
    """Pyodide's ``python_stdlib.zip`` with only the files :func:`stdlib_kept` keeps for the core's imports
    and STDLIB_ROOTS, in the original's order, byte-for-byte reproducible. Kept in memory by the inputs'
    hashes (reading the sources takes seconds; ``mkdocs serve`` rebuilds often)."""
    source = (node_modules / "pyodide" / STDLIB_NAME).read_bytes()
    key = (version_of(source), version_of(bundle_zip(root)))
    if key not in _STDLIB_CACHE:
        _STDLIB_CACHE.clear()
        _STDLIB_CACHE[key] = disk_cached("stdlib", f"{key[0]}-{key[1]}-{_trim_version()}.zip",
                                         lambda: _trim_stdlib(source, root), keep=4)
    return _STDLIB_CACHE[key]


def _trim_version() -> str:
    """A hash of this module's source: a change to how the standard library is trimmed makes a new cached copy."""
    return version_of(Path(__file__).read_bytes())


def _trim_stdlib(source: bytes, root: Path) -> bytes:
    with zipfile.ZipFile(io.BytesIO(source)) as full:
        strings: set[str] = set()
        keep = stdlib_kept(full, core_imports(root, strings) | set(STDLIB_ROOTS), strings)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
            for entry in full.infolist():
                if entry.filename not in keep:
                    continue
                info = zipfile.ZipInfo(entry.filename, date_time=_FIXED_TIME)
                info.external_attr = entry.external_attr
                info.compress_type = zipfile.ZIP_STORED if entry.is_dir() else zipfile.ZIP_DEFLATED
                zf.writestr(info, full.read(entry))
    return buf.getvalue()

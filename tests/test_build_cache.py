"""What a build keeps between its hooks and between builds: one data set per build, cached build outputs."""

from __future__ import annotations

import gzip
import os
import shutil

from atlas.data import buildcache, dataset
from macros import runtime_hooks


def test_the_data_set_is_loaded_once_until_a_file_changes(tmp_path, monkeypatch):
    data = tmp_path / "data"
    shutil.copytree(dataset.DATA_DIR, data)
    loads = []
    real = dataset.load_dataset
    monkeypatch.setattr(dataset, "load_dataset", lambda d, *a, **k: loads.append(d) or real(d, root=tmp_path))
    monkeypatch.setattr(dataset, "_ONCE", {})
    first = dataset.load_dataset_once(data)
    assert dataset.load_dataset_once(data) is first and len(loads) == 1
    device = next((data / "hardware" / "nvidia").glob("h100-sxm*.yaml"))
    device.write_text(device.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    second = dataset.load_dataset_once(data)
    assert second is not first and len(loads) == 2
    assert set(second.devices) == set(first.devices)


def test_a_cached_output_is_made_once_and_read_after(tmp_path, monkeypatch):
    monkeypatch.setenv("ATLAS_CACHE_DIR", str(tmp_path))
    made = []

    def make():
        made.append(1)
        return b"trimmed"

    assert buildcache.disk_cached("demo", "k1", make) == b"trimmed"
    assert buildcache.disk_cached("demo", "k1", make) == b"trimmed"
    assert made == [1] and (tmp_path / "demo" / "k1").read_bytes() == b"trimmed"
    assert not list((tmp_path / "demo").glob("*.tmp"))


def test_the_cache_keeps_only_the_newest_files(tmp_path, monkeypatch):
    monkeypatch.setenv("ATLAS_CACHE_DIR", str(tmp_path))
    for i in range(5):
        buildcache.disk_cached("demo", f"k{i}", lambda i=i: bytes([i]), keep=3)
        os.utime(tmp_path / "demo" / f"k{i}", (1_000_000 + i, 1_000_000 + i))
    buildcache.disk_cached("demo", "k5", lambda: b"5", keep=3)
    assert sorted(p.name for p in (tmp_path / "demo").iterdir()) == ["k3", "k4", "k5"]


def test_precompressed_copies_from_the_cache_are_gzip_of_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("ATLAS_CACHE_DIR", str(tmp_path / "cache"))
    site = tmp_path / "site"
    site.mkdir()
    raw = b"pyodide " * 4000
    (site / "a.js").write_bytes(raw)
    first = runtime_hooks.precompress(site, ["a.js"])
    packed = (site / "a.js.gz").read_bytes()
    assert packed == gzip.compress(raw, compresslevel=9, mtime=0) and gzip.decompress(packed) == raw
    (site / "a.js.gz").unlink()
    assert runtime_hooks.precompress(site, ["a.js"]) == first == {"a.js": (len(raw), len(packed))}
    assert (site / "a.js.gz").read_bytes() == packed
    assert len(list((tmp_path / "cache" / "gzip").iterdir())) == 1


def test_a_warmed_cache_serves_the_builds_stdlib_and_gzip_copies(tmp_path, monkeypatch):
    """``make test`` warms the cache before its builds start side by side (``python -m macros.runtime_hooks``):
    afterwards a build takes the trimmed standard library and the gzip copies of Pyodide's files and of that
    library from it, making neither again."""
    from atlas.data import webbundle

    monkeypatch.setenv("ATLAS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(webbundle, "_STDLIB_CACHE", {})
    runtime_hooks.warm_build_cache()
    stdlib = webbundle.pyodide_stdlib()
    files = {dest: src.read_bytes() for src, dest in webbundle.pyodide_files()}
    files[f"{webbundle.PYODIDE_DIR}/{webbundle.STDLIB_NAME}"] = stdlib
    assert len(list((tmp_path / "cache" / "gzip").iterdir())) == len(files)

    def made_again(*args, **kwargs):
        raise AssertionError("made again although the cache was warmed")

    monkeypatch.setattr(webbundle, "_STDLIB_CACHE", {})
    monkeypatch.setattr(webbundle, "_trim_stdlib", made_again)
    monkeypatch.setattr(runtime_hooks.gzip, "compress", made_again)
    assert webbundle.pyodide_stdlib() == stdlib  # from the disk cache
    site = tmp_path / "site"
    for dest, content in files.items():
        (site / dest).parent.mkdir(parents=True, exist_ok=True)
        (site / dest).write_bytes(content)
    written = runtime_hooks.precompress(site, list(files))
    assert f"{webbundle.PYODIDE_DIR}/pyodide.asm.wasm" in written
    for dest in written:
        assert gzip.decompress((site / f"{dest}.gz").read_bytes()) == files[dest]

"""The GGUF header reader against real files written by llama.cpp's gguf-py (the oracle).

gguf-py writes the files (``gguf.GGUFWriter``) and reads them back
(``gguf.GGUFReader``); our reader must agree on metadata, tensor shapes,
types, offsets and bytes, read only the header, say how many bytes a short
prefix lacks, and turn every damaged or hostile header into a GGUFError with
a message in both languages.
"""

from __future__ import annotations

import base64
import io
import json
import struct
import subprocess
import sys
import tracemalloc
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atlas.core import l10n
from atlas.core.calculators import defaults as d
from atlas.core.calculators import model_import
from atlas.core.calculators.gguf_reader import (
    GGML_TYPES,
    GGUFArray,
    GGUFError,
    NeedMoreBytes,
    read_header,
    read_path,
    summary,
    to_preset,
)
from atlas.core.calculators.messages import render_text
from atlas.core.calculators.models import ModelSpec
from conftest import REPO_ROOT, shared_dataset

gguf = pytest.importorskip("gguf")
T = gguf.GGMLQuantizationType

HIDDEN, FFN, HEADS, KV_HEADS, LAYERS, VOCAB = 256, 512, 4, 2, 2, 300
HEAD_DIM = HIDDEN // HEADS


def _tensor(writer, name: str, rows_cols: tuple, qtype, rng) -> None:
    """A tensor of numpy shape ``rows_cols`` stored as ``qtype``: quantised by gguf-py where it can,
    else random bytes of exactly the size the type needs (gguf-py has no Q4_K/Q6_K quantiser)."""
    data = rng.standard_normal(rows_cols).astype(np.float32)
    if qtype == T.F32:
        writer.add_tensor(name, data)
    elif qtype == T.F16:
        writer.add_tensor(name, data.astype(np.float16))
    else:
        try:
            writer.add_tensor(name, gguf.quants.quantize(data, qtype), raw_dtype=qtype)
        except NotImplementedError:
            block, size = gguf.GGML_QUANT_SIZES[qtype]
            raw = rng.integers(0, 256, size=rows_cols[:-1] + (rows_cols[-1] // block * size,), dtype=np.uint8)
            writer.add_tensor(name, raw, raw_dtype=qtype)


def _common_metadata(w) -> None:
    w.add_name("Tiny Test Model")
    w.add_uint8("test.u8", 200)
    w.add_int8("test.i8", -100)
    w.add_uint16("test.u16", 60000)
    w.add_int16("test.i16", -30000)
    w.add_uint32("test.u32", 4_000_000_000)
    w.add_int32("test.i32", -2_000_000_000)
    w.add_float32("test.f32", 0.5)
    w.add_uint64("test.u64", 2**63 + 5)
    w.add_int64("test.i64", -(2**62))
    w.add_float64("test.f64", 1.25)
    w.add_bool("test.flag", True)
    w.add_string("test.text", "Grüße, ünïcödé ✓")
    w.add_array("test.ints", [1, 2, 3, 40000])
    w.add_array("test.floats", [0.5, 1.5])
    w.add_array("test.bools", [True, False, True])
    w.add_array("test.strings", ["a", "bb", ""])
    w.add_array("test.nested", [[1, 2], [3]])
    w.add_array("tokenizer.ggml.tokens", [f"tok{i}" for i in range(VOCAB)])
    w.add_array("test.long", list(range(5000)))  # longer than KEEP_ARRAY: only the length is kept


def write_llama(path, rng) -> None:
    w = gguf.GGUFWriter(str(path), "llama")
    _common_metadata(w)
    w.add_block_count(LAYERS)
    w.add_context_length(4096)
    w.add_embedding_length(HIDDEN)
    w.add_feed_forward_length(FFN)
    w.add_head_count(HEADS)
    w.add_head_count_kv(KV_HEADS)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_K_M)
    _tensor(w, "token_embd.weight", (VOCAB, HIDDEN), T.Q8_0, rng)
    for i in range(LAYERS):
        b = f"blk.{i}"
        _tensor(w, f"{b}.attn_norm.weight", (HIDDEN,), T.F32, rng)
        _tensor(w, f"{b}.attn_q.weight", (HIDDEN, HIDDEN), T.Q4_K, rng)
        _tensor(w, f"{b}.attn_k.weight", (KV_HEADS * HEAD_DIM, HIDDEN), T.Q4_K, rng)
        _tensor(w, f"{b}.attn_v.weight", (KV_HEADS * HEAD_DIM, HIDDEN), T.Q6_K, rng)
        _tensor(w, f"{b}.attn_output.weight", (HIDDEN, HIDDEN), T.Q4_0, rng)
        _tensor(w, f"{b}.ffn_norm.weight", (HIDDEN,), T.F32, rng)
        _tensor(w, f"{b}.ffn_gate.weight", (FFN, HIDDEN), T.Q4_K, rng)
        _tensor(w, f"{b}.ffn_up.weight", (FFN, HIDDEN), T.Q4_K, rng)
        _tensor(w, f"{b}.ffn_down.weight", (HIDDEN, FFN), T.Q6_K, rng)
    _tensor(w, "output_norm.weight", (HIDDEN,), T.F32, rng)
    _tensor(w, "output.weight", (VOCAB, HIDDEN), T.F16, rng)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


EXPERTS, USED, EXPERT_FFN = 8, 2, 256
KV_RANK, Q_RANK, ROPE, NOPE, V_DIM = 64, 96, 16, 32, 32


def write_moe(path, rng) -> None:
    """A DeepSeek-V3-like file: MLA, one dense layer, then routed experts plus one shared expert."""
    arch = "deepseek2"
    w = gguf.GGUFWriter(str(path), arch)
    w.add_name("Tiny MoE")
    w.add_block_count(3)
    w.add_context_length(8192)
    w.add_embedding_length(HIDDEN)
    w.add_feed_forward_length(FFN)
    w.add_head_count(HEADS)
    w.add_head_count_kv(HEADS)
    w.add_key_length(NOPE + ROPE)
    w.add_value_length(V_DIM)
    w.add_uint32(f"{arch}.attention.kv_lora_rank", KV_RANK)
    w.add_uint32(f"{arch}.attention.q_lora_rank", Q_RANK)
    w.add_uint32(f"{arch}.rope.dimension_count", ROPE)
    w.add_uint32(f"{arch}.expert_count", EXPERTS)
    w.add_uint32(f"{arch}.expert_used_count", USED)
    w.add_uint32(f"{arch}.expert_shared_count", 1)
    w.add_uint32(f"{arch}.expert_feed_forward_length", EXPERT_FFN)
    w.add_uint32(f"{arch}.leading_dense_block_count", 1)
    w.add_array("tokenizer.ggml.tokens", [f"t{i}" for i in range(VOCAB)])
    _tensor(w, "token_embd.weight", (VOCAB, HIDDEN), T.Q8_0, rng)
    for i in range(3):
        b = f"blk.{i}"
        _tensor(w, f"{b}.attn_norm.weight", (HIDDEN,), T.F32, rng)
        _tensor(w, f"{b}.attn_q_a.weight", (Q_RANK, HIDDEN), T.Q8_0, rng)
        _tensor(w, f"{b}.attn_q_b.weight", (HEADS * (NOPE + ROPE), Q_RANK), T.Q8_0, rng)
        _tensor(w, f"{b}.attn_kv_a_mqa.weight", (KV_RANK + ROPE, HIDDEN), T.Q8_0, rng)
        _tensor(w, f"{b}.attn_kv_b.weight", (HEADS * (NOPE + V_DIM), KV_RANK), T.F16, rng)
        _tensor(w, f"{b}.attn_output.weight", (HIDDEN, HEADS * V_DIM), T.Q8_0, rng)
        if i == 0:
            _tensor(w, f"{b}.ffn_gate.weight", (FFN, HIDDEN), T.Q4_K, rng)
            _tensor(w, f"{b}.ffn_up.weight", (FFN, HIDDEN), T.Q4_K, rng)
            _tensor(w, f"{b}.ffn_down.weight", (HIDDEN, FFN), T.Q6_K, rng)
        else:
            _tensor(w, f"{b}.ffn_gate_inp.weight", (EXPERTS, HIDDEN), T.F32, rng)
            _tensor(w, f"{b}.ffn_gate_exps.weight", (EXPERTS, EXPERT_FFN, HIDDEN), T.Q4_K, rng)
            _tensor(w, f"{b}.ffn_up_exps.weight", (EXPERTS, EXPERT_FFN, HIDDEN), T.Q4_K, rng)
            _tensor(w, f"{b}.ffn_down_exps.weight", (EXPERTS, HIDDEN, EXPERT_FFN), T.Q6_K, rng)
            _tensor(w, f"{b}.ffn_gate_shexp.weight", (EXPERT_FFN, HIDDEN), T.Q8_0, rng)
            _tensor(w, f"{b}.ffn_up_shexp.weight", (EXPERT_FFN, HIDDEN), T.Q8_0, rng)
            _tensor(w, f"{b}.ffn_down_shexp.weight", (HIDDEN, EXPERT_FFN), T.Q8_0, rng)
    _tensor(w, "output_norm.weight", (HIDDEN,), T.F32, rng)
    _tensor(w, "output.weight", (VOCAB, HIDDEN), T.Q6_K, rng)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("gguf")
    rng = np.random.default_rng(7)
    out = {"llama": root / "llama.gguf", "moe": root / "moe.gguf"}
    write_llama(out["llama"], rng)
    write_moe(out["moe"], rng)
    return out


# --- agreement with gguf-py ---------------------------------------------------------


def _oracle_value(field):
    """A field of gguf.GGUFReader as a plain Python value."""
    vtype = field.types[0]
    if vtype == gguf.GGUFValueType.ARRAY:
        return None
    part = field.parts[field.data[0]]
    if vtype == gguf.GGUFValueType.STRING:
        return bytes(part).decode("utf-8")
    value = part.tolist()[0]
    return bool(value) if vtype == gguf.GGUFValueType.BOOL else value


@pytest.mark.parametrize("which", ["llama", "moe"])
def test_header_agrees_with_gguf_py(files, which):
    path = files[which]
    ours = read_path(path)
    oracle = gguf.GGUFReader(str(path))
    assert ours.version == 3
    oracle_fields = {k: f for k, f in oracle.fields.items() if not k.startswith("GGUF.")}
    assert set(ours.metadata) == set(oracle_fields)
    for key, field in oracle_fields.items():
        value = ours.metadata[key]
        if field.types[0] == gguf.GGUFValueType.ARRAY:
            assert isinstance(value, GGUFArray), key
            if field.types[1] == gguf.GGUFValueType.ARRAY:  # gguf-py flattens nested arrays
                assert [x for inner in value.values for x in inner.values] == field.contents(), key
                continue
            assert len(value) == len(field.data), key
            if value.values is not None:
                assert list(value.values) == pytest.approx(field.contents()), key
        elif isinstance(value, float):
            assert value == pytest.approx(_oracle_value(field)), key
        else:
            assert value == _oracle_value(field), key
    assert len(ours.tensors) == len(oracle.tensors)
    for mine, theirs in zip(ours.tensors, oracle.tensors, strict=True):
        assert mine.name == theirs.name
        assert list(mine.shape) == [int(x) for x in theirs.shape]
        assert mine.type_id == int(theirs.tensor_type)
        assert ours.data_offset + mine.offset == theirs.data_offset
        assert mine.nbytes == theirs.n_bytes
        assert mine.elements == theirs.n_elements


@pytest.mark.parametrize("which", ["llama", "moe"])
def test_bytes_by_type_are_the_files_tensor_data(files, which):
    path = files[which]
    header = read_path(path)
    oracle = gguf.GGUFReader(str(path))
    info = summary(header)
    expected = Counter()
    for t in oracle.tensors:
        expected[t.tensor_type.name] += t.n_bytes
    assert {k: v["bytes"] for k, v in info["by_type"].items()} == dict(expected)
    assert info["weight_bytes"] == sum(expected.values())
    # the tensors tile the data section: each ends where the next (aligned) one starts, the last at the end
    size = path.stat().st_size
    ordered = sorted(header.tensors, key=lambda t: t.offset)
    for a, b in zip(ordered, ordered[1:], strict=False):
        assert a.offset + a.nbytes <= b.offset < a.offset + a.nbytes + header.alignment
    assert size - header.alignment < header.min_file_size <= size  # gguf-py pads the last tensor too
    assert sum(v["bytes"] for v in info["by_group"].values()) == info["weight_bytes"]
    assert info["parameters"] == sum(int(t.n_elements) for t in oracle.tensors)
    assert {"Q4_K", "Q6_K", "Q8_0", "F32"} <= set(info["by_type"])


def test_version_2_has_the_same_little_endian_layout(files):
    data = bytearray(files["llama"].read_bytes())
    data[4:8] = struct.pack("<I", 2)
    v2, v3 = read_header(bytes(data)), read_path(files["llama"])
    assert v2.version == 2 and v2.tensors == v3.tensors and v2.metadata == v3.metadata


def test_every_block_size_matches_gguf_py():
    for type_id, (name, block, size) in GGML_TYPES.items():
        qtype = T(type_id)
        assert qtype.name == name
        assert gguf.GGML_QUANT_SIZES[qtype] == (block, size)


def test_llama_preset(files):
    preset = to_preset(read_path(files["llama"]))
    arch = preset["architecture"]
    assert (arch["layers"], arch["hidden"], arch["intermediate"], arch["heads"], arch["kv_heads"],
            arch["head_dim"], arch["vocab"], arch["max_context"]) == (LAYERS, HIDDEN, FFN, HEADS, KV_HEADS,
                                                                       HEAD_DIM, VOCAB, 4096)
    assert arch["tied_embeddings"] is False
    assert "moe" not in preset and "mla" not in preset
    spec = ModelSpec.from_preset("x", preset)
    assert spec.name == "Tiny Test Model"
    oracle = gguf.GGUFReader(str(files["llama"]))
    assert spec.params == sum(int(t.n_elements) for t in oracle.tensors)


def test_moe_preset(files):
    header = read_path(files["moe"])
    preset = to_preset(header)
    moe, mla, arch = preset["moe"], preset["mla"], preset["architecture"]
    assert moe == {"experts": EXPERTS, "active_experts": USED, "shared_experts": 1, "dense_layers": 1,
                   "expert_intermediate": EXPERT_FFN}
    assert mla == {"kv_lora_rank": KV_RANK, "rope_head_dim": ROPE, "qk_nope_head_dim": NOPE, "v_head_dim": V_DIM,
                   "q_lora_rank": Q_RANK}
    assert arch["head_dim"] == V_DIM and arch["decoupled_head_dim"] is True
    routed = sum(t.elements for t in header.tensors if "_exps." in t.name)
    assert routed == 2 * 3 * EXPERTS * EXPERT_FFN * HIDDEN
    total = header.parameters
    assert preset["parameters"]["total_b"] * 1e9 == pytest.approx(total)
    assert preset["parameters"]["active_b"] * 1e9 == pytest.approx(total - routed + routed * USED / EXPERTS)
    spec = ModelSpec.from_preset("moe", preset)
    assert spec.is_moe and spec.mla_rank == KV_RANK and spec.kv_elements_per_token_layer == KV_RANK + ROPE


def test_sliding_window_layers_follow_the_architecture(tmp_path):
    rng = np.random.default_rng(1)
    for arch, layers, local in (("gemma3", 12, 10), ("gpt-oss", 4, 2), ("mistral", 4, 4)):
        path = tmp_path / f"{arch}.gguf"
        w = gguf.GGUFWriter(str(path), arch)
        w.add_block_count(layers)
        w.add_embedding_length(64)
        w.add_feed_forward_length(128)
        w.add_head_count(2)
        w.add_uint32(f"{arch}.attention.sliding_window", 512)
        w.add_array("tokenizer.ggml.tokens", ["a", "b"])
        _tensor(w, "token_embd.weight", (2, 64), T.F32, rng)
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
        preset = to_preset(read_path(path))
        assert preset["sliding_window"] == {"window": 512, "layers": local}, arch
        assert preset["architecture"]["tied_embeddings"] is True


# --- prefixes, streams and not reading tensor data -----------------------------------------


def test_short_prefixes_say_how_many_bytes_they_need(files):
    data = files["llama"].read_bytes()
    full = read_header(data)
    cuts = sorted(set(range(0, full.header_bytes, 97)) | {0, 1, 3, 4, 7, 8, 23, 24, full.header_bytes - 1})
    for cut in cuts:
        with pytest.raises(NeedMoreBytes) as exc:
            read_header(data[:cut])
        assert cut < exc.value.needed <= full.header_bytes
        assert exc.value.key == "import.gguf.need_more"
    # the header alone, without padding or tensor data, is enough
    assert read_header(data[:full.header_bytes]).tensors == full.tensors


def test_the_browser_loop_reads_more_until_the_header_parses(files):
    data = files["moe"].read_bytes()
    have, rounds = 16, 0
    while True:
        rounds += 1
        try:
            header = read_header(data[:have])
            break
        except NeedMoreBytes as exc:
            assert exc.needed > have
            have = max(exc.needed, 2 * have)  # as the page does: at least what is needed, doubling
    assert rounds < 20 and header.tensors == read_path(files["moe"]).tensors


def test_a_stream_that_ends_inside_the_header_is_a_clean_error(files):
    data = files["llama"].read_bytes()
    header_bytes = read_header(data).header_bytes
    for cut in (0, 5, 24, header_bytes // 2, header_bytes - 1):
        with pytest.raises(GGUFError) as exc:
            read_header(io.BytesIO(data[:cut]))
        assert exc.value.key == "import.gguf.truncated"
        assert not isinstance(exc.value, NeedMoreBytes)


class CountingReader(io.RawIOBase):
    def __init__(self, data: bytes):
        self.inner = io.BytesIO(data)
        self.read_bytes = 0

    def readable(self):
        return True

    def read(self, n=-1):
        chunk = self.inner.read(n)
        self.read_bytes += len(chunk)
        return chunk


def test_tensor_data_is_never_read(tmp_path):
    from atlas.core.calculators.gguf_reader import _CHUNK

    path = tmp_path / "big.gguf"
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_block_count(1)
    w.add_embedding_length(1024)
    w.add_head_count(8)
    w.add_array("tokenizer.ggml.tokens", ["x"] * 4096)
    w.add_tensor("token_embd.weight", np.zeros((4096, 1024), dtype=np.float32))  # 16 MiB of data
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    data = path.read_bytes()
    stream = CountingReader(data)
    header = read_header(stream)
    assert header.weight_bytes == 4096 * 1024 * 4
    assert stream.read_bytes <= header.header_bytes + _CHUNK < len(data)


def test_a_50_gb_file_is_read_by_its_header_alone(tmp_path):
    """A sparse file whose header declares one 25-billion-element F16 tensor (50 GB of data)."""
    elements = 25 * 10**9
    header = (_head(n_tensors=1, n_kv=5)
              + _s("general.architecture") + struct.pack("<I", 8) + _s("llama")
              + _s("llama.block_count") + struct.pack("<II", 4, 1)
              + _s("llama.embedding_length") + struct.pack("<II", 4, 5000)
              + _s("llama.attention.head_count") + struct.pack("<II", 4, 40)
              + _s("llama.vocab_size") + struct.pack("<II", 4, 32000)
              + _tensor_info("token_embd.weight", dims=(5000, elements // 5000), ggml_type=1))
    data_offset = -(-len(header) // 32) * 32
    path = tmp_path / "huge.gguf"
    with open(path, "wb") as fh:
        fh.write(header)
        fh.truncate(data_offset + 2 * elements)  # sparse: no data is written
    tracemalloc.start()
    try:
        imported = model_import.from_gguf(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20
    assert imported.gguf["weight_bytes"] == 2 * elements
    assert imported.gguf["min_file_size"] == path.stat().st_size
    assert imported.preset["parameters"]["total_b"] == 25


def test_a_file_cut_inside_its_tensor_data_is_reported(files, tmp_path):
    data = files["llama"].read_bytes()
    cut = tmp_path / "partial.gguf"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(model_import.ImportError_) as exc:
        model_import.from_gguf(cut)
    assert exc.value.key == "import.gguf.data_truncated" and exc.value.params["needed"] > len(data) // 2
    answer = model_import.import_model({"gguf_prefix_b64": base64.b64encode(data).decode(), "file_size": len(data) - 99})
    assert answer["errors"][0]["key"] == "import.gguf.data_truncated"


def test_nested_arrays_keep_a_bounded_number_of_values():
    from atlas.core.calculators.gguf_reader import MAX_KEPT

    inner = struct.pack("<IQ", 0, 4000) + bytes(4000)  # 4,000 uint8
    data = _head(n_kv=1) + _s("k") + struct.pack("<IIQ", 9, 9, 4000) + inner * 4000  # 16 M values
    header = read_header(data)
    value = header.metadata["k"]
    assert value.count == 4000
    kept = sum(len(v.values) for v in value.values if v.values) if value.values else 0
    assert kept <= MAX_KEPT


def test_a_prefix_longer_than_the_file_is_a_truncated_file():
    data = _head(n_kv=1) + _s("k")
    answer = model_import.import_model({"gguf_prefix_b64": base64.b64encode(data).decode(), "file_size": len(data)})
    assert answer["ok"] is False and answer["errors"][0]["key"] == "import.gguf.truncated"
    assert "need_bytes" not in answer
    hostile = _head(n_kv=1) + _s("k") + struct.pack("<IIQ", 9, 10, 10**7)  # 80 MB of uint64: more than the page reads
    answer = model_import.import_model({"gguf_prefix_b64": base64.b64encode(hostile).decode()})
    assert answer["errors"][0]["key"] == "import.gguf.header_too_large"


# --- hostile and corrupt headers -------------------------------------------------------------


def _s(text: str) -> bytes:
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def _head(n_tensors=0, n_kv=0, version=3) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", version, n_tensors, n_kv)


def _tensor_info(name="t", dims=(32,), ggml_type=0, offset=0) -> bytes:
    return _s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", x) for x in dims) \
        + struct.pack("<IQ", ggml_type, offset)


HOSTILE = {
    "bad magic": (b"GGML" + bytes(20), "import.gguf.bad_magic"),
    "version 1": (_head(version=1), "import.gguf.bad_version"),
    "version 99": (_head(version=99), "import.gguf.bad_version"),
    "big-endian": (b"GGUF" + struct.pack(">IQQ", 3, 0, 0), "import.gguf.big_endian"),
    "2^63 tensors": (_head(n_tensors=2**63), "import.gguf.too_many_tensors"),
    "2^60 keys": (_head(n_kv=2**60), "import.gguf.too_many_keys"),
    "huge key": (_head(n_kv=1) + struct.pack("<Q", 2**62), "import.gguf.key_too_long"),
    "huge string": (_head(n_kv=1) + _s("k") + struct.pack("<IQ", 8, 2**40), "import.gguf.value_too_long"),
    "huge array": (_head(n_kv=1) + _s("k") + struct.pack("<IIQ", 9, 0, 2**40), "import.gguf.array_too_long"),
    "huge string array": (_head(n_kv=1) + _s("k") + struct.pack("<IIQ", 9, 8, 3) + struct.pack("<Q", 2**50),
                          "import.gguf.value_too_long"),
    "value type 99": (_head(n_kv=1) + _s("k") + struct.pack("<I", 99), "import.gguf.bad_value_type"),
    "array of type 77": (_head(n_kv=1) + _s("k") + struct.pack("<IIQ", 9, 77, 1), "import.gguf.bad_value_type"),
    "bool 7": (_head(n_kv=1) + _s("k") + struct.pack("<IB", 7, 7), "import.gguf.bad_bool"),
    "bad utf-8": (_head(n_kv=1) + struct.pack("<Q", 2) + b"\xff\xfe" + struct.pack("<IB", 0, 1),
                  "import.gguf.bad_text"),
    "nested too deep": (_head(n_kv=1) + _s("k") + struct.pack("<I", 9) + struct.pack("<IQ", 9, 1) * 6,
                        "import.gguf.too_deep"),
    "duplicate key": (_head(n_kv=2) + (_s("k") + struct.pack("<IB", 0, 1)) * 2, "import.gguf.duplicate_key"),
    "alignment 3": (_head(n_kv=1) + _s("general.alignment") + struct.pack("<II", 4, 3), "import.gguf.bad_alignment"),
    "ggml type 99": (_head(n_tensors=1) + _tensor_info(ggml_type=99), "import.gguf.unknown_tensor_type"),
    "5 dims": (_head(n_tensors=1) + _tensor_info(dims=(32, 1, 1, 1, 1)), "import.gguf.bad_dims"),
    "0 dims": (_head(n_tensors=1) + _tensor_info(dims=()), "import.gguf.bad_dims"),
    "zero width": (_head(n_tensors=1) + _tensor_info(dims=(0,)), "import.gguf.bad_shape"),
    "overflowing shape": (_head(n_tensors=1) + _tensor_info(dims=(2**40, 2**40)), "import.gguf.bad_shape"),
    "2^64-1 wide": (_head(n_tensors=1) + _tensor_info(dims=(2**64 - 1,)), "import.gguf.bad_shape"),
    "rows not in blocks": (_head(n_tensors=1) + _tensor_info(dims=(100,), ggml_type=12), "import.gguf.bad_block"),
    "misaligned offset": (_head(n_tensors=1) + _tensor_info(offset=3), "import.gguf.bad_offset"),
    "duplicate tensor": (_head(n_tensors=2) + _tensor_info() + _tensor_info(offset=128),
                         "import.gguf.duplicate_tensor"),
    "long tensor name": (_head(n_tensors=1) + struct.pack("<Q", 2**20), "import.gguf.name_too_long"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_headers_give_a_message_and_allocate_nothing_big(case):
    data, key = HOSTILE[case]
    tracemalloc.start()
    try:
        with pytest.raises(GGUFError) as exc:
            read_header(data)
        with pytest.raises(GGUFError):
            read_header(io.BytesIO(data))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert exc.value.key == key
    assert peak < 4 * 2**20
    for lang in l10n.LANGUAGES:
        text = render_text(exc.value.key, exc.value.params, lang)
        assert text and "{" not in text


def test_missing_architecture_keys_are_named(tmp_path):
    path = tmp_path / "bare.gguf"
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_block_count(2)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    with pytest.raises(GGUFError) as exc:
        to_preset(read_path(path))
    assert exc.value.key == "import.gguf.missing_keys"
    assert "llama.embedding_length" in exc.value.params["keys"]
    assert "tokenizer.ggml.tokens" in exc.value.params["keys"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_corruption_never_escapes_as_a_traceback(files, data):
    raw = bytearray(_llama_bytes(files))
    end = read_header(bytes(raw)).header_bytes + 64
    flips = data.draw(st.lists(st.tuples(st.integers(0, end - 1), st.integers(0, 255)), min_size=1, max_size=8))
    for pos, value in flips:
        raw[pos] = value
    cut = data.draw(st.one_of(st.none(), st.integers(0, end)))
    blob = bytes(raw if cut is None else raw[:cut])
    try:
        header = read_header(blob)
        summary(header)
        try:
            ModelSpec.from_preset("x", to_preset(header))
        except GGUFError:
            pass
    except GGUFError as exc:
        for lang in l10n.LANGUAGES:
            render_text(exc.key, exc.params, lang)
    answer = model_import.import_model({"gguf_prefix_b64": base64.b64encode(blob).decode(), "lang": "de"})
    json.dumps(answer, allow_nan=False)
    if not answer["ok"]:
        assert answer["errors"][0]["message"]


_CACHE: dict = {}


def _llama_bytes(files) -> bytes:
    if "llama" not in _CACHE:
        _CACHE["llama"] = files["llama"].read_bytes()
    return _CACHE["llama"]


# --- the estimate with a GGUF model: API entry point and command line ----------------------


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    from atlas.data.export import export_json

    path = tmp_path_factory.mktemp("export") / "atlas-data.json"
    path.write_text(export_json(shared_dataset()), encoding="utf-8")
    return path


def test_entry_point_asks_for_more_then_estimates_with_exact_bytes(files, export):
    from atlas.core.calculators.catalog import Catalog

    catalog = Catalog.from_json(export.read_text(encoding="utf-8"))
    data = files["llama"].read_bytes()
    short = model_import.import_model({"gguf_prefix_b64": base64.b64encode(data[:100]).decode(), "lang": "de",
                                       "file_size": len(data)})
    assert short["ok"] is False and short["need_bytes"] > 100
    assert short["errors"][0]["key"] == "import.gguf.need_more" and "Bytes" in short["errors"][0]["message"]
    have = 100
    while True:  # as the page does: read at least what is asked for, doubling
        have = max(short["need_bytes"], 2 * have)
        payload = {"gguf_prefix_b64": base64.b64encode(data[:have]).decode(), "file_size": len(data),
                   "command": "vram", "params": {"context": 2048}}
        answer = model_import.import_model(payload, catalog)
        if answer["ok"] or "need_bytes" not in answer:
            break
        short = answer
    assert answer["ok"], answer
    header = read_path(files["llama"])
    result = answer["result"]
    assert result["breakdown"]["weights_gib"] == pytest.approx(header.weight_bytes / d.GIB)
    assert result["gguf"]["by_type"]["Q4_K"]["bytes"] == sum(t.nbytes for t in header.tensors if t.type == "Q4_K")
    assert result["gguf"]["exact_weights"] is True
    assert result["weights"] == "q4_k_m"  # general.file_type names it
    keys = {n["key"] for n in result["notes"]}
    assert "note.gguf_exact" in keys and "note.gguf_average" not in keys
    from atlas.core.calculators.api import handle

    preset_result = handle({"command": "vram", "params": {"model": "llama-3.1-8b"}}, catalog)["result"]
    assert set(preset_result) | {"gguf"} == set(result)
    # a weight format of one's own is a what-if: the formula again, no exact bytes
    what_if = model_import.import_model({**payload, "params": {"weights": "q8_0"}}, catalog)["result"]
    assert what_if["gguf"]["exact_weights"] is False
    assert what_if["breakdown"]["weights_gib"] != pytest.approx(result["breakdown"]["weights_gib"])
    # the speed model reads the file's bytes too: its weight term grows with them, the formula's would not
    speed = model_import.import_model({**payload, "command": "speed", "params": {"device": "rtx-4090"}}, catalog)
    assert speed["ok"] and speed["result"]["gguf"]["exact_weights"] is True
    from atlas.core.calculators.models import ModelSpec
    from atlas.core.calculators.speed_model import Case, terms

    imported = model_import.from_header(header, "test.gguf")
    spec = ModelSpec.from_preset("imported", {**imported.preset, "file": {"weights": "q4_k_m",
                                                                          "weight_bytes": header.weight_bytes}})
    doubled = ModelSpec.from_preset("imported", {**imported.preset, "file": {"weights": "q4_k_m",
                                                                             "weight_bytes": 2 * header.weight_bytes}})
    device = catalog.devices["rtx-4090"]
    one, two = terms(spec, device, Case("decode", "q4_k_m")), terms(doubled, device, Case("decode", "q4_k_m"))
    assert two.x["mem"] > 1.9 * one.x["mem"]


def test_entry_point_is_registered():
    from atlas.core import pyweb
    from atlas.core.calcview import browser

    assert pyweb.resolve("calculators.import_model") is browser.import_model_entry
    answer = json.loads(pyweb.call("calculators.import_model", json.dumps({"gguf_prefix_b64": "!!"})))
    assert answer["ok"] is False and answer["errors"][0]["key"] == "import.gguf.bad_base64"


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "atlas", *args], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=120)


def test_cli_vram_and_speed_from_a_gguf_file(files, export):
    out = _cli("vram", "--gguf", str(files["moe"]), "--json", "--data-json", str(export))
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    header = read_path(files["moe"])
    assert result["breakdown"]["weights_gib"] == pytest.approx(header.weight_bytes / d.GIB)
    assert result["gguf"]["weight_bytes"] == header.weight_bytes
    assert result["model_name"] == "Tiny MoE"
    speed = _cli("speed", "--gguf", str(files["llama"]), "--device", "h100-sxm", "--json", "--data-json", str(export))
    assert speed.returncode == 0, speed.stderr
    assert json.loads(speed.stdout)["gguf"]["by_type"]
    table = _cli("vram", "--gguf", str(files["llama"]), "--lang", "de", "--data-json", str(export))
    assert table.returncode == 0 and "GGUF" in table.stdout


def test_cli_refuses_bad_files_with_a_message(tmp_path, export, files):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf file at all")
    out = _cli("vram", "--gguf", str(bad), "--data-json", str(export))
    assert out.returncode == 2 and "GGUF" in out.stderr and "Traceback" not in out.stderr
    short = tmp_path / "short.gguf"
    short.write_bytes(files["llama"].read_bytes()[:200])
    out = _cli("vram", "--gguf", str(short), "--lang", "de", "--data-json", str(export))
    assert out.returncode == 2 and "Datei endet" in out.stderr
    out = _cli("vram", "--gguf", str(files["llama"]), "--model", "llama-3.1-8b", "--data-json", str(export))
    assert out.returncode == 2 and "not both" in out.stderr

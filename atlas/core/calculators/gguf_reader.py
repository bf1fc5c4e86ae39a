"""Read the header of a GGUF model file: metadata, tensor shapes and types, exact weight bytes.

Standard library only (it runs in the browser on Pyodide). Only the header is
read, never the tensor data: a file-like object is read incrementally, a
``bytes`` prefix (what the browser gets from ``File.slice``) is parsed as far
as it goes, and when it is too short :class:`NeedMoreBytes` says how many
bytes from the start of the file the next attempt needs.

Layout (GGUF versions 2 and 3, little-endian; ggml-org/ggml ``docs/gguf.md``
and llama.cpp ``gguf-py/gguf/gguf_reader.py``)::

    magic "GGUF" | uint32 version | uint64 tensor_count | uint64 metadata_kv_count
    metadata_kv_count x (string key | uint32 value_type | value)
    tensor_count x (string name | uint32 n_dims | n_dims x uint64 ne | uint32 ggml_type | uint64 offset)
    padding to general.alignment (default 32) | tensor data

A string is a uint64 length and that many UTF-8 bytes; an array is a uint32
element type, a uint64 count and the elements. Version 1 (uint32 counts) and
big-endian files are refused with their own message.

A tensor of ``n`` elements of a ggml type with block size ``B`` and ``S``
bytes per block occupies ``n / B * S`` bytes (:data:`GGML_TYPES`).

Malformed, truncated or hostile input raises :class:`GGUFError`, whose
``key`` and ``params`` form a translatable message (``import.gguf.*`` in
``l10n/<lang>/model_import.json``). No length read from the file is trusted
before it is checked against a cap, so nothing is allocated according to an
absurd count.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field

from atlas.core.calculators.messages import KeyedError

MAGIC = b"GGUF"
VERSIONS = (2, 3)
DEFAULT_ALIGNMENT = 32

# Caps on what a header may declare. Real files stay far below them: the largest
# vocabularies have a few hundred thousand tokens, tensor names at most 64 bytes
# (GGML_MAX_NAME), chat templates some tens of KiB, tensors at most 4 dimensions.
MAX_TENSORS = 1 << 17
MAX_KV = 1 << 16
MAX_STRING = 1 << 24  # 16 MiB
MAX_ARRAY = 1 << 24
MAX_KEY = 1 << 16
MAX_NAME = 1 << 12
MAX_DIMS = 4  # GGML_MAX_DIMS
MAX_ELEMENTS = 1 << 56
MAX_NESTING = 4
# Arrays longer than this keep only their length (a vocabulary needs no more), and a
# header keeps at most MAX_KEPT array values in all (nested arrays included).
KEEP_ARRAY = 4096
MAX_KEPT = 1 << 16
_CHUNK = 1 << 20

# ggml tensor types: id -> (name, elements per block, bytes per block).
# Source: llama.cpp gguf-py/gguf/constants.py GGML_QUANT_SIZES and GGMLQuantizationType
# (gguf 0.19.0, the block structs of ggml/src/ggml-common.h); QK_K = 256.
_QK_K = 256
GGML_TYPES: dict[int, tuple[str, int, int]] = {
    0: ("F32", 1, 4),
    1: ("F16", 1, 2),
    2: ("Q4_0", 32, 2 + 16),
    3: ("Q4_1", 32, 2 + 2 + 16),
    6: ("Q5_0", 32, 2 + 4 + 16),
    7: ("Q5_1", 32, 2 + 2 + 4 + 16),
    8: ("Q8_0", 32, 2 + 32),
    9: ("Q8_1", 32, 4 + 4 + 32),
    10: ("Q2_K", 256, 2 + 2 + _QK_K // 16 + _QK_K // 4),
    11: ("Q3_K", 256, 2 + _QK_K // 4 + _QK_K // 8 + 12),
    12: ("Q4_K", 256, 2 + 2 + _QK_K // 2 + 12),
    13: ("Q5_K", 256, 2 + 2 + _QK_K // 2 + _QK_K // 8 + 12),
    14: ("Q6_K", 256, 2 + _QK_K // 2 + _QK_K // 4 + _QK_K // 16),
    15: ("Q8_K", 256, 4 + _QK_K + _QK_K // 8),
    16: ("IQ2_XXS", 256, 2 + _QK_K // 4),
    17: ("IQ2_XS", 256, 2 + _QK_K // 4 + _QK_K // 32),
    18: ("IQ3_XXS", 256, 2 + _QK_K // 4 + _QK_K // 8),
    19: ("IQ1_S", 256, 2 + _QK_K // 8 + _QK_K // 16),
    20: ("IQ4_NL", 32, 2 + 16),
    21: ("IQ3_S", 256, 2 + _QK_K // 4 + _QK_K // 8 + _QK_K // 32 + 4),
    22: ("IQ2_S", 256, 2 + _QK_K // 4 + _QK_K // 16),
    23: ("IQ4_XS", 256, 2 + 2 + _QK_K // 2 + _QK_K // 64),
    24: ("I8", 1, 1),
    25: ("I16", 1, 2),
    26: ("I32", 1, 4),
    27: ("I64", 1, 8),
    28: ("F64", 1, 8),
    29: ("IQ1_M", 256, _QK_K // 8 + _QK_K // 16 + _QK_K // 32),
    30: ("BF16", 1, 2),
    34: ("TQ1_0", 256, 2 + 4 * 13),
    35: ("TQ2_0", 256, 2 + 64),
    39: ("MXFP4", 32, 1 + 16),
    40: ("NVFP4", 64, 4 + 32),
    41: ("Q1_0", 128, 2 + 16),
}

# general.file_type (llama_ftype, gguf-py LlamaFileType) -> name.
FILE_TYPES: dict[int, str] = {
    0: "ALL_F32", 1: "MOSTLY_F16", 2: "MOSTLY_Q4_0", 3: "MOSTLY_Q4_1", 7: "MOSTLY_Q8_0", 8: "MOSTLY_Q5_0",
    9: "MOSTLY_Q5_1", 10: "MOSTLY_Q2_K", 11: "MOSTLY_Q3_K_S", 12: "MOSTLY_Q3_K_M", 13: "MOSTLY_Q3_K_L",
    14: "MOSTLY_Q4_K_S", 15: "MOSTLY_Q4_K_M", 16: "MOSTLY_Q5_K_S", 17: "MOSTLY_Q5_K_M", 18: "MOSTLY_Q6_K",
    19: "MOSTLY_IQ2_XXS", 20: "MOSTLY_IQ2_XS", 21: "MOSTLY_Q2_K_S", 22: "MOSTLY_IQ3_XS", 23: "MOSTLY_IQ3_XXS",
    24: "MOSTLY_IQ1_S", 25: "MOSTLY_IQ4_NL", 26: "MOSTLY_IQ3_S", 27: "MOSTLY_IQ3_M", 28: "MOSTLY_IQ2_S",
    29: "MOSTLY_IQ2_M", 30: "MOSTLY_IQ4_XS", 31: "MOSTLY_IQ1_M", 32: "MOSTLY_BF16", 36: "MOSTLY_TQ1_0",
    37: "MOSTLY_TQ2_0", 38: "MOSTLY_MXFP4_MOE", 39: "MOSTLY_NVFP4", 40: "MOSTLY_Q1_0",
}

# Metadata value types (GGUFValueType): id -> (name, struct format or None).
_UINT8, _INT8, _UINT16, _INT16, _UINT32, _INT32, _FLOAT32, _BOOL, _STRING, _ARRAY, _UINT64, _INT64, _FLOAT64 = range(13)
VALUE_TYPES: dict[int, tuple[str, str | None]] = {
    _UINT8: ("uint8", "<B"), _INT8: ("int8", "<b"), _UINT16: ("uint16", "<H"), _INT16: ("int16", "<h"),
    _UINT32: ("uint32", "<I"), _INT32: ("int32", "<i"), _FLOAT32: ("float32", "<f"), _BOOL: ("bool", "<B"),
    _STRING: ("string", None), _ARRAY: ("array", None), _UINT64: ("uint64", "<Q"), _INT64: ("int64", "<q"),
    _FLOAT64: ("float64", "<d"),
}


class GGUFError(KeyedError):
    """The file is not a GGUF header this reader accepts: ``key`` and ``params`` name the problem."""


class NeedMoreBytes(GGUFError):
    """The prefix ended inside the header; read at least ``needed`` bytes from the start and try again."""

    def __init__(self, needed: int, have: int):
        self.needed = needed
        self.have = have
        super().__init__("import.gguf.need_more", needed=needed, have=have)


@dataclass(frozen=True)
class GGUFArray:
    """A metadata array: element type, length and, for arrays up to ``KEEP_ARRAY`` long, the values."""

    type: str
    count: int
    values: tuple | None = None

    def __len__(self) -> int:
        return self.count


@dataclass(frozen=True)
class TensorInfo:
    name: str
    shape: tuple[int, ...]  # ne[0], ne[1], ... as stored (ne[0] is the contiguous one)
    type_id: int
    offset: int  # from the start of the tensor data

    @property
    def type(self) -> str:
        return GGML_TYPES[self.type_id][0]

    @property
    def elements(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        _, block, size = GGML_TYPES[self.type_id]
        return self.elements // block * size


@dataclass
class GGUFHeader:
    version: int
    metadata: dict
    tensors: list[TensorInfo]
    alignment: int
    header_bytes: int  # bytes up to the end of the tensor infos
    data_offset: int  # where the tensor data starts (aligned)
    metadata_types: dict = field(default_factory=dict)  # key -> value type name

    @property
    def weight_bytes(self) -> int:
        return sum(t.nbytes for t in self.tensors)

    @property
    def parameters(self) -> int:
        return sum(t.elements for t in self.tensors)

    @property
    def min_file_size(self) -> int:
        """Bytes the file must at least have to hold every tensor its header lists."""
        end = max((t.offset + t.nbytes for t in self.tensors), default=0)
        return self.data_offset + end


# --- reading --------------------------------------------------------------------


class _Bytes:
    """A bytes prefix of the file."""

    def __init__(self, data):
        self.data = memoryview(bytes(data))
        self.pos = 0

    def take(self, n: int) -> bytes:
        end = self.pos + n
        if end > len(self.data):
            raise NeedMoreBytes(end, len(self.data))
        out = self.data[self.pos:end].tobytes()
        self.pos = end
        return out

    def skip(self, n: int) -> None:
        end = self.pos + n
        if end > len(self.data):
            raise NeedMoreBytes(end, len(self.data))
        self.pos = end


class _Stream:
    """A binary file-like object, read in chunks; consumed bytes are dropped."""

    def __init__(self, fh):
        self.fh = fh
        self.buf = b""
        self.base = 0  # file offset of buf[0]
        self.pos = 0

    def _fill(self, end: int) -> None:
        parts = [self.buf[self.pos - self.base:]]
        have = self.base + len(self.buf)
        self.base = self.pos
        while have < end:
            chunk = self.fh.read(max(_CHUNK, end - have))
            if not chunk:
                self.buf = b"".join(parts)
                raise GGUFError("import.gguf.truncated", size=have, needed=end)
            parts.append(chunk)
            have += len(chunk)
        self.buf = b"".join(parts)

    def take(self, n: int) -> bytes:
        end = self.pos + n
        if end > self.base + len(self.buf):
            self._fill(end)
        start = self.pos - self.base
        self.pos = end
        return self.buf[start:start + n]

    def skip(self, n: int) -> None:
        end = self.pos + n
        while self.pos < end:
            step = min(end - self.pos, _CHUNK)
            self.take(step)


class _Parser:
    def __init__(self, src):
        self.src = src
        self.kept = 0  # array values kept so far

    def u32(self) -> int:
        return struct.unpack("<I", self.src.take(4))[0]

    def u64(self) -> int:
        return struct.unpack("<Q", self.src.take(8))[0]

    def string(self, cap: int, error_key: str, **params) -> str:
        n = self.u64()
        if n > cap:
            raise GGUFError(error_key, length=n, maximum=cap, **params)
        raw = self.src.take(n)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise GGUFError("import.gguf.bad_text") from None

    def skip_string(self, key: str) -> None:
        n = self.u64()
        if n > MAX_STRING:
            raise GGUFError("import.gguf.value_too_long", entry=key, length=n, maximum=MAX_STRING)
        self.src.skip(n)

    def value(self, vtype: int, key: str, depth: int = 0):
        if vtype not in VALUE_TYPES:
            raise GGUFError("import.gguf.bad_value_type", entry=key[:80], type=vtype)
        name, fmt = VALUE_TYPES[vtype]
        if fmt:
            (v,) = struct.unpack(fmt, self.src.take(struct.calcsize(fmt)))
            if vtype == _BOOL:
                if v > 1:
                    raise GGUFError("import.gguf.bad_bool", entry=key[:80], value=v)
                return bool(v)
            if vtype in (_FLOAT32, _FLOAT64) and not math.isfinite(v):
                return None
            return v
        if vtype == _STRING:
            return self.string(MAX_STRING, "import.gguf.value_too_long", entry=key[:80])
        # array
        if depth >= MAX_NESTING:
            raise GGUFError("import.gguf.too_deep", entry=key[:80])
        etype = self.u32()
        count = self.u64()
        if etype not in VALUE_TYPES:
            raise GGUFError("import.gguf.bad_value_type", entry=key[:80], type=etype)
        if count > MAX_ARRAY:
            raise GGUFError("import.gguf.array_too_long", entry=key[:80], length=count, maximum=MAX_ARRAY)
        ename, efmt = VALUE_TYPES[etype]
        keep = count <= KEEP_ARRAY and self.kept + count <= MAX_KEPT
        if keep:
            self.kept += count
        if efmt and not keep:
            self.src.skip(count * struct.calcsize(efmt))
            return GGUFArray(ename, count)
        if etype == _STRING and not keep:
            for _ in range(count):
                self.skip_string(key[:80])
            return GGUFArray(ename, count)
        if keep:
            return GGUFArray(ename, count, tuple(self.value(etype, key, depth + 1) for _ in range(count)))
        for _ in range(count):  # an array of arrays beyond what is kept: read past it
            self.value(etype, key, depth + 1)
        return GGUFArray(ename, count)


def _parse(src) -> GGUFHeader:
    p = _Parser(src)
    magic = src.take(4)
    if magic != MAGIC:
        raise GGUFError("import.gguf.bad_magic", found=magic.hex())
    version = p.u32()
    if version not in VERSIONS:
        if version & 0xFFFF == 0 and (version >> 24) in VERSIONS:
            raise GGUFError("import.gguf.big_endian")
        raise GGUFError("import.gguf.bad_version", version=version, supported=list(VERSIONS))
    n_tensors, n_kv = p.u64(), p.u64()
    if n_tensors > MAX_TENSORS:
        raise GGUFError("import.gguf.too_many_tensors", count=n_tensors, maximum=MAX_TENSORS)
    if n_kv > MAX_KV:
        raise GGUFError("import.gguf.too_many_keys", count=n_kv, maximum=MAX_KV)
    metadata: dict = {}
    types: dict = {}
    for _ in range(n_kv):
        key = p.string(MAX_KEY, "import.gguf.key_too_long")
        vtype = p.u32()
        value = p.value(vtype, key)
        if key in metadata:
            raise GGUFError("import.gguf.duplicate_key", name=key[:80])
        metadata[key] = value
        types[key] = VALUE_TYPES[vtype][0]
    alignment = metadata.get("general.alignment", DEFAULT_ALIGNMENT)
    if (not isinstance(alignment, int) or isinstance(alignment, bool) or alignment <= 0
            or alignment & (alignment - 1) or alignment > 1 << 20):
        raise GGUFError("import.gguf.bad_alignment", alignment=str(alignment)[:20])
    tensors: list[TensorInfo] = []
    names: set = set()
    for _ in range(n_tensors):
        name = p.string(MAX_NAME, "import.gguf.name_too_long")
        n_dims = p.u32()
        if n_dims == 0 or n_dims > MAX_DIMS:
            raise GGUFError("import.gguf.bad_dims", name=name[:80], dims=n_dims, maximum=MAX_DIMS)
        shape = tuple(p.u64() for _ in range(n_dims))
        type_id = p.u32()
        offset = p.u64()
        if type_id not in GGML_TYPES:
            raise GGUFError("import.gguf.unknown_tensor_type", name=name[:80], type=type_id)
        elements = 1
        for ne in shape:
            if ne == 0 or ne > MAX_ELEMENTS:
                raise GGUFError("import.gguf.bad_shape", name=name[:80], shape=" x ".join(map(str, shape)))
            elements *= ne
            if elements > MAX_ELEMENTS:
                raise GGUFError("import.gguf.bad_shape", name=name[:80], shape=" x ".join(map(str, shape)))
        tname, block, _ = GGML_TYPES[type_id]
        if shape[0] % block:
            raise GGUFError("import.gguf.bad_block", name=name[:80], type=tname, block=block, width=shape[0])
        if offset % alignment or offset > MAX_ELEMENTS:
            raise GGUFError("import.gguf.bad_offset", name=name[:80], offset=offset, alignment=alignment)
        if name in names:
            raise GGUFError("import.gguf.duplicate_tensor", name=name[:80])
        names.add(name)
        tensors.append(TensorInfo(name, shape, type_id, offset))
    header_bytes = src.pos
    data_offset = -(-header_bytes // alignment) * alignment
    return GGUFHeader(version, metadata, tensors, alignment, header_bytes, data_offset, types)


def read_header(source) -> GGUFHeader:
    """Parse the GGUF header of ``source``: ``bytes``/``bytearray``/``memoryview`` (a prefix of the
    file; :class:`NeedMoreBytes` when it is too short) or a binary file-like object (read
    incrementally from its current position; ``import.gguf.truncated`` when the file ends early)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _parse(_Bytes(source))
    if not hasattr(source, "read"):
        raise TypeError("read_header needs bytes or a binary file object")
    return _parse(_Stream(source))


def read_path(path) -> GGUFHeader:
    with open(path, "rb") as fh:
        return read_header(fh)


# --- what the header says about the model ----------------------------------------


def _group(name: str) -> str:
    """The tensor group of a llama.cpp tensor name: ``blk.3.ffn_up_exps.weight`` -> ``ffn_up_exps``."""
    parts = name.split(".")
    if parts[0] == "blk" and len(parts) >= 3:
        return parts[2]
    if len(parts) >= 2 and parts[-1] in ("weight", "bias", "scale"):
        return ".".join(parts[:-1])
    return parts[0]


def summary(header: GGUFHeader) -> dict:
    """JSON-able totals: bytes and parameters by tensor type and by tensor group."""
    by_type: dict = {}
    by_group: dict = {}
    for t in header.tensors:
        for table, key in ((by_type, t.type), (by_group, _group(t.name))):
            entry = table.setdefault(key, {"tensors": 0, "parameters": 0, "bytes": 0})
            entry["tensors"] += 1
            entry["parameters"] += t.elements
            entry["bytes"] += t.nbytes
    params = header.parameters
    total = header.weight_bytes
    ftype = header.metadata.get("general.file_type")
    return {
        "version": header.version,
        "architecture": header.metadata.get("general.architecture"),
        "name": header.metadata.get("general.name"),
        "file_type": FILE_TYPES.get(ftype) if isinstance(ftype, int) else None,
        "tensor_count": len(header.tensors),
        "metadata_count": len(header.metadata),
        "alignment": header.alignment,
        "header_bytes": header.header_bytes,
        "data_offset": header.data_offset,
        "min_file_size": header.min_file_size,
        "parameters": params,
        "weight_bytes": total,
        "bits_per_weight": total * 8 / params if params else 0.0,
        "by_type": dict(sorted(by_type.items(), key=lambda kv: -kv[1]["bytes"])),
        "by_group": dict(sorted(by_group.items(), key=lambda kv: -kv[1]["bytes"])),
    }


def _scalar(value, reduce=max):
    """An integer metadata value; per-layer arrays reduce to one number (their maximum by default)."""
    if isinstance(value, GGUFArray):
        nums = [v for v in (value.values or ()) if isinstance(v, int) and not isinstance(v, bool)]
        return reduce(nums) if nums else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value)


# Layer patterns llama.cpp applies without a per-layer key, as the models' config.json
# files state them: Gemma 2 and gpt-oss alternate local and global layers (layer_types),
# Gemma 3 has one global layer in six (sliding_window_pattern 6).
_SWA_PERIOD = {"gemma2": 2, "gemma3": 6, "gpt-oss": 2}


def to_preset(header: GGUFHeader, model_id: str = "gguf") -> dict:
    """The model the header describes, as a preset dict ``ModelSpec.from_preset`` accepts.

    Parameter counts are the tensors' element counts (exact); for a mixture of
    experts the active count replaces the routed expert tensors (``*_exps``)
    by their used share ``expert_used_count / expert_count``.
    """
    md = header.metadata
    arch = md.get("general.architecture")
    if not isinstance(arch, str) or not arch:
        raise GGUFError("import.gguf.missing_keys", keys=["general.architecture"])
    a = lambda k: md.get(f"{arch}.{k}")  # noqa: E731
    layers = _scalar(a("block_count"))
    hidden = _scalar(a("embedding_length"))
    heads = _scalar(a("attention.head_count"))
    missing = [f"{arch}.{k}" for k, v in (("block_count", layers), ("embedding_length", hidden),
                                          ("attention.head_count", heads)) if not v]
    tokens = md.get("tokenizer.ggml.tokens")
    vocab = _scalar(a("vocab_size")) or (len(tokens) if isinstance(tokens, GGUFArray) else None)
    if not vocab:
        embd = next((t for t in header.tensors if t.name == "token_embd.weight"), None)
        vocab = embd.shape[-1] if embd is not None and len(embd.shape) == 2 else None
    if not vocab:
        missing.append("tokenizer.ggml.tokens")
    if missing:
        raise GGUFError("import.gguf.missing_keys", keys=missing)
    kv_heads = _scalar(a("attention.head_count_kv")) or heads
    head_dim = _scalar(a("attention.key_length")) or hidden // heads
    experts = _scalar(a("expert_count")) or 0
    used = _scalar(a("expert_used_count")) or 0
    ffn = _scalar(a("feed_forward_length"))
    expert_ffn = _scalar(a("expert_feed_forward_length"))
    intermediate = ffn or expert_ffn or 4 * hidden
    names = {t.name for t in header.tensors}
    total = header.parameters
    routed = sum(t.elements for t in header.tensors if "_exps." in t.name)
    preset: dict = {
        "id": model_id,
        "name": str(md.get("general.name") or model_id)[:120],
        "parameters": {"total_b": total / 1e9},
        "architecture": {
            "layers": layers,
            "hidden": hidden,
            "intermediate": intermediate,
            "heads": heads,
            "kv_heads": kv_heads,
            "head_dim": head_dim,
            "vocab": vocab,
            "max_context": _scalar(a("context_length")),
            "tied_embeddings": "output.weight" not in names,
        },
    }
    rank = _scalar(a("attention.kv_lora_rank"))
    if rank:
        rope = _scalar(a("rope.dimension_count")) or 0
        v_dim = _scalar(a("attention.value_length_mla")) or _scalar(a("attention.value_length")) or head_dim
        k_dim = _scalar(a("attention.key_length_mla")) or head_dim
        preset["architecture"]["head_dim"] = v_dim
        preset["architecture"]["decoupled_head_dim"] = True
        preset["mla"] = {"kv_lora_rank": rank, "rope_head_dim": rope, "qk_nope_head_dim": k_dim - rope,
                         "v_head_dim": v_dim}
        q_rank = _scalar(a("attention.q_lora_rank"))
        if q_rank:
            preset["mla"]["q_lora_rank"] = q_rank
    if experts and used:
        active = total - routed + routed * used / experts
        preset["parameters"]["active_b"] = active / 1e9
        moe = {"experts": experts, "active_experts": used,
               "shared_experts": _scalar(a("expert_shared_count")) or 0,
               "dense_layers": _scalar(a("leading_dense_block_count")) or 0}
        if expert_ffn:
            moe["expert_intermediate"] = expert_ffn
        else:
            up = next((t for t in header.tensors if t.name.endswith("ffn_up_exps.weight") and len(t.shape) == 3), None)
            moe["expert_intermediate"] = up.shape[1] if up is not None else intermediate
        shared_ffn = _scalar(a("expert_shared_feed_forward_length"))
        if shared_ffn:
            moe["shared_intermediate"] = shared_ffn
        preset["moe"] = moe
    window = _scalar(a("attention.sliding_window"))
    if window:
        pattern = a("attention.sliding_window_pattern")
        if isinstance(pattern, GGUFArray) and pattern.values and pattern.type == "bool":
            local = sum(1 for v in pattern.values if v)
        elif isinstance(pattern, int) and not isinstance(pattern, bool) and pattern > 0:
            local = layers - layers // pattern
        elif arch in _SWA_PERIOD:
            local = layers - layers // _SWA_PERIOD[arch]
        else:
            local = layers
        if 0 < local <= layers:
            preset["sliding_window"] = {"window": window, "layers": local}
    return preset


# llama.cpp file types -> the calculator's weight format of the same name.
_FORMAT_OF_FILE_TYPE = {
    "ALL_F32": "fp32", "MOSTLY_F16": "fp16", "MOSTLY_BF16": "bf16", "MOSTLY_Q8_0": "q8_0", "MOSTLY_Q6_K": "q6_k",
    "MOSTLY_Q5_K_M": "q5_k_m", "MOSTLY_Q4_K_M": "q4_k_m", "MOSTLY_Q4_0": "q4_0", "MOSTLY_Q3_K_M": "q3_k_m",
    "MOSTLY_Q2_K": "q2_k",
}


def weight_format(header: GGUFHeader, formats: dict) -> str:
    """The calculator weight format closest to the file: the one named by ``general.file_type`` when
    the calculator knows it, else the GGUF format whose bits per weight are nearest the file's."""
    info = summary(header)
    name = _FORMAT_OF_FILE_TYPE.get(info["file_type"] or "")
    if name in formats:
        return name
    bpw = info["bits_per_weight"]
    gguf = [f for f, w in formats.items() if w.kind == "gguf"] or list(formats)
    return min(gguf, key=lambda f: abs(formats[f].bits - bpw))

"""The parameters of the calculators: names, types, ranges, defaults and parsing.

One table (``PARAMETERS``) serves every front end. A parameter's name is the
form field name, the URL query key, the key of ``request["params"]`` in
``atlas.core.calculators.api.handle`` and, with ``_`` written as ``-``, the command-line
option (``kv_cache`` -> ``--kv-cache``). Values may come as strings (form,
URL, command line) or as numbers and booleans (Python, JSON); ``parse``
turns them into typed values or raises one ``ValidationError`` listing every
bad field with a translation key (``error.*`` in ``l10n/<lang>/calculators.json``).

Parameters (units in brackets):

vram and speed (and fit)
  model            model preset id (``llama-3.1-8b``) or ``custom``
  weights          fp32 bf16 fp16 fp8 int8 int4 nf4, GGUF q8_0 q6_k q5_k_m q5_k_s q5_0 q4_k_m q4_k_s q4_0
                   q4_1 q3_k_l q3_k_m q3_k_s q2_k iq4_xs iq4_nl iq3_m iq3_xxs iq2_xs iq2_xxs iq1_s, gptq awq
                   mxfp4 nvfp4 fp8_block exl2 exl3 mlx_2bit mlx_3bit mlx_4bit mlx_5bit mlx_6bit
                   mlx_8bit
  kv_cache         fp16 bf16 fp8 q8_0 q4_0 q4_1 q5_0 q5_1 iq4_nl
  context          tokens per sequence
  batch            concurrent sequences (inference) or micro-batch per replica (training)
  group_size       int4 quantisation group [weights]
  double_quant     nf4 double quantisation [true/false]
  num_devices      devices in total (inference: the model is split over them unless tp says otherwise)
  gradient_checkpointing  full activation recomputation [true/false]
  moe_offload      mixture of experts: experts (all routed experts in system RAM) or fit (the experts of the
                   fewest MoE layers that make the rest fit); absent: everything on the device(s)
  custom model: params_b [10^9 parameters], layers, hidden, intermediate, heads,
                kv_heads, head_dim, vocab
vram only
  mode             inference full lora qlora
  optimizer        adamw adamw_8bit
  zero             ZeRO stage 0-3 (3 = FSDP full sharding)
  tp               tensor-parallel degree (divides num_devices)
  lora_rank        LoRA rank
  overhead_gib     runtime overhead per device [GiB]
  bpw              EXL2/EXL3 target bits per weight (also fit)
vram: your hardware (a verdict with margin or shortfall, and what would fit instead)
  device           device id (also speed and fit)
  memory_gib       memory per device [GiB]: another configuration of ``device``, or a device not in the data set
  ram_gib          system memory for layers offloaded from the device(s) [GiB]
fit (reverse questions on one device)
  device           device id; with ``model``: longest context, concurrent sequences and memory per weight
                   format; without: which presets fit. ``weights`` absent: the format with the most bits that fits
speed only
  device, baseline device ids as in ``data/``
  workload         decode prefill training kernel
  precision        compute precision (default: the weight format's)
  tokens           training tokens
  training_mode    full lora qlora (training: what the run updates; QLoRA keeps the frozen weights in NF4)
  flops, bytes     a kernel's work [FLOPs, bytes]
  compute_efficiency, memory_efficiency  fractions of peak (0-1]
  price_per_hour   [US$ per device-hour]; baseline_price_per_hour, baseline_purchase_usd: the baseline's own
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import math
import re
from dataclasses import dataclass, field, make_dataclass

from atlas.core.calculators import defaults as d
from atlas.core.calculators import devices as dev
from atlas.core.calculators.catalog import Catalog
from atlas.core.calculators.engines import ENGINES
from atlas.core.calculators.messages import FieldError, ValidationError, error

PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4", "int8", "int4")
MODES = ("inference", "full", "lora", "qlora")
WORKLOADS = ("decode", "prefill", "training", "kernel")
CUSTOM = "custom"
CUSTOM_REQUIRED = ("params_b", "layers", "hidden", "heads", "kv_heads", "vocab")
CUSTOM_FIELDS = CUSTOM_REQUIRED + ("intermediate", "head_dim")
# Errors that only say "fill this in": a page may show them as a hint until the reader touches the field.
FILL_IN_KEYS = ("error.required", "error.required_custom", "error.kernel_empty")

BOTH = ("vram", "speed")
VRAM = ("vram",)
SPEED = ("speed",)
FIT = ("fit",)
ALL = BOTH + FIT
VRAM_FIT = VRAM + FIT


@dataclass(frozen=True)
class Param:
    """One input parameter.

    ``kind`` is ``choice`` (fixed values), ``device``/``model`` (ids from the
    catalog), ``int``, ``float`` or ``bool``. ``minimum``/``maximum`` bound
    numbers (``exclusive_minimum``: the minimum itself is not allowed).
    ``default`` None means "absent" (required ones say so in ``parse``). ``fallback`` is what an estimator
    takes where ``default`` is None and the command chose nothing else (``weights``: bf16 unless qlora needs nf4
    or fit finds the format that fits; ``num_devices``: 1 unless ``tp`` says more); ``default_of`` gives the one
    the option classes start from. ``group``: the form group (``atlas.core.calcview.form.LAYOUT``) a parameter joins, at its
    end, where the layout does not list it; None: the command's last group. ``section``: the part of ``Options``
    that holds it (one of ``SECTIONS``), so an estimator reads ``opts.<section>.<name>``.
    """

    name: str
    kind: str
    commands: tuple
    help: str
    default: object = None
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    choices: tuple = ()
    fallback: object = None
    group: str | None = None
    section: str = field(default="", kw_only=True)

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def value_default(self) -> object:
        """The value an estimator uses when the reader leaves this parameter out and the command chose nothing."""
        return self.fallback if self.default is None else self.default


PARAMETERS: tuple[Param, ...] = (
    Param("model", "model", ALL, "model preset id, or 'custom' with --params-b, --layers, ...", section="model"),
    Param("weights", "choice", ALL, "weight format (default bf16; nf4 for qlora)", choices=tuple(d.WEIGHT_FORMATS),
          fallback="bf16", section="quantisation"),
    Param("kv_cache", "choice", ALL, "KV-cache format", "fp16", choices=tuple(d.KV_FORMATS), section="quantisation"),
    Param("context", "int", ALL, "context length in tokens", 4096, 1, 10_000_000, section="run"),
    Param("batch", "int", ALL, "concurrent sequences (training: micro-batch per replica)", 1, 1, 100_000,
          section="run"),
    Param("group_size", "int", ALL, "int4 (GPTQ/AWQ) group size in weights", 128, 8, 65_536, section="quantisation"),
    Param("double_quant", "bool", ALL, "nf4 double quantisation (true/false)", True, section="quantisation"),
    Param("num_devices", "int", ALL, "devices in total (default: tp); inference splits the model over them", None, 1,
          100_000, fallback=1, section="placement"),
    Param("gradient_checkpointing", "bool", BOTH, "full activation recomputation (true/false)", False,
          section="training"),
    Param("params_b", "float", ALL, "custom model: parameters in billions", None, 0, 100_000, True, section="model"),
    Param("layers", "int", ALL, "custom model: transformer layers", None, 1, 10_000, section="model"),
    Param("hidden", "int", ALL, "custom model: hidden size", None, 1, 1_000_000, section="model"),
    Param("intermediate", "int", ALL, "custom model: feed-forward width (default 4 x hidden)", None, 1, 10_000_000,
          section="model"),
    Param("heads", "int", ALL, "custom model: attention heads", None, 1, 100_000, section="model"),
    Param("kv_heads", "int", ALL, "custom model: key/value heads", None, 1, 100_000, section="model"),
    Param("head_dim", "int", ALL, "custom model: head dimension (default hidden / heads)", None, 1, 100_000,
          section="model"),
    Param("vocab", "int", ALL, "custom model: vocabulary size", None, 1, 10_000_000, section="model"),
    Param("bpw", "float", ALL, "EXL2/EXL3: target bits per weight (default 4.0)", None, 1, 16, section="quantisation"),
    Param("mode", "choice", VRAM, "inference, full training, LoRA or QLoRA", "inference", choices=MODES,
          section="training"),
    Param("optimizer", "choice", VRAM, "optimiser for training modes", "adamw", choices=tuple(d.OPTIMIZERS),
          section="training"),
    Param("zero", "int", VRAM, "ZeRO stage 0-3 over the data-parallel devices (3 = FSDP)", 0, 0, 3, section="training"),
    Param("tp", "int", VRAM, "tensor-parallel degree", 1, 1, 4096, section="placement"),
    Param("lora_rank", "int", VRAM, "LoRA rank", d.LORA_RANK.value, 1, 65_536, section="training"),
    Param("overhead_gib", "float", VRAM_FIT, "runtime overhead per device in GiB", d.RUNTIME_OVERHEAD_GIB.value, 0, 1024,
          section="placement"),
    Param("device", "device", VRAM + SPEED + FIT, "device id (vram: your device, for a verdict)", section="placement"),
    Param("memory_gib", "float", VRAM, "vram: memory per device in GiB (another configuration of --device, or a "
          "device not in the data set)", None, 0, 1_000_000, True, section="placement"),
    Param("gpu_memory_percent", "float", ALL, "unified memory (Apple, Strix Halo, DGX Spark): percent of it the GPU "
          "may use on --device, as set on your system (default: the platform's default)", None, 10, 100,
          section="placement"),
    Param("ram_gib", "float", VRAM, "vram: system memory in GiB that layers can be offloaded to (llama.cpp)", None,
          0, 1_000_000, section="placement"),
    Param("baseline", "device", SPEED, "baseline device id to compare with", section="placement"),
    Param("workload", "choice", SPEED, "decode, prefill, training or kernel", "decode", choices=WORKLOADS,
          section="run"),
    Param("precision", "choice", SPEED, "compute precision (default: the weight format's)", choices=PRECISIONS,
          section="run"),
    Param("tokens", "float", SPEED, "training tokens", 1e9, 0, 1e16, True, section="run"),
    Param("training_mode", "choice", SPEED, "training: full (every weight), LoRA (adapters on frozen 16-bit weights) "
          "or QLoRA (adapters on frozen NF4 weights)", "full", choices=MODES[1:],  # the memory calculator's less inference
          section="training"),
    Param("flops", "float", SPEED, "kernel: floating-point operations", None, 0, 1e30, section="run"),
    Param("bytes", "float", SPEED, "kernel: bytes moved to and from memory", None, 0, 1e30, section="run"),
    Param("compute_efficiency", "float", SPEED, "fraction of peak FLOP/s reached (0-1]", None, 0, 1, True,
          section="run"),
    Param("memory_efficiency", "float", SPEED, "fraction of peak bandwidth reached (0-1]", None, 0, 1, True,
          section="run"),
    Param("price_per_hour", "float", SPEED, "US$ per device-hour", None, 0, 1_000_000, section="cost"),
    Param("purchase_usd", "float", SPEED, "purchase price per device in US$, amortised for the cost per million "
          "tokens (default: the device's cloud price, else its launch price)", None, 0, 1e9, True, section="cost"),
    Param("baseline_price_per_hour", "float", SPEED, "the baseline's US$ per device-hour (a device's price never "
          "applies to the baseline)", None, 0, 1_000_000, section="cost"),
    Param("baseline_purchase_usd", "float", SPEED, "the baseline's purchase price per device in US$", None, 0, 1e9,
          True, section="cost"),
    Param("amortisation_years", "float", SPEED, "years of round-the-clock use a purchase is spread over", 3.0, 0,
          100, True, section="cost"),
    Param("electricity_usd_per_kwh", "float", SPEED, "electricity price in US$ per kWh, added to a purchase at the "
          "device's TDP", None, 0, 100, section="cost"),
    Param("engine", "choice", SPEED, "inference engine (default: the weight format's own — llama.cpp for GGUF types, "
          "MLX for MLX formats on a Mac — else llama.cpp on desktops, Macs and edge boxes, vLLM in data centres)",
          choices=ENGINES, section="serving"),
    Param("split", "choice", SPEED, "how several devices share the model: layer (stages one after another, "
          "llama.cpp's default) or tensor (tensor parallel)", choices=("layer", "tensor"), section="placement"),
    Param("gpu_layers", "int", SPEED, "layers kept on the device(s); the rest are read from system memory", None, 0,
          10_000, section="placement"),
    Param("moe_offload", "choice", BOTH, "mixture of experts: routed experts in system RAM, the rest on the GPU "
          "(experts: all of them, llama.cpp -ot exps=CPU; fit: the fewest MoE layers that make the rest fit, "
          "llama.cpp --n-cpu-moe N)", choices=("experts", "fit"), section="placement"),
    Param("target_tokens_per_s", "float", SPEED, "serving planner (decode): the speed each user must keep, in "
          "tokens/s; the answer gives how many concurrent users the devices sustain at it", None, 0, 1_000_000, True,
          section="serving"),
    Param("speculative", "choice", SPEED, "decode with a drafter: none, draft (a smaller model of the same family, "
          "--draft-model) or mtp (the model's multi-token-prediction modules)", "none", choices=("none", "draft", "mtp"),
          section="serving"),
    Param("draft_model", "model", SPEED, "speculative decoding: the draft model's preset id (same tokenizer)",
          section="serving"),
    Param("draft_tokens", "int", SPEED, "speculative decoding: tokens drafted per run of the model (default 5 for a "
          "draft model, one per MTP module)", None, 1, 32, section="serving"),
    Param("acceptance_percent", "float", SPEED, "speculative decoding: share of drafted tokens the model accepts, "
          "in percent (default: a draft model's rate for task_type from Spec-Bench; MTP: 85 from the DeepSeek-V3 "
          "report)", None, 1, 99, section="serving"),
    Param("task_type", "choice", SPEED, "speculative decoding with a draft model: the kind of text, which sets the "
          "default acceptance rate (Spec-Bench): chat, translation, summarisation, qa, maths, rag",
          d.SPEC_TASK_DEFAULT, choices=d.SPEC_TASK_TYPES, section="serving"),
    Param("host_bandwidth_gb_s", "float", SPEED, "system memory bandwidth in GB/s for offloaded layers "
          f"(default {d.DEFAULT_HOST_BANDWIDTH.value} GB/s, dual-channel DDR5-5600)", None, 0, 100_000, True,
          section="placement"),
)
BY_NAME = {p.name: p for p in PARAMETERS}


def default_of(name: str) -> object:
    """The default of parameter ``name`` as the options take it: the table is the one place a default is written."""
    return BY_NAME[name].value_default


# --- the options an estimator reads: small typed objects, one per section, generated from the table --------------

SECTIONS = ("model", "quantisation", "placement", "run", "training", "serving", "cost")
SECTION_HELP = {
    "model": "which model: a preset id, or a custom model's dimensions",
    "quantisation": "how weights and KV cache are stored: formats, group size, bits per weight",
    "placement": "where it runs: devices, how many, how the model is split, what goes to system memory",
    "run": "what is run: workload, context, batch, compute precision, a kernel's work",
    "training": "how a model is trained: mode, optimiser, ZeRO stage, LoRA rank, recomputation",
    "serving": "how it is served: engine, speculative decoding, the serving planner's target",
    "cost": "what it costs: hourly and purchase prices, amortisation, electricity",
}
_PYTHON_TYPES = {"choice": str, "model": str, "device": str, "int": int, "float": float, "bool": bool}


def section_params(section: str) -> tuple[Param, ...]:
    """The parameters of ``section``, in table order."""
    return tuple(p for p in PARAMETERS if p.section == section)


@functools.cache
def _section_class(section: str, params: tuple[Param, ...]) -> type:
    fields = []
    for p in params:
        kind = _PYTHON_TYPES[p.kind]
        fields.append((p.name, kind if p.value_default is not None else kind | None, field(default=p.value_default)))
    cls = make_dataclass(section.capitalize() + "Options", fields, frozen=True)
    cls.__module__ = __name__
    cls.__doc__ = SECTION_HELP[section].capitalize() + ". Fields (the table's help):\n" + "\n".join(
        f"  {p.name}: {p.help}" for p in params)
    return cls


def section_class(section: str) -> type:
    """The frozen dataclass of ``section``: one typed field per parameter of the section, its default the table's.
    Made from the table as it is now (a parameter added to the table is a field at once)."""
    if section not in SECTIONS:
        raise ValueError(f"no options section {section!r}; sections: {', '.join(SECTIONS)}")
    return _section_class(section, section_params(section))


ModelOptions = section_class("model")
QuantisationOptions = section_class("quantisation")
PlacementOptions = section_class("placement")
RunOptions = section_class("run")
TrainingOptions = section_class("training")
ServingOptions = section_class("serving")
CostOptions = section_class("cost")


def _empty(section: str):
    return lambda: section_class(section)()


@dataclass(frozen=True)
class Options:
    """Everything an estimator is asked, grouped as small typed objects: ``opts.quantisation.weights``,
    ``opts.placement.num_devices``, ``opts.run.context``, ``opts.cost.price_per_hour`` … Each section is made from
    the parameter table (``section_class``), so a parameter is declared once, in ``PARAMETERS``; its entry's
    ``section`` says where it is read. Build with ``Options.of(name=value, ...)`` (flat parameter names), change
    with ``opts.replace(name=value, ...)``."""

    model: ModelOptions = field(default_factory=_empty("model"))
    quantisation: QuantisationOptions = field(default_factory=_empty("quantisation"))
    placement: PlacementOptions = field(default_factory=_empty("placement"))
    run: RunOptions = field(default_factory=_empty("run"))
    training: TrainingOptions = field(default_factory=_empty("training"))
    serving: ServingOptions = field(default_factory=_empty("serving"))
    cost: CostOptions = field(default_factory=_empty("cost"))

    @classmethod
    def of(cls, **values) -> Options:
        """Options from flat parameter names (``weights="q4_k_m", context=8192``); the others keep the table's
        defaults. A name that is no parameter raises ``TypeError``."""
        return cls().replace(**values)

    def replace(self, **changes) -> Options:
        """A copy with the parameters named in ``changes`` (flat names) set, each in its section."""
        by_section: dict[str, dict] = {}
        for name, value in changes.items():
            param = BY_NAME.get(name)
            if param is None:
                raise TypeError(f"no calculator parameter {name!r}")
            by_section.setdefault(param.section, {})[name] = value
        return dataclasses.replace(self, **{section: dataclasses.replace(getattr(self, section), **values)
                                            for section, values in by_section.items()})

    def flat(self) -> dict:
        """Every parameter's value by its flat name."""
        return {name: value for section in SECTIONS for name, value in vars(getattr(self, section)).items()}

    # --- what several sections decide together ---

    @property
    def trains(self) -> bool:
        """A training mode (full, LoRA, QLoRA), not inference."""
        return self.training.mode != "inference"

    @property
    def data_parallel(self) -> int:
        """Replicas of the model: devices over the tensor-parallel degree."""
        return max(1, self.placement.num_devices // self.placement.tp)

    @property
    def roofline_only(self) -> bool:
        """A reader who gives an efficiency asks for the plain roofline with it, not the fitted model."""
        return self.run.compute_efficiency is not None or self.run.memory_efficiency is not None

    @property
    def compute_precision(self) -> str:
        """The precision the arithmetic runs in: the one asked for, else the weight format's."""
        return self.run.precision or d.WEIGHT_FORMATS[self.quantisation.weights].compute

    def efficiency(self, kind: str) -> float:
        """The fraction of peak (``kind``: compute or memory) the roofline uses: the reader's, else the workload's."""
        given = self.run.compute_efficiency if kind == "compute" else self.run.memory_efficiency
        return given if given is not None else d.EFFICIENCIES[self.run.workload][kind].value


_TRUE = {"true", "1", "yes", "on", "ja", "wahr"}
_FALSE = {"false", "0", "no", "off", "nein", "falsch"}
_GROUPED_INT = re.compile(r"^[+-]?\d{1,3}([,.\u00a0\u202f' _]\d{3})+$")
# "1,000" and "2.500": one separator before exactly three digits is a thousands group in one language and a
# decimal sign in the other, so a decimal field refuses it rather than guess.
_AMBIGUOUS = re.compile(r"^[+-]?[1-9]\d{0,2}[,.]\d{3}$")
# Grouped digits with a decimal part: "1,234.5" (English) or "1.234,5" (German); the last sign is the decimal one.
_GROUPED_DECIMAL = re.compile(r"^[+-]?\d{1,3}(?:(?P<g>[,.\u00a0\u202f' _])\d{3})(?:(?P=g)\d{3})*(?P<d>[,.])\d+$")


class AmbiguousNumber(ValueError):
    """A decimal number whose one separator could be a thousands group or a decimal sign."""


def params_for(command: str) -> list[Param]:
    """The parameters ``command`` reads, in table order."""
    return [p for p in PARAMETERS if command in p.commands]


def suggestions(value: str, choices) -> list[str]:
    """At most 3 of ``choices`` for an unknown ``value``: those that begin with it (a size or variant left off:
    "rtx-4060-ti" for "rtx-4060-ti-16gb"), then those with a part that does ("4090" for "rtx-4090"), then the
    closest by spelling; where none is close, those containing it; the first few choices when nothing matches."""
    choices = list(choices)
    begun = [c for c in choices if value and c.startswith(value)]
    begun += [c for c in choices if value and c not in begun and f"-{value}" in c]
    close = begun + [c for c in difflib.get_close_matches(value, choices, n=3, cutoff=0.5) if c not in begun]
    if not close:
        close = [c for c in choices if value and (value in c or c in value)]
    return close[:3] or choices[:8]


def parse_number(text: str, integer: bool) -> float:
    """A number as a reader types it, in either language: "4096", "2,5" and "2.5",
    and for whole numbers grouped digits ("1,024", "1.024", "1 024"). ``ValueError`` if it is none."""
    text = text.strip()
    if integer and _GROUPED_INT.match(text):
        text = re.sub(r"[,.\u00a0\u202f' _]", "", text)
    elif not integer and _AMBIGUOUS.match(text):
        raise AmbiguousNumber(text)
    elif _GROUPED_INT.match(text) and len(set(re.findall(r"[,.\u00a0\u202f' _]", text))) == 1 and (
            text.count(",") > 1 or text.count(".") > 1 or not re.search(r"[,.]", text)):
        text = re.sub(r"[,.\u00a0\u202f' _]", "", text)  # "1,000,000", "1.000.000", "1 000": grouping only
    else:
        grouped = _GROUPED_DECIMAL.match(text)
        if grouped and grouped["g"] != grouped["d"]:
            whole, decimals = text[:grouped.start("d")], text[grouped.end("d"):]
            text = re.sub(r"[,.\u00a0\u202f' _]", "", whole) + "." + decimals
    if "," in text and "." not in text:
        text = text.replace(",", ".")
    return float(text)


def _device_choice(name: str, value: str, raw: str, catalog: Catalog):
    """A device with a memory size, ``apple-m3-max@64`` (GiB), normalised (``@64.0`` -> ``@64``); the plain id
    where the size is the device's default configuration."""
    device_id, _, size = value.partition(dev.CHOICE_SEPARATOR)
    device_id = device_id.strip()
    if device_id not in catalog.devices:
        return error(name, "error.unknown_value", field=name, value=raw.strip()[:60],
                     suggestions=suggestions(device_id, catalog.device_ids()))
    try:
        gib = parse_number(size, False)
    except ValueError:
        gib = math.nan
    if not math.isfinite(gib) or gib <= 0 or gib > 1_000_000:
        sizes = [v for v, _ in dev.choices(device_id, catalog.devices[device_id])]
        return error(name, "error.unknown_value", field=name, value=raw.strip()[:60],
                     suggestions=sizes + [f"{device_id}{dev.CHOICE_SEPARATOR}64"][:max(0, 2 - len(sizes))])
    return dev.choice_value(device_id, catalog.devices[device_id], gib)


def parse_value(param: Param, raw, catalog: Catalog):
    """The typed value of one raw value, or a ``FieldError``. Absent values (None, "") give None."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    name = param.name
    if param.kind in ("choice", "model", "device"):
        if not isinstance(raw, str):
            return error(name, "error.not_text", field=name)
        value = raw.strip().lower()
        if param.kind == "device" and dev.CHOICE_SEPARATOR in value:
            return _device_choice(name, value, raw, catalog)
        if param.kind == "model":
            allowed = catalog.model_ids() + [CUSTOM]
        elif param.kind == "device":
            allowed = catalog.device_ids()
        else:
            allowed = list(param.choices)
        if value not in allowed:
            return error(name, "error.unknown_value", field=name, value=raw.strip()[:60],
                         suggestions=suggestions(value, allowed))
        return value
    if param.kind == "bool":
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, (int, float)) and raw in (0, 1):
            return bool(raw)
        text = str(raw).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        return error(name, "error.not_boolean", field=name, value=str(raw)[:60])
    # numbers
    integer = param.kind == "int"
    if isinstance(raw, bool):
        return error(name, "error.not_a_number", field=name, value=str(raw))
    if isinstance(raw, (int, float)):
        value = float(raw) if isinstance(raw, float) else raw
    elif isinstance(raw, str):
        try:
            value = parse_number(raw, integer)
        except AmbiguousNumber:
            return error(name, "error.ambiguous_number", field=name, value=raw.strip()[:60])
        except ValueError:
            return error(name, "error.not_a_number", field=name, value=raw.strip()[:60])
    else:
        return error(name, "error.not_a_number", field=name, value=type(raw).__name__)
    if isinstance(value, float) and not math.isfinite(value):
        return error(name, "error.not_finite", field=name)
    if integer:
        if isinstance(value, float):
            if not value.is_integer():
                typed = raw.strip()[:60] if isinstance(raw, str) else value  # as typed: "4096.5", not "4,096"
                return error(name, "error.not_an_integer", field=name, value=typed)
            value = int(value)
    else:
        value = float(value)
    if param.minimum is not None:
        too_small = value <= param.minimum if param.exclusive_minimum else value < param.minimum
        if too_small:
            if param.minimum == 0 and param.exclusive_minimum:
                return error(name, "error.not_positive", field=name, value=value)
            return error(name, "error.too_small", field=name, value=value, minimum=param.minimum)
    if param.maximum is not None and value > param.maximum:
        return error(name, "error.too_large", field=name, value=value, maximum=param.maximum)
    return value


def parse(command: str, raw: dict, catalog: Catalog) -> dict:
    """Typed, defaulted and cross-checked parameters of ``command``; raise ``ValidationError`` on any problem.

    Parameters of the other command are accepted and ignored (one URL can
    carry both forms); unknown names are errors.
    """
    if command not in ALL:
        raise ValidationError([error("command", "error.unknown_value", field="command", value=str(command)[:60],
                                     suggestions=list(ALL))])
    if not isinstance(raw, dict):
        raise ValidationError([error(None, "error.bad_request")])
    errors: list[FieldError] = []
    for key in raw:
        if key not in BY_NAME:
            errors.append(error(str(key)[:60], "error.unknown_param", name=str(key)[:60],
                                suggestions=suggestions(str(key), BY_NAME)))
    values: dict = {}
    for param in params_for(command):
        value = parse_value(param, raw.get(param.name), catalog)
        if isinstance(value, FieldError):
            errors.append(value)
            value = None
        values[param.name] = param.default if value is None else value
    bad = {e.field_name for e in errors}
    given = {k for k, v in raw.items() if k in BY_NAME and not (v is None or (isinstance(v, str) and not v.strip()))}
    errors += _cross_checks(command, values, bad, given)
    if errors:
        raise ValidationError(errors)
    return values


def _cross_checks(command: str, v: dict, bad: set, given: set) -> list[FieldError]:
    errors: list[FieldError] = []
    needs_model = command == "vram" or (command == "speed" and v.get("workload") != "kernel")
    if needs_model and v["model"] is None and "model" not in bad:
        errors.append(error("model", "error.required", field="model"))
    if v["model"] == CUSTOM:
        for name in CUSTOM_REQUIRED:
            if v[name] is None and name not in bad:
                errors.append(error(name, "error.required_custom", field=name))
        if v["heads"] and v["kv_heads"] and v["heads"] % v["kv_heads"]:
            errors.append(error("kv_heads", "error.kv_heads_divide", kv_heads=v["kv_heads"], heads=v["heads"]))
    if command == "vram":
        mode = v["mode"]
        if v["weights"] is None:
            v["weights"] = "nf4" if mode == "qlora" else BY_NAME["weights"].fallback
        fmt = d.WEIGHT_FORMATS.get(v["weights"])
        if fmt and mode == "full" and not fmt.trainable:
            errors.append(error("weights", "error.weights_not_trainable", weights=v["weights"],
                                allowed=[f for f, w in d.WEIGHT_FORMATS.items() if w.trainable]))
        if fmt and mode == "qlora" and v["weights"] != "nf4":
            errors.append(error("weights", "error.qlora_needs_nf4", weights=v["weights"]))
        if fmt and mode == "lora" and fmt.kind == "gguf":
            errors.append(error("weights", "error.weights_not_trainable", weights=v["weights"],
                                allowed=[f for f, w in d.WEIGHT_FORMATS.items() if w.kind != "gguf"]))
        if v["num_devices"] is None:
            v["num_devices"] = v["tp"]
        elif mode == "inference" and "tp" not in given:
            v["tp"] = v["num_devices"]  # inference on N devices splits the model over them
        elif v["num_devices"] % v["tp"] and "tp" not in bad:
            errors.append(error("num_devices", "error.not_multiple", num_devices=v["num_devices"], tp=v["tp"]))
    elif command == "fit":
        if v["num_devices"] is None:
            v["num_devices"] = BY_NAME["num_devices"].fallback
        if v["device"] is None and "device" not in bad:
            errors.append(error("device", "error.required", field="device"))
    else:
        for name in ("weights", "num_devices"):
            if v[name] is None:
                v[name] = BY_NAME[name].fallback
        if v["device"] is None and "device" not in bad:
            errors.append(error("device", "error.required", field="device"))
        if v["workload"] == "kernel" and not (v["flops"] or v["bytes"]) and not {"flops", "bytes"} & bad:
            errors.append(error("flops", "error.kernel_empty"))
    return errors


def describe(command: str, catalog: Catalog) -> list[dict]:
    """The parameters of ``command`` as JSON-able dicts, for building a form: name, kind, default, bounds,
    allowed values (ids for models and devices) and the translation key of the label."""
    out = []
    for param in params_for(command):
        if param.kind == "model":
            choices = catalog.model_ids() + [CUSTOM]
        elif param.kind == "device":
            choices = catalog.device_ids()
        else:
            choices = list(param.choices)
        out.append({
            "name": param.name,
            "kind": param.kind,
            "default": param.default,
            "minimum": param.minimum,
            "maximum": param.maximum,
            "exclusive_minimum": param.exclusive_minimum,
            "choices": choices,
            "label": f"param.{param.name}",
        })
    return out

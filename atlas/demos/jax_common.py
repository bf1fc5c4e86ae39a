"""Shared by the JAX demos: which device JAX runs on and what it is called.

JAX runs on its default backend (TPU, then GPU, then CPU, whichever jaxlib
plugin is installed). A TPU reports its type as ``device_kind`` ("TPU v5
lite" is a v5e), a GPU its CUDA/ROCm name; on the CPU the model name comes
from the operating system.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from atlas.demos import devices, fp8, harness


def device():
    return jax.devices()[0]


def name(dev) -> str:
    return devices.cpu_name() if dev.platform == "cpu" else dev.device_kind


def fp8_dtype(dev):
    """The FP8 E4M3 type to feed ``dev``'s matrix units (``atlas.demos.fp8``); exit 3 on a GPU without FP8.

    GPUs report ``compute_capability`` ("9.0" on NVIDIA, the gfx name on AMD); where a
    device does not (CPU, TPU), XLA decides how FP8 operands are multiplied.
    """
    arch = fp8.parse_arch(getattr(dev, "compute_capability", "")) if dev.platform == "gpu" else None
    if arch is None:
        return jnp.float8_e4m3fn
    found = fp8.encoding(*arch)
    if found is None:
        harness.unavailable(f"{name(dev)}: {fp8.NO_FP8}")
    return {"e4m3fn": jnp.float8_e4m3fn, "e4m3fnuz": jnp.float8_e4m3fnuz}[found]

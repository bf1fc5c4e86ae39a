"""Shared by the JAX demos: which device JAX runs on and what it is called.

JAX runs on its default backend (TPU, then GPU, then CPU, whichever jaxlib
plugin is installed). A TPU reports its type as ``device_kind`` ("TPU v5
lite" is a v5e), a GPU its CUDA/ROCm name; on the CPU the model name comes
from the operating system.
"""

from __future__ import annotations

import jax

from kernels import devices


def device():
    return jax.devices()[0]


def name(dev) -> str:
    return devices.cpu_name() if dev.platform == "cpu" else dev.device_kind

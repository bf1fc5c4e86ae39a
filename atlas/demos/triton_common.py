"""Shared by the Triton demos: where the kernels run and what to call the device.

Triton compiles for NVIDIA and AMD GPUs (PyTorch tensors on "cuda"). With
TRITON_INTERPRET=1 set before the demo starts, Triton runs the same kernels
in its interpreter on CPU tensors: that checks correctness anywhere, but the
timings are the interpreter's and say nothing about hardware.
"""

from __future__ import annotations

import os

import torch

from atlas.demos import devices, harness

INTERPRET = os.environ.get("TRITON_INTERPRET") == "1"
INTERPRETER_NOTE = "TRITON_INTERPRET=1: kernels ran in Triton's interpreter on the CPU; the timing is not a hardware figure"


def device() -> torch.device:
    if INTERPRET:
        return torch.device("cpu")
    if not torch.cuda.is_available():
        harness.unavailable("Triton needs an NVIDIA or AMD GPU; set TRITON_INTERPRET=1 to check the kernels on the CPU")
    return torch.device("cuda")


def name(dev: torch.device) -> str:
    return torch.cuda.get_device_name(dev) if dev.type == "cuda" else devices.cpu_name()


def platform(dev: torch.device) -> str:
    return "interpreter" if INTERPRET else dev.type


def capability(dev: torch.device) -> tuple[int, int] | None:
    """NVIDIA compute capability (major, minor); None on AMD and in the interpreter."""
    if dev.type != "cuda" or torch.version.hip:
        return None
    return torch.cuda.get_device_capability(dev)


def sync(dev: torch.device):
    return torch.cuda.synchronize if dev.type == "cuda" else None


def notes() -> list[str]:
    return [INTERPRETER_NOTE] if INTERPRET else []

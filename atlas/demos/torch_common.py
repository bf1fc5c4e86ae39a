"""Shared by the PyTorch demos: pick the device, name it, wait for it.

``--on auto`` takes CUDA (NVIDIA, or AMD through ROCm) if present, then
Apple's MPS, then the CPU.
"""

from __future__ import annotations

import torch

from atlas.demos import devices, fp8, harness

CHOICES = ("auto", "cuda", "mps", "cpu")


def add_option(parser) -> None:
    parser.add_argument("--on", choices=CHOICES, default="auto", help="where to run (default: auto)")


def pick(choice: str) -> torch.device:
    """The torch device for ``--on``; raise SystemExit with a message if it is not there."""
    if choice == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    if choice == "cuda" and not torch.cuda.is_available():
        harness.unavailable("--on cuda, but PyTorch sees no CUDA device")
    if choice == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        harness.unavailable("--on mps, but PyTorch sees no Apple GPU")
    return torch.device(choice)


def name(device: torch.device) -> str:
    """What the runtime calls the device: the GPU's name, or the CPU's / Apple chip's model."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return devices.cpu_name()


def sync(device: torch.device):
    """A function that waits until the device has finished its queued work (None on the CPU)."""
    if device.type == "cuda":
        return torch.cuda.synchronize
    if device.type == "mps":
        return torch.mps.synchronize
    return None



def fp8_dtype_for(platform: str, arch) -> torch.dtype | None:
    """The torch dtype of ``atlas.demos.fp8.encoding(platform, arch)``; None where the GPU has no FP8."""
    found = fp8.encoding(platform, arch)
    return {"e4m3fn": torch.float8_e4m3fn, "e4m3fnuz": torch.float8_e4m3fnuz}.get(found)


def fp8_dtype(device: torch.device) -> torch.dtype:
    """``fp8_dtype_for`` the device the demo runs on; exit 3 with a message where it has no FP8."""
    if device.type == "mps":
        harness.unavailable("PyTorch's MPS backend has no FP8 type, and Apple GPUs have no FP8 matrix unit")
    if device.type != "cuda":
        return fp8_dtype_for("cpu", None)
    if torch.version.hip:
        found = fp8_dtype_for("hip", torch.cuda.get_device_properties(device).gcnArchName)
    else:
        found = fp8_dtype_for("cuda", torch.cuda.get_device_capability(device))
    if found is None:
        harness.unavailable(f"{name(device)}: {fp8.NO_FP8}")
    return found

"""Which FP8 E4M3 encoding a GPU's matrix units take — one answer for the PyTorch, Triton and JAX demos.

E4M3 comes in two encodings. NVIDIA (compute capability 8.9 and newer) and AMD
CDNA 4 (gfx950) use the OCP format, ``"e4m3fn"`` (no infinities, one NaN bit
pattern per sign). AMD CDNA 3 (gfx940-gfx942: MI300A/X, MI325X) uses the FNUZ
variant, ``"e4m3fnuz"`` (exponent bias 8, no negative zero, a single NaN).
Older GPUs and AMD's RDNA 3 have no FP8 matrix unit. Sources: NVIDIA PTX ISA
(``mma`` with ``.e4m3`` needs sm_89), AMD ROCm "Data types and precision support".
"""

from __future__ import annotations

NO_FP8 = "this GPU has no FP8 matrix unit (NVIDIA: compute capability 8.9 or newer; AMD: CDNA 3 or newer)"


def encoding(platform: str, arch) -> str | None:
    """``"e4m3fn"``, ``"e4m3fnuz"`` or None (no FP8 matrix unit).

    ``platform`` is "cuda" (NVIDIA), "hip" (AMD through ROCm) or "cpu" (emulated:
    checks correctness, not a hardware rate); ``arch`` is the compute capability
    as (major, minor) on NVIDIA, the gfx name on AMD ("gfx942:sramecc+:xnack-"
    with ROCm's feature flags is fine), ignored on the CPU.
    """
    if platform == "cpu":
        return "e4m3fn"
    if platform == "hip":
        gfx = str(arch).split(":")[0]
        if gfx in ("gfx940", "gfx941", "gfx942"):
            return "e4m3fnuz"
        return "e4m3fn" if gfx.startswith("gfx95") else None
    return "e4m3fn" if tuple(arch) >= (8, 9) else None


def parse_arch(text: str):
    """("cuda", (9, 0)) from "9.0", ("hip", "gfx942") from "gfx942"; None for anything else."""
    text = str(text or "").strip()
    if text.startswith("gfx"):
        return "hip", text
    major, _, minor = text.partition(".")
    if major.isdigit() and minor.isdigit():
        return "cuda", (int(major), int(minor))
    return None

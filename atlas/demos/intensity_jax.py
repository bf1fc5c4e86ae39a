"""Arithmetic-intensity sweep with JAX (TPU, GPU or CPU): trace the roofline.

Each float32 element is read once, put through FMAS steps of y = y * a + b
and written once: 2 * FMAS operations per 8 bytes (see
atlas/demos/intensity_common.py). Under jax.jit, XLA fuses the whole chain into
one element-wise kernel, so memory traffic stays 8 bytes per element while
the arithmetic grows with FMAS — if XLA keeps the chain in one kernel. Each
point therefore also records how many kernels XLA compiled the chain into
(``kernels``, from the optimised HLO): on the first H200 run the times at 64
and 256 FMAs were about 3 and 7 times that of one FMA, as if the chain had
been split into several kernels that each read and write the whole array.

    python -m atlas.demos.intensity_jax --size 268435456 --fmas 1,4,16,64,256
"""

import re
import sys
from functools import partial

import jax
import numpy as np

from atlas.demos import harness
from atlas.demos import intensity_common as common
from atlas.demos import jax_common as jc


@partial(jax.jit, static_argnames="fmas")
def chain(x, fmas):
    y = x
    for _ in range(fmas):  # unrolled while tracing: one fused kernel of FMAS steps
        y = y * common.A + common.B
    return y


# Instructions of an optimised HLO entry computation that launch no kernel of their own.
NOT_KERNELS = frozenset({"parameter", "constant", "tuple", "get-tuple-element", "bitcast"})
INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?[\w.-]+\s*=\s*\S+\s+([\w-]+)\(", re.M)


def kernels_in(hlo_text: str) -> int:
    """How many kernels the optimised HLO of a jitted function launches: the operations of its
    ENTRY computation (fusions, custom calls, copies), leaving out parameters, constants and tuples."""
    entry = hlo_text[hlo_text.index("\nENTRY") :]
    return sum(1 for opcode in INSTRUCTION.findall(entry) if opcode not in NOT_KERNELS)


def main(argv=None) -> int:
    p = harness.parser("intensity", "jax", "Arithmetic-intensity sweep with JAX.")
    p.add_argument("--size", type=harness.positive_int, default=2**28, help="elements (float32)")
    p.add_argument("--fmas", type=common.fma_list, default=common.DEFAULT_FMAS, help="comma-separated FMAs per element")
    args = p.parse_args(argv)
    dev = jc.device()

    x_host = np.random.default_rng(0).uniform(-1, 1, args.size).astype(np.float32)
    x = jax.device_put(x_host, dev)
    points, worst = [], 0.0
    for fmas in args.fmas:
        def run(k=fmas):
            return chain(x, k).block_until_ready()

        times = harness.time_runs(run, args.repeat, args.warmup)
        points.append({**common.point(fmas, args.size, harness.median(times)), "kernels": kernels_in(chain.lower(x, fmas=fmas).compile().as_text())})
        worst = max(worst, harness.relative_error(np.asarray(run()), common.reference(x_host, fmas)))

    best = max(points, key=lambda pt: pt["achieved_tflops"])
    return harness.finish(
        args,
        demo="intensity",
        backend="jax",
        device_name=jc.name(dev),
        platform_name=dev.platform,
        params={"precision": "fp32", "size": args.size, "fmas": args.fmas},
        achieved=best["achieved_tflops"],
        unit="tflops",
        check_result=harness.check(worst, common.tolerance(max(args.fmas))),
        software=harness.versions("jax", "jaxlib", "numpy"),
        command_line=harness.command(argv, __file__),
        details={"points": points, "max_kernels_per_run": max(pt["kernels"] for pt in points)},
    )


if __name__ == "__main__":
    sys.exit(main())

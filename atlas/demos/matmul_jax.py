"""Matrix multiplication with JAX (TPU, GPU or CPU) at a chosen precision.

C = A @ B of size N x N x N takes 2 * N**3 operations. XLA picks the
kernel: on a TPU the MXU (systolic array) does BF16 natively; on NVIDIA
GPUs BF16/FP16 go to the tensor cores. For fp32 the demo asks for
precision=HIGHEST, which keeps true FP32 arithmetic (compared with the
vector-unit peak); tf32 asks for the tensor cores' TF32 mode on GPUs.
FP8 operands (E4M3, in the encoding the GPU takes) are multiplied with FP32
accumulation where the backend supports it; a GPU without FP8 gets a message.

    python -m atlas.demos.matmul_jax --precision bf16 --size 8192
"""

import sys
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from atlas.core.calculators.roofline import matmul_flops
from atlas.demos import harness
from atlas.demos import jax_common as jc

DTYPES = {"fp32": jnp.float32, "tf32": jnp.float32, "bf16": jnp.bfloat16, "fp16": jnp.float16, "fp8": None}  # fp8: per device
PRECISION = {"fp32": jax.lax.Precision.HIGHEST, "tf32": jax.lax.Precision.DEFAULT}
CHECK_ROWS = 64


@partial(jax.jit, static_argnames=("precision", "out_dtype"))
def matmul(a, b, precision, out_dtype):
    return jnp.matmul(a, b, precision=precision, preferred_element_type=out_dtype)


def main(argv=None) -> int:
    p = harness.parser("matmul", "jax", "Matrix multiplication with JAX.")
    p.add_argument("--precision", choices=tuple(DTYPES), default="bf16")
    p.add_argument("--size", type=harness.positive_int, default=8192, help="M = N = K")
    args = p.parse_args(argv)
    dev = jc.device()

    n = args.size
    dtype = jc.fp8_dtype(dev) if args.precision == "fp8" else DTYPES[args.precision]
    rng = np.random.default_rng(0)
    a_host = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b_host = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    a = jax.device_put(jnp.asarray(a_host, dtype=dtype), dev)
    b = jax.device_put(jnp.asarray(b_host, dtype=dtype), dev)
    out_dtype = jnp.bfloat16 if args.precision == "fp8" else dtype
    precision = PRECISION.get(args.precision, jax.lax.Precision.DEFAULT)

    def run():
        return matmul(a, b, precision, out_dtype).block_until_ready()

    times = harness.time_runs(run, args.repeat, args.warmup)
    seconds = harness.median(times)

    rows = rng.choice(n, size=min(n, CHECK_ROWS), replace=False)
    a64 = np.asarray(a.astype(jnp.float32), dtype=np.float64)  # the rounded inputs, upcast
    b64 = np.asarray(b.astype(jnp.float32), dtype=np.float64)
    out = np.asarray(run().astype(jnp.float32))
    error = harness.relative_error(out[rows], a64[rows] @ b64)

    return harness.finish(
        args,
        demo="matmul",
        backend="jax",
        device_name=jc.name(dev),
        platform_name=dev.platform,
        params={"precision": args.precision, "size": n},
        achieved=matmul_flops(n, n, n) / seconds / 1e12,
        unit="tflops",
        check_result=harness.check(error, harness.TOLERANCE[args.precision]),
        software=harness.versions("jax", "jaxlib", "numpy"),
        command_line=harness.command(argv, __file__),
        details={"flops_per_run": matmul_flops(n, n, n), "median_s": seconds, "best_s": min(times)},
    )


if __name__ == "__main__":
    sys.exit(main())

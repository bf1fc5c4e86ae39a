"""Memory bandwidth with PyTorch (CUDA, Apple MPS or CPU): STREAM copy and triad.

copy:  c = a            2 arrays touched, 2 x 4 bytes per element
triad: a = b + s * c    3 arrays touched, 3 x 4 bytes per element

torch.add(b, c, alpha=s) computes the triad in one kernel, so the bytes
counted are the bytes moved. Use arrays far larger than the GPU's L2 cache
(tens of MB on current GPUs), or the demo measures the cache.

    python -m atlas.demos.bandwidth_torch --kernel triad --size 268435456
"""

import sys

import torch

from atlas.demos import harness
from atlas.demos import torch_common as tc

ARRAYS_TOUCHED = {"copy": 2, "triad": 3}


def main(argv=None) -> int:
    p = harness.parser("bandwidth", "torch", "STREAM copy/triad with PyTorch.")
    p.add_argument("--kernel", choices=tuple(ARRAYS_TOUCHED), default="triad")
    p.add_argument("--size", type=harness.positive_int, default=2**28, help="elements per array (float32)")
    tc.add_option(p)
    args = p.parse_args(argv)
    dev = tc.pick(args.on)

    n, scalar = args.size, 3.0
    gen = torch.Generator(device="cpu").manual_seed(0)
    a, b, c = (torch.rand(n, generator=gen).to(dev) for _ in range(3))

    def copy():
        c.copy_(a)

    def triad():
        torch.add(b, c, alpha=scalar, out=a)

    kernel = copy if args.kernel == "copy" else triad
    times = harness.time_runs(kernel, args.repeat, args.warmup, sync=tc.sync(dev))
    seconds = harness.median(times)
    moved = ARRAYS_TOUCHED[args.kernel] * n * a.element_size()

    if args.kernel == "copy":
        c.fill_(float("nan"))
        copy()
        error = harness.relative_error(c.cpu().numpy(), a.cpu().numpy())
    else:
        expected = b.cpu().double().numpy() + scalar * c.cpu().double().numpy()
        a.fill_(float("nan"))
        triad()
        error = harness.relative_error(a.cpu().numpy(), expected)

    return harness.finish(
        args,
        demo="bandwidth",
        backend="torch",
        device_name=tc.name(dev),
        platform_name=dev.type,
        params={"kernel": args.kernel, "size": n, "dtype": "fp32"},
        achieved=moved / seconds / 1e9,
        unit="gb_s",
        check_result=harness.check(error, 1e-6),
        software=harness.versions("torch", "numpy"),
        command_line=harness.command(argv, __file__),
        details={"bytes_per_run": moved, "median_s": seconds, "best_s": min(times)},
    )


if __name__ == "__main__":
    sys.exit(main())

"""A weight-stationary systolic array multiplying matrices, cycle by cycle.

The array is a grid of ``size`` x ``size`` processing elements (PEs), the
structure of a TPU's matrix unit (MXU). To compute Y = X W with X of M x K
and W of K x N:

1. **Load weights.** Each PE (k, n) holds one weight W[k][n] for the whole
   tile; loading a tile takes ``size`` cycles (one row of weights per cycle).
2. **Stream activations.** Row m of X enters the array from the left, skewed:
   element X[m][k] enters PE row k at cycle m + k. Every cycle each PE
   multiplies the activation arriving from its left by its weight, adds the
   partial sum arriving from above, passes the activation to the right and
   the new partial sum down.
3. **Drain.** The finished sum Y[m][n] leaves the bottom of column n at
   cycle m + (size - 1) + n.

A tile therefore takes ``size`` load cycles plus M + 2 * size - 2 streaming
cycles (``tile_cycles``); matrices larger than the array are cut into
ceil(K / size) x ceil(N / size) weight tiles, with partial results summed
outside the array. Utilisation is useful multiply-adds over PE-cycles: it
approaches 1 only when M is large (filling and draining amortised) and K
and N are multiples of the array size (no idle PEs).

``simulate`` moves every value through registers cycle by cycle and returns
the product (tested against a plain matrix product) and the cycle count
(tested against ``cycles``). Standard library only: this file runs
unchanged in the browser (Pyodide).
"""

from __future__ import annotations

import math


class InputError(ValueError):
    """A bad input: ``field`` names it, ``key`` is its translation key, ``params`` fill the message."""

    def __init__(self, field: str, key: str, **params):
        self.field, self.key, self.params = field, key, params
        super().__init__(f"{field}: {key} {params}")


def whole(field: str, value, low: int = 1, high: int = 1_000_000) -> int:
    """``value`` as an integer in [low, high], or ``InputError``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(field, "kernels.error.not_a_number", value=str(value)[:40]) from None
    if not math.isfinite(number) or number != int(number):
        raise InputError(field, "kernels.error.not_whole", value=str(value)[:40])
    if number < low:
        raise InputError(field, "kernels.error.too_small", value=str(value)[:40], low=low)
    if number > high:
        raise InputError(field, "kernels.error.too_large", value=str(value)[:40], high=high)
    return int(number)


def tile_cycles(m: int, size: int) -> int:
    """Cycles for one weight tile: ``size`` to load the weights, M + 2 * size - 2 to stream M rows through."""
    return size + m + 2 * size - 2


def cycles(m: int, k: int, n: int, size: int) -> int:
    """Cycles for X (M x K) times W (K x N) on a ``size`` x ``size`` array, tile after tile."""
    tiles = math.ceil(k / size) * math.ceil(n / size)
    return tiles * tile_cycles(m, size)


def utilisation(m: int, k: int, n: int, size: int) -> float:
    """Share of PE-cycles doing a useful multiply-add: M*K*N / (size^2 * cycles)."""
    return m * k * n / (size * size * cycles(m, k, n, size))


def summary(m, k, n, size) -> dict:
    """The explorer's result for one matrix product: cycles, MACs, utilisation, tiles."""
    m, k, n = whole("m", m), whole("k", k), whole("n", n)
    size = whole("size", size, 1, 1024)
    total = cycles(m, k, n, size)
    return {
        "m": m,
        "k": k,
        "n": n,
        "size": size,
        "tiles": math.ceil(k / size) * math.ceil(n / size),
        "cycles": total,
        "macs": m * k * n,
        "utilisation": m * k * n / (size * size * total),
    }


def sweep(sizes, size: int) -> list[dict]:
    """``summary`` of square products (M = K = N) for each of ``sizes`` on one array."""
    return [summary(s, s, s, size) for s in sizes]


def simulate(x: list[list[float]], w: list[list[float]], size: int, trace: bool = False) -> dict:
    """Run X @ W through a ``size`` x ``size`` weight-stationary array, register by register.

    Returns ``{"y": M x N product, "cycles": total cycles, "busy": PE-cycles
    with a multiply-add, "frames": [...]}``. With ``trace``, ``frames`` holds
    one entry per streaming cycle of each tile: ``{"tile": (k-tile, n-tile),
    "cycle": global cycle, "active": size x size grid of the row index m each
    PE is working on, or None}``.
    """
    m_rows, k_dim = len(x), len(x[0]) if x else 0
    n_dim = len(w[0]) if w else 0
    if not m_rows or not k_dim or not n_dim or len(w) != k_dim:
        raise InputError("x", "kernels.error.shapes")
    size = whole("size", size, 1, 256)
    y = [[0.0] * n_dim for _ in range(m_rows)]
    clock, busy, frames = 0, 0, []
    for k0 in range(0, k_dim, size):
        for n0 in range(0, n_dim, size):
            # 1. Load this tile's weights: one row of PEs per cycle; unused PEs hold 0.
            weight = [[0.0] * size for _ in range(size)]
            for r in range(size):
                for c in range(size):
                    if k0 + r < k_dim and n0 + c < n_dim:
                        weight[r][c] = w[k0 + r][n0 + c]
                clock += 1
            # 2.-3. Stream rows of X through; registers hold (value, row m) or None.
            act = [[None] * size for _ in range(size)]  # activation leaving each PE to the right
            psum = [[None] * size for _ in range(size)]  # partial sum leaving each PE downwards
            for t in range(m_rows + 2 * size - 2):
                new_act = [[None] * size for _ in range(size)]
                new_psum = [[None] * size for _ in range(size)]
                active = [[None] * size for _ in range(size)] if trace else None
                for r in range(size):
                    for c in range(size):
                        if c == 0:  # left edge: X[m][k0 + r] enters row r at cycle m + r
                            m = t - r
                            a_in = None
                            if 0 <= m < m_rows:
                                a_in = (x[m][k0 + r] if k0 + r < k_dim else 0.0, m)
                        else:
                            a_in = act[r][c - 1]
                        if a_in is None:
                            continue
                        value, m = a_in
                        above = psum[r - 1][c][0] if r > 0 and psum[r - 1][c] is not None else 0.0
                        new_act[r][c] = a_in
                        new_psum[r][c] = (above + value * weight[r][c], m)
                        if k0 + r < k_dim and n0 + c < n_dim:
                            busy += 1
                        if trace:
                            active[r][c] = m
                # The bottom row's partial sums are finished: add them into Y.
                for c in range(size):
                    out = new_psum[size - 1][c]
                    if out is not None and n0 + c < n_dim:
                        y[out[1]][n0 + c] += out[0]
                act, psum = new_act, new_psum
                if trace:
                    frames.append({"tile": (k0 // size, n0 // size), "cycle": clock, "active": active})
                clock += 1
    return {"y": y, "cycles": clock, "busy": busy, "frames": frames}


def matmul(x, w):
    """Plain X @ W, the reference the simulation is checked against."""
    return [[sum(x[i][k] * w[k][j] for k in range(len(w))) for j in range(len(w[0]))] for i in range(len(x))]


def frame_text(frame: dict) -> str:
    """One cycle of a trace as text: each PE shows the row of X it works on, '.' when idle."""
    lines = [f"cycle {frame['cycle']:>3}"]
    for row in frame["active"]:
        lines.append(" ".join("." if m is None else str(m) for m in row))
    return "\n".join(lines)


if __name__ == "__main__":  # a small demo: python -m atlas.core.kernels.systolic [size] [m]
    import random
    import sys

    size, m = (int(v) for v in (sys.argv[1:3] + ["4", "6"][len(sys.argv[1:3]) :]))
    rng = random.Random(0)
    x = [[rng.uniform(-1, 1) for _ in range(size)] for _ in range(m)]
    w = [[rng.uniform(-1, 1) for _ in range(size)] for _ in range(size)]
    run = simulate(x, w, size, trace=True)
    for frame in run["frames"]:
        print(frame_text(frame), end="\n\n")
    result = summary(m, size, size, size)
    print(f"{run['cycles']} cycles (formula: {result['cycles']}), utilisation {result['utilisation']:.1%}")

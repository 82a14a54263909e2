"""Timings and widths of the without-replacement PLD accountant (dpviz.theory.pld_wor; issue 31 items 6 and 7):
`.venv/bin/python benchmarks/bench_pld_wor.py [--quick]`.

* item 7's targets at n = T = 10⁵, b = 1, δ = 10⁻⁵: ε of a given noise with its bracket (target < 2 s) and the noise
  for a target ε (target < 3 s), cold caches;
* the bracket over a table of target ε at n = T = 10³, 10⁴, 10⁵ (the noise from :func:`noise_bracket`, then the ε
  bracket at that noise): lower bound, upper bound, their relative gap, the Rényi ε of the same noise, the time.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dpviz.theory import pld_wor  # noqa: E402


def _clear():
    pld_wor._eval.cache_clear()
    pld_wor._bracket.cache_clear()


def main(quick: bool = False):
    pld_wor.epsilon_bracket(noise_multiplier=1.0, delta=1e-5, steps=10, n=100)  # imports
    print("item 7 targets, n = T = 100 000, b = 1, delta = 1e-5, cold caches")
    for z in (0.43, 0.6):
        _clear()
        t, c = time.perf_counter(), time.process_time()
        r = pld_wor.epsilon_bracket(noise_multiplier=z, delta=1e-5, steps=100_000, n=100_000)
        print(f"  eps(z = {z}): [{r['eps_lower']:.5f}, {r['eps_upper']:.5f}] width {100 * r['rel_width']:.2f} % "
              f"(Renyi {r['eps_rdp']:.4f}), {time.perf_counter() - t:.2f} s wall, {time.process_time() - c:.2f} s CPU")
    for eps in (1.0, 0.2):
        _clear()
        t, c = time.perf_counter(), time.process_time()
        r = pld_wor.noise_bracket(eps=eps, delta=1e-5, steps=100_000, n=100_000)
        print(f"  z(eps = {eps}): [{r['z_lower']:.5f}, {r['z_upper']:.5f}], {time.perf_counter() - t:.2f} s wall, "
              f"{time.process_time() - c:.2f} s CPU")
    print("small delta (the FFT's rounding bounded, the composition tilted where it matters), cold caches")
    for z, n, d in ((0.5, 10_000, 1e-12), (0.43, 100_000, 1e-12)):
        _clear()
        t, c = time.perf_counter(), time.process_time()
        r = pld_wor.epsilon_bracket(noise_multiplier=z, delta=d, steps=n, n=n)
        print(f"  n = T = {n}, eps(z = {z}, delta = {d:g}): [{r['eps_lower']:.5f}, {r['eps_upper']:.5f}] width "
              f"{100 * r['rel_width']:.2f} % (Renyi {r['eps_rdp']:.4f}), {time.perf_counter() - t:.2f} s wall, "
              f"{time.process_time() - c:.2f} s CPU")
    if quick:
        return
    print("\nbracket over target eps (b = 1, delta = 1e-5; z from noise_bracket, then the eps bracket at z_upper)")
    print("  n = T     eps    z_upper   eps_lower  eps_upper  gap %   Renyi eps  time s")
    for n in (1000, 10_000, 100_000):
        for eps in (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0):
            _clear()
            t = time.perf_counter()
            try:
                z = pld_wor.noise_bracket(eps=eps, delta=1e-5, steps=n, n=n)["z_upper"]
                r = pld_wor.epsilon_bracket(noise_multiplier=z, delta=1e-5, steps=n, n=n)
            except ValueError as e:
                print(f"  {n:>7} {eps:>6}   {e}")
                continue
            print(f"  {n:>7} {eps:>6}   {z:.5f}   {r['eps_lower']:.5f}   {r['eps_upper']:.5f}  "
                  f"{100 * r['rel_width']:5.2f}   {r['eps_rdp']:.4f}    {time.perf_counter() - t:.2f}")


if __name__ == "__main__":
    main("--quick" in sys.argv)

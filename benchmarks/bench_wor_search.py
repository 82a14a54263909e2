"""The without-replacement RDP noise search (Wang, Balle & Kasiviswanathan 2019, Theorem 27, as dp_accounting
computes it): seconds per search and evaluations of ε(z), over settings from Calibrate's DP-SGD-PL / PIDP-SGD
(Kang, Li, Liu & Wang) to tiny and large ε.  Prints one line per setting: the noise multiplier found, the number of
ε(z) evaluations, and the seconds (each search from cold caches).

    python benchmarks/bench_wor_search.py
"""

import time

SETTINGS = [  # (eps, delta, steps, q)
    (1.0, 1e-5, 1000, 0.01),
    (0.3, 1e-5, 1000, 0.05),
    (2.0, 1e-8, 10_000, 0.001),
    (8.0, 1e-6, 100, 0.1),
    (0.05, 1e-5, 50, 0.01),
    (1.0, 2.5e-9, 7, 0.5),
]


def main() -> None:
    from dpviz.theory.accounting import api, rdp_wor, search

    counted = {"n": 0}
    original = rdp_wor._wor_eps_opt.__wrapped__

    def counting(*args, **kwargs):
        counted["n"] += 1
        return original(*args, **kwargs)

    total = 0.0
    for eps, delta, steps, q in SETTINGS:
        rdp_wor._wor_eps_opt.cache_clear()
        search._solve_wor.cache_clear() if hasattr(search._solve_wor, "cache_clear") else None
        counted["n"] = 0
        wrapped = rdp_wor._wor_eps_opt
        rdp_wor._wor_eps_opt = counting
        search._wor_eps_opt = counting
        try:
            t0 = time.perf_counter()
            z = api.noise_multiplier_general(eps=eps, delta=delta, steps=steps, sampling_prob=q,
                                             sampling="without-replacement", neighbouring="replace-one")
            dt = time.perf_counter() - t0
        finally:
            rdp_wor._wor_eps_opt = wrapped
            search._wor_eps_opt = wrapped
        total += dt
        print(f"eps={eps:g} delta={delta:g} T={steps} q={q:g}: z = {z:.12g}, {counted['n']} evaluations, "
              f"{dt:.3f} s")
    print(f"total {total:.2f} s")


if __name__ == "__main__":
    main()

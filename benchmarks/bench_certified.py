"""Issue 31: CPU time of the accountant calls that the certified-bounds work changed (run on a branch and on main to
compare; the figures go to benchmarks/RESULTS.md).  ``python benchmarks/bench_certified.py`` prints one line per
measure: CPU seconds of this process (the machine is shared: wall times are inflated), and the result."""

from __future__ import annotations

import time


def _cpu(fn):
    t0 = time.process_time()
    try:
        out = fn()
    except ValueError as exc:
        out = f"ValueError: {str(exc)[:90]}"
    return time.process_time() - t0, out


def main() -> None:
    from dpviz.labs import audit_planner as planner
    from dpviz.theory import accounting as A

    def br(z, d, T, q):
        b = A.pld_epsilon_bracket(noise_multiplier=z, delta=d, steps=T, sampling_prob=q)
        return f"[{b['eps_lower']}, {b['eps_upper']:.6g}] conv={b['converged']} {b.get('fallback')}"

    def sb(e, d, T, q):
        s = A.pld_sigma_bracket(eps=e, delta=d, steps=T, sampling_prob=q)
        return f"({s['z_lower']}, {s['z_upper']:.6g}] {s.get('fallback')}"

    measures = [
        ("eps(z=1), n=T=50 000, delta=1e-6", lambda: br(1.0, 1e-6, 50000, 2e-5)),
        ("eps(z=1.1), MNIST 60 epochs, delta=1e-5", lambda: br(1.1, 1e-5, 14063, 256 / 60000)),
        ("z for eps=1, n=T=50 000", lambda: sb(1.0, 1e-6, 50000, 2e-5)),
        ("z for eps=3, MNIST 60 epochs", lambda: sb(3.0, 1e-5, 14063, 256 / 60000)),
        ("issue 31: eps(z=0.55), q=1e-6, T=1e6, delta=1e-12", lambda: br(0.55, 1e-12, 10**6, 1e-6)),
        ("issue 31: z for eps=1, q=1e-6, T=1e6, delta=1e-12", lambda: sb(1.0, 1e-12, 10**6, 1e-6)),
        ("issue 31: RDP eps(z=1e8), MNIST batch, T=1, delta=1e-12",
         lambda: A.epsilon_for(noise_multiplier=1e8, delta=1e-12, steps=1, sampling_prob=256 / 60000)),
        ("issue 31: WOR z for eps=1e-6, n=T=1e6, delta=1e-12",
         lambda: A.noise_multiplier_general(eps=1e-6, delta=1e-12, steps=10**6, sampling_prob=1e-6,
                                            sampling="without-replacement", neighbouring="replace-one")),
        ("issue 31: RDP eps at delta=0.9999",
         lambda: A.epsilon_for(noise_multiplier=1.0, delta=0.9999, steps=12, sampling_prob=1 / 60000)),
        ("planner gdp, eps_true=1, target=0.5",
         lambda: planner.plan_audit(target=0.5, eps_true=1.0, delta=1e-5, method="gdp").trials),
        ("planner clopper-pearson, eps_true=1, target=0.5",
         lambda: planner.plan_audit(target=0.5, eps_true=1.0, delta=1e-5, method="clopper-pearson").trials),
    ]
    import dp_accounting  # noqa: F401  (import time is not the measures')

    for name, fn in measures:
        cpu, out = _cpu(fn)
        print(f"{name:<58} {cpu:7.2f} s CPU   {out}")


if __name__ == "__main__":
    main()

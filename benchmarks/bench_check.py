"""Timings of "Check a run" (dpviz.labs.run_check): `.venv/bin/python benchmarks/bench_check.py`.

Targets (issue 32, on a quiet machine): the verdict (ε bracket, RDP ε, verdict; ``check(search=False)``) within 1 s,
the noise search (the noise-multiplier bracket for the target) within 3 s.  Every case is timed cold (the
accountants' caches cleared) after one warm-up run that imports dp_accounting; the most epochs and the ε-vs-epochs
curve of the page are timed too.  Prints one line per case; record the figures in benchmarks/RESULTS.md.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dpviz.labs import run_check as rc  # noqa: E402
from dpviz.theory import accounting, shuffle_lower  # noqa: E402

MNIST = dict(n=60000, batch_size=256, epochs=60, noise_multiplier=1.1, delta=1e-5, target_eps=3.0)
CASES = {
    "MNIST, Poisson, add/remove": dict(MNIST),
    "MNIST, Poisson, replace-one": dict(MNIST, neighbouring="replace-one"),
    "MNIST, shuffled batches": dict(MNIST, sampling="shuffle"),
    "MNIST, fixed-size, replace-one": dict(MNIST, sampling="fixed-size", neighbouring="replace-one"),
    "MNIST, full batch (60 steps)": dict(MNIST, sampling="full-batch", batch_size=None),
    "q = 1e-5, 1e5 steps, target 0.1": dict(n=1000000, batch_size=10, steps=100000, noise_multiplier=0.7,
                                           delta=1e-8, target_eps=0.1),
    "CIFAR-like, 512 of 50 000, 100 epochs, target 10": dict(n=50000, batch_size=512, epochs=100,
                                                            noise_multiplier=0.8, delta=1e-5, target_eps=10.0),
}


def _clear():
    for mod in (accounting, shuffle_lower):
        for name in dir(mod):
            f = getattr(mod, name)
            if hasattr(f, "cache_clear"):
                f.cache_clear()


def main() -> None:
    rc.check(**MNIST)  # warm-up: imports dp_accounting, numpy's FFT, scipy.special
    print(f"{'case':<50} {'verdict s':>10} {'noise search s':>15} {'max epochs s':>13} {'curve s':>8}")
    for name, kw in CASES.items():
        kw = {k: v for k, v in kw.items() if v is not None}
        _clear()
        t0 = time.perf_counter()
        out = rc.check(search=False, **kw)
        t_verdict = time.perf_counter() - t0
        run = rc.resolve(**kw)
        t0 = time.perf_counter()
        nm = rc.noise_for_target(run)
        t_noise = time.perf_counter() - t0
        t0 = time.perf_counter()
        me = rc.max_epochs(run)
        t_max = time.perf_counter() - t0
        t0 = time.perf_counter()
        rc.eps_vs_epochs(run)
        t_curve = time.perf_counter() - t0
        print(f"{name:<50} {t_verdict:>10.2f} {t_noise:>15.2f} {t_max:>13.2f} {t_curve:>8.2f}   "
              f"[{out['verdict']}, eps in [{out['eps_lower']}, {out['eps_upper']:.4g}], "
              f"z in ({nm['lower']}, {nm['upper']:.4g}], max epochs {me['epochs']}]")


if __name__ == "__main__":
    main()

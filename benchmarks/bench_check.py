"""Timings of "Check a run" (dpviz.labs.run_check): `.venv/bin/python benchmarks/bench_check.py`.

Targets (issue 32, on a quiet machine): the verdict (ε bracket, RDP ε, verdict; ``check(search=False)``) within 1 s,
the noise search (the noise-multiplier bracket for the target) within 3 s.  Every case is timed cold (the
accountants' caches cleared) after one warm-up run that imports dp_accounting; the most epochs and the ε-vs-epochs
curve of the page are timed too.  Prints one line per case, wall and CPU seconds (``time.process_time``: on a shared, busy machine the wall time
is several times the CPU time); record the figures in benchmarks/RESULTS.md.
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
    rc.check(search=False, **MNIST)  # warm-up: imports dp_accounting, numpy's FFT, scipy.special
    print(f"{'case':<50} {'verdict s (cpu)':>16} {'noise search s (cpu)':>21} {'max epochs s (cpu)':>19} "
          f"{'curve s (cpu)':>14}")
    for name, kw in CASES.items():
        kw = {k: v for k, v in kw.items() if v is not None}
        _clear()
        times = []

        def timed(f, *a, **k):
            w, c = time.perf_counter(), time.process_time()
            res = f(*a, **k)
            times.append(f"{time.perf_counter() - w:.2f} ({time.process_time() - c:.2f})")
            return res

        out = timed(rc.check, search=False, **kw)
        run = rc.resolve(**kw)
        nm = timed(rc.noise_for_target, run)
        me = timed(rc.max_epochs, run)
        timed(rc.eps_vs_epochs, run)
        print(f"{name:<50} {times[0]:>16} {times[1]:>21} {times[2]:>19} {times[3]:>14}   "
              f"[{out['verdict']}, eps in [{out['eps_lower']}, {out['eps_upper']:.4g}], "
              f"z in ({nm['lower']}, {nm['upper']:.4g}], max epochs {me['epochs']}]")


if __name__ == "__main__":
    main()

"""Rerun timings of the Calibrate and Bounds pages with AppTest (warm cache): `.venv/bin/python benchmarks/bench_pages.py`."""

import statistics
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def main(reps: int = 10) -> None:
    for page in ("pages/calibrate.py", "pages/bounds.py"):
        at = AppTest.from_file(APP, default_timeout=60).run()
        t0 = time.perf_counter()
        at.switch_page(page).run()
        first = time.perf_counter() - t0
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            at.run()
            times.append(time.perf_counter() - t0)
        print(f"{page}: first run {first * 1000:.0f} ms, rerun median {statistics.median(times) * 1000:.0f} ms, "
              f"max {max(times) * 1000:.0f} ms over {reps}")


if __name__ == "__main__":
    main()

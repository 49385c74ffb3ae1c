"""Shared by the benchmark scripts: the best of several timed runs."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(repeats: int, fn: Callable[[], object]) -> float:
    """The fastest of ``repeats`` wall-clock timings of ``fn()``, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def best_of_each(repeats: int, fns: dict[str, Callable[[], object]]) -> dict[str, float]:
    """The fastest of ``repeats`` timings of each function, run in interleaved rounds (one
    of each per round), so that a slow spell on a shared machine hits them all alike."""
    best = {name: float("inf") for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best

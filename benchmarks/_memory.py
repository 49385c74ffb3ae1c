"""Shared by the benchmark scripts: a command's wall time and peak memory, children included.

The resident set size (RSS) of the command's whole process tree (worker processes
included) is sampled every 50 ms with psutil; the peak of the sum and the largest single
process are reported. Sampling can miss a spike shorter than the interval, so the figures
are a lower bound on the true peak, accurate to a few MB for the slowly-changing memory of
these commands.
"""

from __future__ import annotations

import contextlib
import subprocess
import time
from dataclasses import dataclass

import psutil

INTERVAL = 0.05


@dataclass(frozen=True)
class Run:
    seconds: float
    peak_tree_bytes: int
    peak_process_bytes: int
    returncode: int
    stderr: str


def _tree(root: psutil.Process) -> list[psutil.Process]:
    try:
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def measure(command: list[str], env: dict[str, str] | None = None) -> Run:
    """Run ``command``; its wall time and the peak RSS of its process tree."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, env=env)
    root = psutil.Process(proc.pid)
    peak_tree = peak_one = 0
    while proc.poll() is None:
        sizes = []
        for p in _tree(root):
            with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
                sizes.append(p.memory_info().rss)
        if sizes:
            peak_tree, peak_one = max(peak_tree, sum(sizes)), max(peak_one, max(sizes))
        time.sleep(INTERVAL)
    _, stderr = proc.communicate()
    return Run(time.perf_counter() - start, peak_tree, peak_one, proc.returncode, stderr)


def mb(n: int) -> str:
    return f"{n / 1024**2:,.0f} MB"

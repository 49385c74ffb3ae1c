"""How much memory simulating one cohort needs, and whether this machine has it.

Simulation holds every subject-month of the factual and intervened runs at once, so its
peak memory grows with subjects x months. The estimate is an upper bound measured with
``/usr/bin/time -f %M`` (about 3.2 KB per subject at 12 months and 5.4 KB at 48, plus a
fixed 175 MB; the constants below round these up). ``icgbench generate`` refuses a cohort
it cannot hold instead of failing deep inside numpy.
"""

from __future__ import annotations

import os
from pathlib import Path

FIXED_BYTES = 300 * 1024**2
BYTES_PER_SUBJECT = 4096
BYTES_PER_SUBJECT_MONTH = 100


def estimate_bytes(n_subjects: int, months: int) -> int:
    """Upper estimate of the peak memory of ``simulate`` for a cohort of this size."""
    return FIXED_BYTES + n_subjects * (BYTES_PER_SUBJECT + BYTES_PER_SUBJECT_MONTH * months)


def _cgroup_limit() -> int | None:
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            return int(text)
    return None


def available_bytes() -> int | None:
    """Memory this process can still use: MemAvailable, capped by a cgroup limit."""
    available = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                available = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    if available is None:
        try:
            available = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            return None
    limit = _cgroup_limit()
    return available if limit is None else min(available, limit)


def _gb(n: float) -> str:
    return f"{n / 1024**3:,.1f} GB"


def fits(n_subjects: int, months: int) -> str | None:
    """None when the cohort fits in memory; else a sentence saying why not."""
    need = estimate_bytes(n_subjects, months)
    have = available_bytes()
    if have is None or need <= have:
        return None
    return (f"a cohort of {n_subjects:,} subjects x {months} months needs about {_gb(need)} "
            f"of memory to simulate; this machine has {_gb(have)} available. Use fewer "
            "subjects or months.")

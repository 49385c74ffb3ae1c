"""Progress bars on a terminal, silence when piped (rich does the drawing)."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def interactive() -> bool:
    """True when stderr is a terminal (progress is drawn there)."""
    return sys.stderr.isatty()


def track(items: Iterable[T], total: int | None, description: str) -> Iterator[T]:
    """Iterate over ``items``, drawing a progress bar on stderr when it is a terminal."""
    if not interactive():
        yield from items
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(description, total=total)
        for item in items:
            yield item
            progress.advance(task)

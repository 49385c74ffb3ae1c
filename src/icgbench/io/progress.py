"""Progress bars on a terminal, silence when piped (rich does the drawing)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def interactive() -> bool:
    """True when stderr is a terminal (progress is drawn there)."""
    return sys.stderr.isatty()


def _console():
    """A rich console on the terminal behind the CLI's printable stderr (the bar's own
    escapes must reach it; the description is ours)."""
    from rich.console import Console

    from icgbench.io.terminal import unfiltered

    return Console(file=unfiltered(sys.stderr))


def track(items: Iterable[T], total: int | None, description: str) -> Iterator[T]:
    """Iterate over ``items``, drawing a progress bar on stderr when it is a terminal."""
    if not interactive():
        yield from items
        return
    from rich.progress import Progress

    with Progress(console=_console(), transient=True) as progress:
        task = progress.add_task(description, total=total)
        for item in items:
            yield item
            progress.advance(task)


@contextlib.contextmanager
def progress_bar(description: str, total: int | None, unit: str = "items"
                 ) -> Iterator[Callable[[int], None]]:
    """A bar advanced by calling the yielded function (bytes get a transfer-speed bar)."""
    if not interactive():
        yield lambda _: None
        return
    from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

    columns = (("[progress.description]{task.description}", BarColumn(), DownloadColumn(),
                TransferSpeedColumn()) if unit == "bytes" else ())
    with Progress(*columns, console=_console(), transient=True) as progress:
        task = progress.add_task(description, total=total)
        yield lambda n: progress.advance(task, n)

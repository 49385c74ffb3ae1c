"""Where independent tasks run: in this process, a process pool, or a Dask cluster.

``--scheduler`` names it: ``processes`` (the default: this process for one job, a pool of
``--jobs`` processes otherwise), ``local`` (a ``dask.distributed`` LocalCluster of ``--jobs``
single-threaded worker processes) or ``tcp://HOST:PORT`` (a running Dask scheduler; its
workers need the same ``icgbench`` install and must see the output folder). Results come
back as tasks finish; what a task computes never depends on where it ran.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from icgbench.errors import UsageError

if TYPE_CHECKING:  # the CLI imports this module to declare --scheduler: pools load on use
    from concurrent.futures import ProcessPoolExecutor

T = TypeVar("T")
R = TypeVar("R")

DEFAULT = "processes"
LOCAL = "local"
DASK_HINT = "pip install 'icgbench[dask]'"


def scheduler_arg(text: str) -> str:
    """argparse type: ``processes``, ``local`` or ``tcp://HOST:PORT``."""
    import argparse

    if text in (DEFAULT, LOCAL) or (text.startswith("tcp://") and len(text) > len("tcp://")):
        return text
    raise argparse.ArgumentTypeError(
        f"expected {DEFAULT}, {LOCAL} or tcp://HOST:PORT, got {text!r}")


def add_scheduler_argument(parser: Any, tasks: str, folder: str) -> None:
    """``--scheduler`` on a command whose ``tasks`` (cells, shards) write into ``folder``."""
    parser.add_argument("--scheduler", type=scheduler_arg, default=DEFAULT,
                        help=f"where {tasks} run: {DEFAULT} (default), {LOCAL} (a Dask "
                        "LocalCluster of --jobs workers) or tcp://HOST:PORT (a running Dask "
                        f"scheduler whose workers see {folder}); results do not depend on it")


def _dask_client(scheduler: str, jobs: int) -> Any:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise UsageError(f"--scheduler {scheduler} needs dask.distributed: {DASK_HINT}"
                         ) from None
    if scheduler == LOCAL:
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                               dashboard_address=":0")
        return Client(cluster), cluster
    try:
        return Client(scheduler, timeout="10s"), None
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None


class Runner:
    """Where tasks run, kept open across batches: one process pool or one Dask client for
    all of them, so workers start (and import) once. Use as a context manager."""

    def __init__(self, scheduler: str = DEFAULT, jobs: int = 1) -> None:
        self.scheduler, self.jobs = scheduler, jobs
        self._pool: ProcessPoolExecutor | None = None
        self._client: Any = None
        self._cluster: Any = None

    def __enter__(self) -> Runner:
        if self.scheduler != DEFAULT:
            self._client, self._cluster = _dask_client(self.scheduler, self.jobs)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()

    def _process_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(max_workers=self.jobs)
        return self._pool

    def outcomes(self, fn: Callable[[T], R], items: Iterable[T]
                 ) -> Iterator[tuple[T, R | Exception]]:
        """``(item, fn(item))`` for every item in the order tasks finish, or ``(item,
        exception)`` when the task raised or its worker failed: one bad task ends no other."""
        items = list(items)
        if self._client is not None:
            from distributed import as_completed as dask_completed

            futures = self._client.map(fn, items, pure=False)
            item_of = {f.key: i for f, i in zip(futures, items, strict=True)}
            return ((item_of[f.key], _result(f)) for f in dask_completed(futures))
        if self.jobs <= 1 or (self._pool is None and len(items) <= 1):
            return ((i, _outcome(fn, i)) for i in items)
        from concurrent.futures import as_completed
        from concurrent.futures.process import BrokenProcessPool

        try:
            submitted = {self._process_pool().submit(fn, i): i for i in items}
        except BrokenProcessPool:  # a worker of an earlier batch died: start afresh
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
            submitted = {self._process_pool().submit(fn, i): i for i in items}
        return ((submitted[f], _result(f)) for f in as_completed(submitted))


def _outcome(fn: Callable[[T], R], item: T) -> R | Exception:
    try:
        return fn(item)
    except Exception as exc:
        return exc


def _result(future: Any) -> Any:
    return _outcome(lambda f: f.result(), future)


@contextlib.contextmanager
def run_tasks(fn: Callable[[T], R], items: Iterable[T], scheduler: str = DEFAULT,
              jobs: int = 1) -> Iterator[Iterator[R]]:
    """Yield an iterator over ``fn(item)`` for every item, in the order tasks finish; the
    first task that raised raises its exception here."""
    with Runner(scheduler, jobs) as runner:
        yield (_value(outcome) for _, outcome in runner.outcomes(fn, items))


def _value(outcome: R | Exception) -> R:
    if isinstance(outcome, Exception):
        raise outcome
    return outcome

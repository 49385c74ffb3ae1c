"""A miniature release tier, frozen into a temporary folder, for tests that alter files."""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from conftest import built_once
from icgbench.release import freeze
from icgbench.release.descriptor import Descriptor, load_descriptor
from icgbench.release.tiers import Tier

ROOT = Path(__file__).resolve().parents[1]

MINI = Tier(name="mini", seeds=(0,), sizes={"train": 12, "test": 6, "target_test": 6},
            committed=False, description="A miniature tier for tests.",
            calibration=("linear_lowhet", 0))


def mini_release(tmp_path: Path) -> Descriptor:
    """A private copy of the mini tier under ``tmp_path`` (frozen once per session)."""
    source = built_once("mini-release", lambda root: freeze.freeze(MINI, root))
    target = tmp_path / "release"
    shutil.copytree(source, target)
    return load_descriptor(target / MINI.descriptor_path)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    failures: list[int]  # requests still to refuse with 503 (negative: every one)
    requests: list[str]

    def log_message(self, *args):  # keep test output clean
        pass

    def do_GET(self):
        self.requests.append(self.path)
        if self.failures[0] != 0:
            self.failures[0] -= 1
            self.send_error(503, "Service Unavailable")
            return
        super().do_GET()


@contextlib.contextmanager
def served(folder: Path, failures: int = 0, requests: list[str] | None = None
           ) -> Iterator[str]:
    """Serve ``folder`` over HTTP on 127.0.0.1; yields the base URL.

    The first ``failures`` requests are answered 503 (all of them when negative); every
    request path is appended to ``requests`` when given.
    """
    handler = type("Handler", (_QuietHandler,), {"failures": [failures],
                                                 "requests": [] if requests is None
                                                 else requests})
    with serve(functools.partial(handler, directory=str(folder))) as url:
        yield url


@contextlib.contextmanager
def serve(handler: Any) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 (a free port) with ``handler``, in a thread; yields its
    base URL and shuts it down after."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02},
                     daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()

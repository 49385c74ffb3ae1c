"""The task registry: every module of this package that defines ``TASK`` is a scored task.

Adding a task means adding one module (and its test); nothing else lists tasks.
"""

from __future__ import annotations

import importlib

from icgbench._lazy import module_names
from icgbench.tasks.base import Metric, Task, TaskResult, Truth


def _discover() -> dict[str, Task]:
    found: list[Task] = []
    for name in module_names(__path__):
        module = importlib.import_module(f"{__name__}.{name}")
        task = getattr(module, "TASK", None)
        if isinstance(task, Task):
            found.append(task)
    return {t.name: t for t in sorted(found, key=lambda t: t.order)}


TASKS: dict[str, Task] = _discover()

__all__ = ["TASKS", "Metric", "Task", "TaskResult", "Truth"]

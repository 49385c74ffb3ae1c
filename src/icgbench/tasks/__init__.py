"""The task registry: every module of this package that defines ``TASK`` is a scored task.

Adding a task means adding one module (and its test); the lists of blocks, their splits and
the categories are derived here, and nothing else lists tasks. The helper modules of this
package (metrics, normalized, withheld, summary) read the registry when called, never when
imported: the registry imports every module to find the tasks.
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

#: Every submission block, in task order: what a full submission holds. A task's own block
#: bears its name; it may read another task's too (transfer reads risk_prediction's).
BLOCKS: tuple[str, ...] = tuple(TASKS)

#: Block name -> the split whose subjects it must cover exactly (None: not per subject).
BLOCK_SPLITS: dict[str, str | None] = {name: t.split for name, t in TASKS.items()}

#: The categories a task's normalized score counts for, in task order (the order reports
#: list them); a task of no category (``category=""``) counts for none.
CATEGORIES: tuple[str, ...] = tuple(dict.fromkeys(t.category for t in TASKS.values()
                                                  if t.category))

if not all(name in t.blocks and set(t.blocks) <= set(TASKS) for name, t in TASKS.items()):
    raise RuntimeError("every task reads its own block (its name) and blocks of tasks only")

__all__ = ["BLOCKS", "BLOCK_SPLITS", "CATEGORIES", "TASKS", "Metric", "Task", "TaskResult", "Truth"]

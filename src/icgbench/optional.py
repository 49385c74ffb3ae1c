"""The optional extras: the core scores and validates without them.

``pip install "icgbench[plots]"`` adds matplotlib (``bench plots``), ``"icgbench[page]"``
adds jinja2 and matplotlib (``leaderboard render``, the board's figures), and
``"icgbench[discovery]"`` the generic causal-discovery methods. :func:`require` turns the
missing import into a one-line usage error naming the extra.
"""

from __future__ import annotations

import importlib

from icgbench.errors import UsageError

#: Extra -> the modules it installs.
EXTRAS = {"plots": ("matplotlib",), "page": ("jinja2", "markupsafe", "matplotlib")}


def require(extra: str, what: str) -> None:
    """Raise a UsageError when a module of ``extra`` is not installed, saying ``what``
    needs it and how to install it."""
    missing = []
    for module in EXTRAS[extra]:
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(module)
    if missing:
        raise UsageError(f"{what} needs {', '.join(missing)}, which is not installed: "
                         f'pip install "icgbench[{extra}]"')

"""``python -m icgbench`` runs the CLI."""

from icgbench.cli import entry_point

entry_point()

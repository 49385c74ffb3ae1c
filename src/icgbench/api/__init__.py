"""The Python API a model author uses: the frozen release's tables, a cohort of any size, a
model adapter, a submission template, one-line cohort summaries. ``icgbench`` re-exports
the names a user needs (see its docstring)."""

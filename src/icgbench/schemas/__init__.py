"""Package copy of the top-level schemas/ folder (kept identical by `make schemas`)."""

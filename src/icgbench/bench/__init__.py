"""The benchmark workflow around the reference models: run, audit, sweep, plots, tiers."""

"""The constants the package ships for the frozen cohorts, rewritten by one command.

``python -m icgbench.generator.shipped`` solves and simulates them for every cohort of the
frozen open tiers and rewrites ``solved_roots.json`` (:mod:`.reference`) and
``published_effects.json`` (:data:`.simulator.PUBLISHED_EFFECTS`). Tests in
tests/test_generator_dgp.py compute them again and compare.
"""

from __future__ import annotations

from icgbench.generator.reference import frozen_cohorts, write_solved_roots
from icgbench.generator.simulator import write_published_effects

if __name__ == "__main__":
    print(f"wrote {write_solved_roots(frozen_cohorts())}")
    print(f"wrote {write_published_effects(frozen_cohorts())}")

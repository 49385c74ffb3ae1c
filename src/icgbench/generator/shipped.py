"""The constants the package ships for the frozen cohorts, rewritten by one command.

``python -m icgbench.generator.shipped --effects`` simulates every cohort of the frozen open
tiers and rewrites ``published_effects.json`` (:data:`.simulator.PUBLISHED_EFFECTS`; rounded
to the published decimals, the same on every CPU). ``--roots`` solves them again and
rewrites ``solved_roots.json`` (:mod:`.reference`): a root solved on another CPU can move by
an ulp, which changes the release's bytes, so do it only with a data version bump. Tests in
tests/test_generator_dgp.py compute both again and compare.
"""

from __future__ import annotations

import argparse

from icgbench.generator.reference import frozen_cohorts, write_solved_roots
from icgbench.generator.simulator import write_published_effects

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--effects", action="store_true",
                        help="rewrite published_effects.json")
    parser.add_argument("--roots", action="store_true",
                        help="rewrite solved_roots.json (only with a data version bump)")
    args = parser.parse_args()
    if not (args.effects or args.roots):
        parser.error("say what to rewrite: --effects, --roots or both")
    if args.roots:
        print(f"wrote {write_solved_roots(frozen_cohorts())}")
    if args.effects:
        print(f"wrote {write_published_effects(frozen_cohorts())}")

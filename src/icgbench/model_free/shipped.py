"""The model-free panel's shipped files, rewritten by one command.

``python -m icgbench.model_free.shipped --effects`` simulates the test split of every
cohort of the frozen open tiers and rewrites ``published_effects.json`` (what the copying
answers read, :mod:`.donors`). ``--floors`` reads the full tier's ``model_free_scores``
tables (build it first: ``icgbench data build --tier full``) and rewrites
``floor_choices.json``, the per-variant choice of the floors chosen on other cohorts, which
cohorts outside the board's tier take (:mod:`.floors`). A test recomputes both.
"""

from __future__ import annotations

import argparse

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--effects", action="store_true",
                        help="rewrite published_effects.json")
    parser.add_argument("--floors", action="store_true",
                        help="rewrite floor_choices.json from the full tier's panel tables")
    args = parser.parse_args()
    if not (args.effects or args.floors):
        parser.error("say what to rewrite: --effects, --floors or both")
    if args.effects:
        from icgbench.generator.reference import frozen_cohorts
        from icgbench.model_free.donors import write_published_effects

        print(f"wrote {write_published_effects(frozen_cohorts())}")
    if args.floors:
        from icgbench.model_free.floors import board_tier_choices, write_choices

        print(f"wrote {write_choices(board_tier_choices())}")

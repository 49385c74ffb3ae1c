"""The constants the package ships for the frozen cohorts' DGP, rewritten by one command.

``python -m icgbench.generator.shipped --roots`` solves every cohort of the frozen open
tiers again and rewrites ``solved_roots.json`` (:mod:`.reference`): a root solved on another
CPU can move by an ulp, which changes the release's bytes, so do it only with a data
version bump. Tests in tests/test_generator_dgp.py solve them again and compare. (The
model-free panel's shipped files are :mod:`icgbench.model_free.shipped`'s.)
"""

from __future__ import annotations

import argparse

from icgbench.generator.reference import frozen_cohorts, write_solved_roots

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--roots", action="store_true",
                        help="rewrite solved_roots.json (only with a data version bump)")
    args = parser.parse_args()
    if not args.roots:
        parser.error("say what to rewrite: --roots")
    print(f"wrote {write_solved_roots(frozen_cohorts())}")

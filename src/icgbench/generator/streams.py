"""Keyed random streams: every draw comes from its own ``SeedSequence``.

A stream is keyed by (variant hash, seed, split, purpose, block). Because each purpose has
its own stream, adding a table or a draw never shifts the numbers of another, and because
draws are laid out subject-major (row i belongs to subject i), the first k subjects of a
block are the same whatever the block's size. A split is simulated in blocks of a fixed
number of subjects (:mod:`.blocks`), each with streams of its own, so any block can be
simulated alone: that is what lets a cohort of any size be generated shard by shard, on any
number of workers, with the same content. Block 0 keeps the key it had before blocks
existed, so cohorts of one block per split (every frozen cohort) are unchanged.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class SecretSeed:
    """The seed of a sealed cohort: a secret key and the cohort's public label.

    Every stream of such a cohort takes its entropy from HMAC-SHA256(key, stream name), so
    the streams are independent pseudo-random functions of the key: recovering the state
    of one (say, from the public covariates it produced) tells nothing about another (the
    events) and nothing about the key. The key never appears in ``repr``.
    """

    key: bytes = field(repr=False)
    label: int

    def entropy(self, variant_hash: str, split: str, purpose: str, block: int) -> int:
        name = f"icgbench-sealed|{variant_hash}|{self.label}|{split}|{purpose}|{block}"
        return int.from_bytes(hmac.new(self.key, name.encode(), hashlib.sha256).digest(),
                              "little")


Seed = int | SecretSeed


def _word(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "little")


def stream(variant_hash: str, seed: Seed, split: str, purpose: str, block: int = 0
           ) -> np.random.Generator:
    """A PCG64 generator for one (variant, seed, split, purpose, block)."""
    if block < 0:
        raise ValueError(f"block must be non-negative, got {block}")
    if isinstance(seed, SecretSeed):
        sequence = np.random.SeedSequence(seed.entropy(variant_hash, split, purpose, block))
        return np.random.Generator(np.random.PCG64(sequence))
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    key = (seed, _word(split), _word(purpose)) + ((block,) if block else ())
    sequence = np.random.SeedSequence(entropy=int(variant_hash, 16), spawn_key=key)
    return np.random.Generator(np.random.PCG64(sequence))

"""The files that describe a tier to other ecosystems, made from its descriptor.

``croissant.json`` (Croissant, beside the descriptor) and ``README.md`` (the Hugging Face
dataset card, in the tier's data folder). Both are generated, never edited by hand; a test
checks that the committed ones equal what the descriptors give.
"""

from __future__ import annotations

from pathlib import Path

from icgbench.io import untrusted
from icgbench.io.atomic import write_text
from icgbench.release.croissant import croissant_text, data_prefix
from icgbench.release.dataset_card import dataset_card
from icgbench.release.descriptor import MAX_DESCRIPTOR_BYTES, Descriptor, load_descriptor

CROISSANT_NAME = "croissant.json"
CARD_NAME = "README.md"


def render(descriptor: Descriptor) -> dict[Path, str]:
    """Each description file of the tier (absolute path) with its text."""
    return {
        descriptor.base / CROISSANT_NAME: croissant_text(descriptor),
        descriptor.base / data_prefix(descriptor) / CARD_NAME: dataset_card(descriptor),
    }


def write_tier_descriptions(descriptor_path: Path) -> list[Path]:
    """Write the Croissant file and the dataset card of a tier; return their paths.

    Both texts are made before either file is written, and each file is replaced
    atomically, so a failure leaves the old files in place.
    """
    files = render(load_descriptor(Path(descriptor_path)))
    for path, text in files.items():
        write_text(path, text)
    return list(files)


def stale_descriptions(descriptor_path: Path) -> list[Path]:
    """The description files of a tier that are missing or differ from its descriptor."""
    stale = []
    for path, text in render(load_descriptor(Path(descriptor_path))).items():
        try:
            current = untrusted.read_regular(path, MAX_DESCRIPTOR_BYTES).decode(
                "utf-8", "replace")
        except (FileNotFoundError, untrusted.InputProblem):  # missing, or not a file
            current = None
        if current != text:
            stale.append(path)
    return stale

"""ICg-Bench: a frozen, verifiable causal benchmark for mechanism-aware carcinogenicity models.

The data are synthetic by construction; nothing here is a carcinogenicity classification
or a prediction about real people.
"""

__version__ = "0.4.0"

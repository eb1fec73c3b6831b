"""Coder quality models for crowds: who to trust, and what the items' true labels likely are.

- :func:`dawid_skene`: Dawid & Skene (1979), a confusion matrix per coder, class priors and
  each item's posterior label;
- :func:`mace`: Hovy et al. (2013), each coder's competence (probability of not spamming)
  and spamming distribution, and each item's posterior label.

Both fit by EM on long-format annotations (:func:`as_annotations`: ``(items, coders,
labels)`` arrays or :class:`~metrics.data.ReliabilityData`), with sparse E and M steps
(memory linear in the annotations), a convergence tolerance, an iteration cap and optional
gold items whose label stays fixed.
"""

from __future__ import annotations

from metrics.quality._annotations import Annotations, AnnotationsLike, as_annotations
from metrics.quality.dawid_skene import DawidSkeneResult, dawid_skene
from metrics.quality.mace import MaceResult, mace

__all__ = [
    "Annotations",
    "AnnotationsLike",
    "DawidSkeneResult",
    "MaceResult",
    "as_annotations",
    "dawid_skene",
    "mace",
]

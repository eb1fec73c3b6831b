"""Agreement on rankings: each coder ranks an item's options (ties allowed, full or partial).

- :class:`RankingData`: ``RankingData.from_long(items, coders, options, ranks)``, ranks read
  as an order and turned into mid-ranks;
- :func:`kendall_w`, :func:`decompose_kendall_w`: Kendall's W per item and their mean, with
  the tie correction and the chi-square test (Friedman's statistic);
- :func:`ranking_alpha`, :func:`decompose_ranking_alpha`: alpha with the normalised Kendall
  tau distance or Spearman's footrule (:func:`kendall_tau_distance`,
  :func:`footrule_distance`);
- :func:`consensus_agreement`: each coder against the consensus of the others;
- :func:`ranking_report`, :func:`read_rankings`: the JSON of ``python -m metrics report FILE
  --level ranking`` and its CSV reader.
"""

from __future__ import annotations

from metrics.structured.rankings.alpha import (
    RankingAlpha,
    decompose_ranking_alpha,
    ranking_alpha,
)
from metrics.structured.rankings.concordance import (
    ItemConcordance,
    KendallW,
    decompose_kendall_w,
    kendall_w,
    kendall_w_items,
)
from metrics.structured.rankings.consensus import CoderConsensus, consensus_agreement
from metrics.structured.rankings.data import RankingData
from metrics.structured.rankings.distances import (
    RANKING_DISTANCES,
    footrule_distance,
    kendall_tau_distance,
)
from metrics.structured.rankings.reader import RANKING_FIELDS, read_rankings
from metrics.structured.rankings.report import ranking_report

__all__ = [
    "RANKING_DISTANCES",
    "RANKING_FIELDS",
    "CoderConsensus",
    "ItemConcordance",
    "KendallW",
    "RankingAlpha",
    "RankingData",
    "consensus_agreement",
    "decompose_kendall_w",
    "decompose_ranking_alpha",
    "footrule_distance",
    "kendall_tau_distance",
    "kendall_w",
    "kendall_w_items",
    "ranking_alpha",
    "ranking_report",
    "read_rankings",
]

"""Coders that are models: may a model replace a coder, and what do its labels say.

- :func:`alt_test` / :func:`alt_tests`: the alternative annotator test (Calderon, Reichart &
  Dror 2025), as the authors' reference code computes it;
- :func:`ppi_prevalence` / :func:`ppi_mean`: prediction-powered estimates with PPI++
  intervals (Angelopoulos et al. 2023), equal to ``ppi_py.ppi_mean_ci``;
- :func:`self_consistency`, :func:`calibration` and :func:`judge_report`: judge diagnostics;
- :func:`group_agreement`: agreement among people, among models and between the two groups
  (Vanbelle & Albert 2009), each with its bootstrap interval.

Every function takes plain arrays (item ids, coder ids, labels: one annotation per position)
and returns a frozen dataclass with ``to_json()`` (or a JSON-able dict).
"""

from __future__ import annotations

from metrics.models.alt_test import (
    ALT_TEST_SCORINGS,
    AltTestRefusedError,
    AltTestResult,
    HumanTest,
    alt_test,
    alt_tests,
    alt_tests_on_data,
    benjamini_yekutieli,
)
from metrics.models.groups import (
    MAX_GROUP_VALUES,
    GroupAgreement,
    GroupCoefficient,
    between_groups_agreement,
    decompose_between_groups,
    group_agreement,
)
from metrics.models.judge import (
    CalibrationBin,
    CalibrationResult,
    SelfConsistency,
    calibration,
    judge_report,
    self_consistency,
    self_consistency_on_data,
)
from metrics.models.ppi import (
    CategoryEstimate,
    ModelAgreement,
    PPIMean,
    PPIResult,
    model_agreement,
    ppi_mean,
    ppi_prevalence,
    ppi_prevalence_from_labels,
    ppi_prevalence_on_data,
    wilson_interval,
)

__all__ = [
    "ALT_TEST_SCORINGS",
    "MAX_GROUP_VALUES",
    "AltTestRefusedError",
    "AltTestResult",
    "CalibrationBin",
    "CalibrationResult",
    "CategoryEstimate",
    "GroupAgreement",
    "GroupCoefficient",
    "HumanTest",
    "ModelAgreement",
    "PPIMean",
    "PPIResult",
    "SelfConsistency",
    "alt_test",
    "alt_tests",
    "alt_tests_on_data",
    "benjamini_yekutieli",
    "between_groups_agreement",
    "calibration",
    "decompose_between_groups",
    "group_agreement",
    "judge_report",
    "model_agreement",
    "ppi_mean",
    "ppi_prevalence",
    "ppi_prevalence_from_labels",
    "ppi_prevalence_on_data",
    "self_consistency",
    "self_consistency_on_data",
    "wilson_interval",
]

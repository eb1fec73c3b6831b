"""Coders that are models: may a model replace a coder, and what do its labels say.

- :func:`alt_test` / :func:`alt_tests`: the alternative annotator test (Calderon, Reichart &
  Dror 2025), as the authors' reference code computes it;
- :func:`ppi_prevalence` / :func:`ppi_mean`: prediction-powered estimates with PPI++
  intervals (Angelopoulos et al. 2023), equal to ``ppi_py.ppi_mean_ci``;
- :func:`self_consistency`, :func:`calibration` and :func:`judge_report`: judge diagnostics.

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
from metrics.models.judge import (
    CalibrationBin,
    CalibrationResult,
    SelfConsistency,
    calibration,
    judge_report,
    self_consistency,
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
    "AltTestRefusedError",
    "AltTestResult",
    "CalibrationBin",
    "CalibrationResult",
    "CategoryEstimate",
    "HumanTest",
    "ModelAgreement",
    "PPIMean",
    "PPIResult",
    "SelfConsistency",
    "alt_test",
    "alt_tests",
    "alt_tests_on_data",
    "benjamini_yekutieli",
    "calibration",
    "judge_report",
    "model_agreement",
    "ppi_mean",
    "ppi_prevalence",
    "ppi_prevalence_from_labels",
    "ppi_prevalence_on_data",
    "self_consistency",
    "wilson_interval",
]

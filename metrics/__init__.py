"""Inter-coder agreement coefficients, distances and their uncertainty.

A pure numpy/scipy library: it never imports Django, DRF or Celery, so it can be used on its
own (``from metrics import krippendorff_alpha``) as well as by the server's workers.

- data: :class:`ReliabilityData` (coders × items codes, missing values, value domain);
- coefficients: observed agreement, S, pi, multi-pi, kappa, multi-kappa, Light's kappa,
  weighted kappa, AC1/AC2, Brennan–Prediger, Krippendorff's alpha (any distance), the
  kappa-like alpha, prevalence and bias indices; each with a ``decompose_*`` twin for the
  bootstrap;
- distances: nominal, ordinal, interval, ratio, matrices, callables, set and hierarchy
  distances, looked up by name with :func:`get_distance`;
- uncertainty: item bootstrap, analytic standard errors, true-agreement intervals;
- :func:`report`: everything at once as the JSON contract of ``python -m metrics report``.
"""

from __future__ import annotations

from metrics._stats import Decomposition
from metrics.coefficients.agreement import (
    LightKappaResult,
    bennett_s,
    cohen_kappa,
    conger_kappa,
    decompose_bennett_s,
    decompose_cohen_kappa,
    decompose_conger_kappa,
    decompose_fleiss_pi,
    decompose_light_kappa,
    decompose_observed_agreement,
    decompose_scott_pi,
    fleiss_pi,
    light_kappa,
    observed_agreement,
    scott_pi,
)
from metrics.coefficients.alpha import (
    alpha_individual,
    coincidence_matrix,
    decompose_alpha_individual,
    decompose_krippendorff_alpha,
    krippendorff_alpha,
)
from metrics.coefficients.gwet import (
    brennan_prediger,
    decompose_brennan_prediger,
    decompose_gwet_ac1,
    gwet_ac1,
)
from metrics.coefficients.prevalence import (
    AnnotatorBias,
    KappaComparison,
    annotator_bias,
    bias_index,
    contingency_table,
    decompose_kappa_max,
    decompose_pabak,
    kappa_comparison,
    kappa_max,
    pabak,
    prevalence_closed_form,
    prevalence_index,
)
from metrics.coefficients.result import CoefficientResult
from metrics.coefficients.weighted import decompose_weighted_kappa, weighted_kappa
from metrics.data import MISSING, ReliabilityData, as_reliability_data
from metrics.diagnostics import (
    CoderDistributions,
    ContingencyMatrix,
    ItemDisagreement,
    PairwiseCoderMatrix,
    PerCategoryAgreement,
    coder_distributions,
    contingency_matrix,
    item_disagreement,
    pairwise_coder_matrix,
    per_category_agreement,
)
from metrics.distances import (
    CallableDistance,
    Distance,
    IntervalDistance,
    MatrixDistance,
    NominalDistance,
    OrdinalDistance,
    RatioDistance,
    distance_names,
    get_distance,
)
from metrics.distances.hierarchy import (
    HIERARCHY_DISTANCES,
    CategoryTree,
    MelamedResnik,
    TreeDistance,
)
from metrics.distances.sets import (
    SET_DISTANCES,
    SetDistance,
    dice_distance,
    jaccard_distance,
    masi_ap_distance,
    masi_distance,
    passonneau_distance,
)
from metrics.report import report
from metrics.uncertainty.analytic import (
    AnalyticResult,
    CategoryResult,
    cohen_kappa_se,
    fleiss_kappa_se,
    linearized_se,
)
from metrics.uncertainty.bootstrap import (
    BootstrapResult,
    bootstrap,
    bootstrap_chunk,
    bootstrap_combine,
    bootstrap_difference,
    bootstrap_difference_unpaired,
)
from metrics.uncertainty.interpretation import (
    SCALES,
    Band,
    Interpretation,
    IntervalInterpretation,
    ReplicateInterpretation,
    interpret_interval,
    interpret_replicates,
    interpret_value,
)
from metrics.uncertainty.true_agreement import (
    PairTrueAgreement,
    TrueAgreementInterval,
    true_agreement_by_pair,
    true_agreement_interval,
)

__version__ = "0.1.0"

__all__ = [
    "HIERARCHY_DISTANCES",
    "MISSING",
    "SCALES",
    "SET_DISTANCES",
    "AnalyticResult",
    "AnnotatorBias",
    "Band",
    "BootstrapResult",
    "CallableDistance",
    "CategoryResult",
    "CategoryTree",
    "CoderDistributions",
    "CoefficientResult",
    "ContingencyMatrix",
    "Decomposition",
    "Distance",
    "Interpretation",
    "IntervalDistance",
    "IntervalInterpretation",
    "ItemDisagreement",
    "KappaComparison",
    "LightKappaResult",
    "MatrixDistance",
    "MelamedResnik",
    "NominalDistance",
    "OrdinalDistance",
    "PairTrueAgreement",
    "PairwiseCoderMatrix",
    "PerCategoryAgreement",
    "RatioDistance",
    "ReliabilityData",
    "ReplicateInterpretation",
    "SetDistance",
    "TreeDistance",
    "TrueAgreementInterval",
    "__version__",
    "alpha_individual",
    "annotator_bias",
    "as_reliability_data",
    "bennett_s",
    "bias_index",
    "bootstrap",
    "bootstrap_chunk",
    "bootstrap_combine",
    "bootstrap_difference",
    "bootstrap_difference_unpaired",
    "brennan_prediger",
    "coder_distributions",
    "cohen_kappa",
    "cohen_kappa_se",
    "coincidence_matrix",
    "conger_kappa",
    "contingency_matrix",
    "contingency_table",
    "decompose_alpha_individual",
    "decompose_bennett_s",
    "decompose_brennan_prediger",
    "decompose_cohen_kappa",
    "decompose_conger_kappa",
    "decompose_fleiss_pi",
    "decompose_gwet_ac1",
    "decompose_kappa_max",
    "decompose_krippendorff_alpha",
    "decompose_light_kappa",
    "decompose_observed_agreement",
    "decompose_pabak",
    "decompose_scott_pi",
    "decompose_weighted_kappa",
    "dice_distance",
    "distance_names",
    "fleiss_kappa_se",
    "fleiss_pi",
    "get_distance",
    "gwet_ac1",
    "interpret_interval",
    "interpret_replicates",
    "interpret_value",
    "item_disagreement",
    "jaccard_distance",
    "kappa_comparison",
    "kappa_max",
    "krippendorff_alpha",
    "light_kappa",
    "linearized_se",
    "masi_ap_distance",
    "masi_distance",
    "observed_agreement",
    "pabak",
    "pairwise_coder_matrix",
    "passonneau_distance",
    "per_category_agreement",
    "prevalence_closed_form",
    "prevalence_index",
    "report",
    "scott_pi",
    "true_agreement_by_pair",
    "true_agreement_interval",
    "weighted_kappa",
]

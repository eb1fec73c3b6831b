"""The reliability report by the GRRAS checklist (Kottner et al. 2011): what the study
records, the report of a round and of the study in HTML, Markdown, LaTeX and JSON, every
number equal to the stored result.

The k2011 world's round R2 is Krippendorff's (2011) data: alpha 0.743 is published
(docs/references.md#k2011-reliability-data); the intervals were recorded from the world's
fixed labels and bootstrap seed.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.urls import reverse

from computations.models import Computation
from pages.number_text import number_text
from pages.reliability_report import GRRAS
from studies.models import GRRAS_STUDY_FIELDS, Annotation, Role, Round, Study
from tests.factories import MembershipFactory, UserFactory
from tests.pages.conftest import PagesWorld
from tests.pages.k2011_world import k2011_world

pytestmark = pytest.mark.django_db

#: What a study records, one sentence per field.
RECORDED = {
    "subject_population": "Forum posts of 2023 from three news sites",
    "rater_population": "Student assistants of the institute",
    "background": "No earlier reliability study of this scheme exists",
    "sample_size_rationale": "Twelve items, as in Krippendorff's worked example",
    "sampling": "A simple random sample of posts",
    "blinding": "Each coder saw the post only, blind to the other coders' labels",
    "independence": "The coders labelled independently, without discussion",
    "rater_training": "Two hours of training on the guideline",
    "practical_relevance": "Alpha below 0.8: the labels need adjudication before use",
}


@pytest.fixture
def k2011(study: Study, django_capture_on_commit_callbacks: Any) -> PagesWorld:
    return k2011_world(study, django_capture_on_commit_callbacks)


def _get(client: Any, name: str, *args: Any) -> str:
    response = client.get(reverse(name, args=args))
    assert response.status_code == 200, response.content[:300]
    return response.content.decode()


def _stored_numbers(computation: Computation) -> set[str]:
    """Every coefficient value and interval end of a stored result, as the report writes it."""
    numbers = set()
    for entry in (computation.results or {})["coefficients"].values():
        numbers.add(number_text(entry["value"]))
        ci = entry.get("ci") or {}
        numbers.update(number_text(ci[end]) for end in ("low", "high") if end in ci)
    return numbers


def _decimals(text: str) -> set[str]:
    return set(re.findall(r"(?<![\d.])-?\d+\.\d{3}(?![\d.])", text))


# -- what the study records -----------------------------------------------------------------


def test_the_api_records_and_returns_what_the_report_cannot_infer(
    manager_client: Any, study: Study
) -> None:
    response = manager_client.patch(f"/api/v1/studies/{study.pk}/", RECORDED, format="json")
    assert response.status_code == 200, response.json()
    body = manager_client.get(f"/api/v1/studies/{study.pk}/").json()
    assert {name: body[name] for name in GRRAS_STUDY_FIELDS} == RECORDED
    created = manager_client.post(
        "/api/v1/studies/", {"name": "With design", "sampling": "All posts"}, format="json"
    ).json()
    assert created["sampling"] == "All posts"
    assert created["blinding"] == ""


def test_the_admin_edits_the_reporting_fields(admin_client: Any, study: Study) -> None:
    html = admin_client.get(reverse("admin:studies_study_change", args=[study.pk])).content
    text = html.decode()
    assert "Reliability report (GRRAS, Kottner et al. 2011)" in text
    for name in GRRAS_STUDY_FIELDS:
        assert f'name="{name}"' in text


def test_a_signed_in_user_creates_a_study_on_the_site_with_its_design(site_client: Any) -> None:
    user = UserFactory(username="newcomer")
    client = site_client(user)
    page = _get(client, "pages:study-create")
    assert "You become the study's manager." in page
    client.get(reverse("pages:study-create"))
    token = client.cookies["csrftoken"].value
    response = client.post(
        reverse("pages:study-create"),
        {"name": "Posts", "sampling": "A random sample", "csrfmiddlewaretoken": token},
    )
    study = Study.objects.get(name="Posts")
    assert response.status_code == 302
    assert response["Location"] == reverse("pages:study-detail", args=[study.pk])
    assert study.sampling == "A random sample"
    assert study.memberships.get().role == Role.MANAGER
    listed = _get(client, "pages:study-list")
    assert f'<a href="{reverse("pages:study-create")}">Create a study</a>' in listed


def test_only_managers_edit_the_study_on_the_site(study: Study, site_client: Any) -> None:
    viewer = UserFactory()
    MembershipFactory(study=study, user=viewer, role=Role.VIEWER)
    manager = UserFactory()
    MembershipFactory(study=study, user=manager, role=Role.MANAGER)
    url = reverse("pages:study-edit", args=[study.pk])
    assert site_client(viewer).get(url).status_code == 403
    client = site_client(manager)
    client.get(url)
    response = client.post(
        url,
        {
            "name": study.name,
            "blinding": "Blind",
            "csrfmiddlewaretoken": client.cookies["csrftoken"].value,
        },
    )
    assert response.status_code == 302
    study.refresh_from_db()
    assert study.blinding == "Blind"


# -- the report -----------------------------------------------------------------------------


def test_a_rounds_report_names_every_missing_grras_item(
    k2011: PagesWorld, viewer: Any, site_client: Any
) -> None:
    client = site_client(viewer)
    study, r2 = k2011.study, k2011.rounds[1]
    markdown = _get(client, "pages:round-reliability-download", study.pk, r2.pk, "md")
    for number in (3, 4, 5, 6, 7, 8, 9, 12, 14):
        item = next(i for i in GRRAS if i.number == number)
        assert f"{number}. **{item.section}**: {item.asks}" in markdown
    assert (
        "3. **Introduction**: Specify the subject population of interest.\n"
        "   **Missing.** Record the subject population on the study's reporting form." in markdown
    )
    assert (
        "6. **Methods**: Explain how the sample size was chosen; state the determined "
        "number of raters, subjects/objects and replicate observations.\n"
        "   **Missing.** Record how the sample size was chosen on the study's reporting form."
        in markdown
    )
    report = json.loads(_get(client, "pages:round-reliability-download", study.pk, r2.pk, "json"))
    assert report["missing"] == [3, 4, 5, 6, 7, 8, 9, 12, 14]
    assert [item["item"] for item in report["items"]] == list(range(1, 16))
    html = _get(client, "pages:round-reliability", study.pk, r2.pk)
    assert "<strong>9 of 15 GRRAS items missing</strong>: 3, 4, 5, 6, 7, 8, 9, 12, 14" in html
    latex = _get(client, "pages:round-reliability-download", study.pk, r2.pk, "tex")
    assert (
        r"\item[7. Methods] \textbf{Missing.} Record the sampling on the study's "
        "reporting form." in latex
    )


def test_a_complete_study_reports_every_item_in_the_methods_and_results(
    k2011: PagesWorld, viewer: Any, site_client: Any
) -> None:
    study, r2 = k2011.study, k2011.rounds[1]
    Study.objects.filter(pk=study.pk).update(**RECORDED)
    client = site_client(viewer)
    markdown = _get(client, "pages:round-reliability-download", study.pk, r2.pk, "md")
    assert "**Missing.**" not in markdown
    methods = markdown.split("## Methods\n\n")[1].split("\n")[0]
    assert methods.startswith(
        "The study “Study A” asks one question: value (kind: nominal category; categories: 1, "
        "2, 3, 4, 5), worded “What about value?”. Subjects: Forum posts of 2023 from three "
        "news sites. Coders: Student assistants of the institute. Sample size: Twelve items, as in "
        "Krippendorff's worked example. Sampling: A simple random sample of posts. Rating "
        "process: Each coder saw the post only, blind to the other coders' labels. "
        "Independence: The coders labelled independently, without discussion. For question "
        "value (nominal level), agreement was estimated with observed agreement, "
        "Bennett's S, Scott's / Fleiss' pi, Cohen's kappa / multi-kappa, Krippendorff's alpha, "
        "Light's kappa, Gwet's AC1 / AC2 and Brennan–Prediger. Intervals are 95 % BCa "
        "bootstrap intervals over items (200 replicates, seed 0)."
    )
    assert "Computed by the agreement server (metrics library 0.1.0)" in methods
    results = markdown.split("## Results\n\n")[1].split("\n")[0]
    assert results == (
        "In round R2, question value: 4 coders labelled 12 items (41 annotations; 11 items "
        "labelled by two coders or more). Coders' training and experience: Two hours of "
        "training on the guideline. Round R2, question value: Krippendorff's alpha 0.743 "
        "(95 % BCa interval 0.381 to 1.000; tentative on Krippendorff's scale); observed "
        "agreement 0.818 (95 % BCa interval 0.522 to 0.958)."
    )
    html = _get(client, "pages:round-reliability", study.pk, r2.pk)
    assert '<p class="report-complete">Every GRRAS item is reported.</p>' in html
    latex = _get(client, "pages:round-reliability-download", study.pk, r2.pk, "tex")
    assert r"\paragraph{Results.} In round R2, question value: 4 coders labelled 12 items" in latex
    assert (
        r"Krippendorff's alpha 0.743 (95 \% BCa interval 0.381 to 1.000; tentative on "
        "Krippendorff's scale)"
    ) in latex


def test_every_number_of_the_report_is_the_stored_result(
    k2011: PagesWorld, viewer: Any, site_client: Any
) -> None:
    study, r2 = k2011.study, k2011.rounds[1]
    computation = k2011.computations[1]
    stored = _stored_numbers(computation)
    client = site_client(viewer)
    for fmt in ("md", "tex"):
        text = _get(client, "pages:round-reliability-download", study.pk, r2.pk, fmt)
        assert _decimals(text) == stored, fmt
        assert computation.fingerprint in text
        assert f"#{computation.pk}" in text
    html = _get(client, "pages:round-reliability", study.pk, r2.pk)
    body = html.split('<article class="reliability-report">')[1]
    assert _decimals(body) == stored
    assert f"<code>{computation.fingerprint}</code>" in body
    report = json.loads(_get(client, "pages:round-reliability-download", study.pk, r2.pk, "json"))
    (result,) = report["results"]
    assert result["computation"] == computation.pk
    assert result["metrics_version"] == computation.metrics_version == "0.1.0"
    assert result["fingerprint"] == computation.fingerprint
    assert (result["n_items"], result["n_coders"], result["n_annotations"]) == (12, 4, 41)
    stored_coefficients = (computation.results or {})["coefficients"]
    for entry in result["coefficients"]:
        saved = stored_coefficients[entry["coefficient"]]
        assert entry["value"] == saved["value"]
        assert entry["ci"]["low"] == saved["ci"]["low"]
        assert entry["ci"]["high"] == saved["ci"]["high"]
        assert entry["ci"]["method"] == saved["ci"]["method"] == "bca"
    assert len(result["coefficients"]) == len(stored_coefficients) == 8


def test_the_study_report_covers_every_round_and_marks_changed_annotations(
    k2011: PagesWorld, viewer: Any, site_client: Any
) -> None:
    study, r1 = k2011.study, k2011.rounds[0]
    Annotation.objects.filter(pk=Annotation.objects.filter(round=r1).order_by("id")[0].pk).delete()
    client = site_client(viewer)
    markdown = _get(client, "pages:study-reliability-download", study.pk, "md")
    assert markdown.startswith("# Interrater reliability and agreement of “Study A” (all rounds)")
    assert "| R1 | value | Krippendorff's alpha |" in markdown
    assert (
        "| R2 | value | Krippendorff's alpha | 0.743 | [0.381, 1.000] 95 % BCa | tentative on "
        "Krippendorff's scale |"
    ) in markdown
    assert (
        "| R2 | value | Observed agreement | 0.818 | [0.522, 0.958] 95 % BCa | no benchmark scale |"
    ) in markdown
    assert f"| #{k2011.computations[0].pk} (annotations changed since) |" in markdown
    assert "Round R1, question value: Krippendorff's alpha" in markdown
    assert "(The annotations changed after this result: request it again.)" in markdown
    stored = _stored_numbers(k2011.computations[0]) | _stored_numbers(k2011.computations[1])
    assert _decimals(markdown) == stored


def test_a_round_without_results_says_what_to_do(
    k2011: PagesWorld, viewer: Any, site_client: Any
) -> None:
    study = k2011.study
    empty = Round.objects.create(study=study, name="R3", position=3)
    client = site_client(viewer)
    html = _get(client, "pages:round-reliability", study.pk, empty.pk)
    assert (
        '<p class="report-empty">No stored result yet. Next: request a computation of each '
        f'question on the <a href="{reverse("pages:study-detail", args=[study.pk])}">study '
        "page</a>; this report then fills in by itself.</p>"
    ) in html
    report = json.loads(
        _get(client, "pages:round-reliability-download", study.pk, empty.pk, "json")
    )
    assert report["missing"] == [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
    assert report["items"][12]["missing"] == (
        "Request a computation of each question in this round on the study page."
    )


def test_the_report_reads_with_a_fixed_number_of_queries(
    k2011: PagesWorld, viewer: Any, site_client: Any, django_assert_max_num_queries: Any
) -> None:
    client = site_client(viewer)
    url = reverse("pages:study-reliability-download", args=[k2011.study.pk, "json"])
    client.get(url)
    with django_assert_max_num_queries(14):
        assert client.get(url).status_code == 200


def test_user_written_text_is_escaped_in_html_and_latex(
    k2011: PagesWorld, viewer: Any, site_client: Any
) -> None:
    study, r2 = k2011.study, k2011.rounds[1]
    Study.objects.filter(pk=study.pk).update(sampling="<script>x</script> 50% & $5_a")
    client = site_client(viewer)
    html = _get(client, "pages:round-reliability", study.pk, r2.pk)
    assert "<script>x</script>" not in html
    assert "&lt;script&gt;x&lt;/script&gt; 50% &amp; $5_a" in html
    latex = _get(client, "pages:round-reliability-download", study.pk, r2.pk, "tex")
    assert r"Sampling: <script>x</script> 50\% \& \$5\_a." in latex

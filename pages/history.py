"""The history page of a study: every coefficient across rounds, as small multiples.

One chart per coefficient on one grid (each question a line with its confidence band, in
the same colour and dash on every chart), the legend as an HTML list beside the grid (it
never overlaps the charts, however many questions or rounds), and a coefficient selector
(plain links: ``?coefficient=alpha`` shows that chart alone, wide, with its table open).
Every number comes from ``study_history``; nothing is computed.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import SafeString
from django.views.decorators.http import require_GET

from computations.selectors import study_history
from pages import charts
from pages.dashboard import pending_computations
from pages.selectors import CoefficientHistory, history_by_coefficient
from pages.views import _study_for, site_login_required

#: The drawn size of a chart of the grid (it fills its column) and of a chosen one (drawn
#: twice: wide for a wide window, small for a phone, so that its text stays legible).
SMALL = (380, 240)
WIDE = (760, 340)


@dataclass(frozen=True)
class Panel:
    history: CoefficientHistory
    svg: SafeString
    #: The same chart drawn small, for a narrow window (the chosen coefficient only).
    narrow: SafeString | None = None


def _chart(history: CoefficientHistory, size: tuple[int, int], suffix: str = "") -> SafeString:
    width, height = size
    return charts.history_chart(
        history,
        chart_id=f"history-{history.coefficient}{suffix}",
        legend=False,
        width=width,
        height=height,
        y_label="Value",
    )


@require_GET
@site_login_required
def study_history_view(request: HttpRequest, study_pk: int) -> HttpResponse:
    study, role = _study_for(request, study_pk)
    histories = history_by_coefficient(study_history(study=study), chosen=study.benchmark_scale)
    chosen = request.GET.get("coefficient") or ""
    known = {history.coefficient for history in histories}
    unknown = chosen if chosen and chosen not in known else ""
    shown = [h for h in histories if h.coefficient == chosen] if chosen in known else histories
    if chosen in known:
        panels = [Panel(h, _chart(h, WIDE), _chart(h, SMALL, "-narrow")) for h in shown]
    else:
        panels = [Panel(h, _chart(h, SMALL)) for h in shown]
    context = {
        "study": study,
        "role": role,
        "histories": histories,
        "panels": panels,
        "chosen": chosen if chosen in known else "",
        "unknown": unknown,
        "legend": charts.legend_of(histories),
        "pending": pending_computations(study=study),
    }
    return render(request, "pages/study_history.html", context)

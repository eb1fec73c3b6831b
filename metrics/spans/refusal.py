"""Refusals of span data with a stable code, for callers that name their own way out.

A :class:`RefusalError` is the ``ValueError`` a span measure raises where it cannot read the
data as given and an option of the library would let it. It keeps the problem (which document,
coder and units) apart from the library's remedy (the option to pass), so that the command
line and the server can state the same problem with their own option's name; its ``code``
stays the same whatever the wording. The span report carries the code as ``reason_code``
and the problem as ``reason_problem`` next to the library's ``reason``.
"""

from __future__ import annotations

#: One coder's units of a category overlap or nest: α_U refuses them (``overlapping="merge"``).
OVERLAPPING_UNITS = "overlapping_units"
#: A position is covered by units of two categories: it has no single token label
#: (``overlaps="first"``).
OVERLAPPING_TOKEN_LABELS = "overlapping_token_labels"

__all__ = ["OVERLAPPING_TOKEN_LABELS", "OVERLAPPING_UNITS", "RefusalError", "refusal_text"]


def refusal_text(problem: str, remedy: str) -> str:
    """How a refusal reads: its problem, then a remedy (the library's or a caller's)."""
    return f"{problem} {remedy}"


class RefusalError(ValueError):
    """Span data a measure refuses: ``code`` (stable), ``problem`` and ``remedy`` (texts);
    ``str()`` is :func:`refusal_text` of the two.

    Examples
    --------
    >>> refusal = RefusalError(OVERLAPPING_UNITS, "Units overlap.", "Merge them.")
    >>> refusal.code, str(refusal)
    ('overlapping_units', 'Units overlap. Merge them.')
    """

    def __init__(self, code: str, problem: str, remedy: str) -> None:
        super().__init__(refusal_text(problem, remedy))
        self.code = code
        self.problem = problem
        self.remedy = remedy

"""How the pages write a question's labels: a set as its codes in the declared order joined
by commas ("economy, politics"), a hierarchy node as its path ("news/economy"), a category
as its code, a number as its canonical text.

The worker stores labels in its diagnostics as JSON: a set as a list of codes (or, in the
coincidence matrix, as codes joined by ``|``), a node or a category as its code. Pages never
show those shapes as they are.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from studies.kinds import ValueForm
from studies.labels import SET_SEPARATOR, Label, LabelScheme, format_number
from studies.models import Question

MEMBER_SEPARATOR = ", "


class LabelText:
    """The text of one question's labels, for its pages."""

    def __init__(self, scheme: LabelScheme) -> None:
        self.scheme = scheme
        self._rank = {code: scheme.rank_by_id[pk] for code, pk in scheme.id_by_code.items()}
        self._path = {
            code: scheme.path_by_id.get(pk, code) for code, pk in scheme.id_by_code.items()
        }

    @classmethod
    def for_question(cls, question: Question) -> LabelText:
        return cls(LabelScheme.for_question(question))

    def _members(self, codes: Iterable[Any]) -> str:
        ordered = sorted(
            (str(code) for code in codes), key=lambda c: (self._rank.get(c, 1 << 30), c)
        )
        return MEMBER_SEPARATOR.join(ordered)

    def rank(self, code: Any) -> tuple[int, str]:
        """A category's place in the declared order (unknown codes last, by text)."""
        return self._rank.get(str(code), 1 << 30), str(code)

    def stored(self, value: Any) -> str:
        """A label as a worker stored it in a result (code, list of codes, ``a|b``, number)."""
        if isinstance(value, list | tuple):
            return self._members(value)
        if isinstance(value, bool):
            return str(value)
        if isinstance(value, int | float):
            return format_number(value)
        text = str(value)
        if self.scheme.spec.form is ValueForm.CATEGORY_SET:
            return self._members(text.split(SET_SEPARATOR))
        if self.scheme.spec.category_tree:
            return self._path.get(text, text)
        return text

    def annotation(self, label: Label) -> str:
        """A stored annotation's label ``(category_id, number, category_set)``."""
        category_id, _, category_set = label
        if category_set is not None:
            codes = (self.scheme.code_by_id.get(pk, f"#{pk}") for pk in category_set)
            return self._members(codes)
        if category_id is not None and self.scheme.spec.category_tree:
            return self.scheme.path_by_id.get(category_id, f"#{category_id}")
        return self.scheme.text(label)

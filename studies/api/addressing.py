"""The one way the API names a study's questions and rounds, in bodies and query strings.

``QuestionField`` and ``RoundField`` take an id or the question's key / the round's name and
give the study's ``Question`` / ``Round`` (the serializer's context holds ``study``). The
rule is ``studies.selectors``': an integer, or text of digits only, is an id first; when the
study has no question (round) with that id, or the value is other text, it is the key
(name). A value that names nothing in the study is a 400 on that parameter, with the code
``unknown_question`` / ``unknown_round``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from studies.models import Coder, Question, Round, Study
from studies.selectors import coder_resolve, question_resolve, round_resolve

ID_OR_TEXT_SCHEMA: dict[str, Any] = {
    "oneOf": [{"type": "integer", "minimum": 1}, {"type": "string"}],
}


class _StudyObjectField(serializers.Field):
    """An id or a key / name of an object of ``context["study"]``; gives the object."""

    noun: ClassVar[str]  # "question"
    text_name: ClassVar[str]  # "key"
    unknown_code: ClassVar[str]  # "unknown_question"

    default_error_messages = {
        "invalid": "Give an id (an integer) or a {noun}'s {text_name}.",
        "blank": "This field may not be blank.",
        "null_characters": "NUL characters are not allowed.",
    }

    def __init__(self, *, allow_blank: bool = False, **kwargs: Any) -> None:
        self.allow_blank = allow_blank
        super().__init__(**kwargs)

    def find(self, *, study: Study, ref: int | str) -> Any:
        raise NotImplementedError

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, bool) or not isinstance(data, int | str):
            self.fail("invalid", noun=self.noun, text_name=self.text_name)
        text = str(data).strip()
        if not text:
            if self.allow_blank:
                return None
            self.fail("blank")
        if "\x00" in text:
            self.fail("null_characters")
        found = self.find(study=self.context["study"], ref=data)
        if found is None:
            raise serializers.ValidationError(
                f"No {self.noun} {text!r} in this study.", code=self.unknown_code
            )
        return found

    def to_representation(self, value: Any) -> Any:
        return value.pk


@extend_schema_field(ID_OR_TEXT_SCHEMA)
class QuestionField(_StudyObjectField):
    """A question of the study: its id, or its key."""

    noun = "question"
    text_name = "key"
    unknown_code = "unknown_question"

    def find(self, *, study: Study, ref: int | str) -> Question | None:
        return question_resolve(study=study, ref=ref)


@extend_schema_field(ID_OR_TEXT_SCHEMA)
class RoundField(_StudyObjectField):
    """A round of the study: its id, or its name."""

    noun = "round"
    text_name = "name"
    unknown_code = "unknown_round"

    def find(self, *, study: Study, ref: int | str) -> Round | None:
        return round_resolve(study=study, ref=ref)


@extend_schema_field(ID_OR_TEXT_SCHEMA)
class CoderField(_StudyObjectField):
    """A coder of the study: its id, or its key."""

    noun = "coder"
    text_name = "key"
    unknown_code = "unknown_coder"

    def find(self, *, study: Study, ref: int | str) -> Coder | None:
        return coder_resolve(study=study, ref=ref)


QUESTION_HELP = "The question's id, or its key (digits are an id first, then a key)."
ROUND_HELP = "The round's id, or its name (digits are an id first, then a name)."
CODER_HELP = "The coder's id, or its key (digits are an id first, then a key)."

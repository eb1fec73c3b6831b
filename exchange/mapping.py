"""Mapping an export file's own names onto the study's, for every import format.

A parser (``exchange.formats``) reports the file in the tool's terms: a field name per
label (Label Studio ``from_name``...), labels as the annotators chose them, annotator
names. This module maps them onto the study, the same way whatever the format:

- tool fields onto questions (``question_map``; a field mapped to null is ignored, with
  every record of it, rejected or not), for labels (:func:`fields_to_questions`) and span
  units (:func:`spans_to_questions`) alike;
- labels onto a question's category codes (:class:`LabelMatcher`): an explicit
  ``category_map`` entry first (null drops the label), then the code itself, then, with
  ``case_insensitive_categories``, the one code equal to the label ignoring case and
  surrounding whitespace;
- annotator names onto existing coders (``coder_map``: name -> coder key, or coder id);
  names it does not map stay the coder's key, as the annotation writer takes them.

The options arrive as JSON text from the API's form fields or query string and from the
admin form; ``*_from_text`` read them into the shapes the import service takes, raising
:class:`MappingOptionError` with the message a 400 shows.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeAlias, TypeGuard, TypeVar

from django.core.exceptions import ValidationError

from exchange.formats import ParsedFile, ParsedRow, ParsedSpan, Rejection
from exchange.formats.base import ImportErrorCode, ParsedRegion
from studies.closest import category_hint
from studies.kinds import Kind, ValueForm
from studies.kinds.values import LabelError, flat_json_list
from studies.labels import PATH_SEPARATOR, SET_SEPARATOR, LabelScheme


class MappingErrorCode:
    AMBIGUOUS_CATEGORY = "ambiguous_category"
    UNKNOWN_CATEGORY = "unknown_category"
    UNKNOWN_CODER = "unknown_coder"
    UNKNOWN_QUESTION = "unknown_question"
    NOT_CATEGORICAL = "not_categorical"


# Tool fields onto questions --------------------------------------------------------------


@dataclass
class FieldGroups:
    """The parsed rows per question key, and what mapping the fields left out.

    ``ignored`` counts the records (rows and rejections) of each field mapped to null;
    ``rejections`` are the parser's rejections that still stand, then one per field that
    maps to no question.
    """

    rows: dict[str, list[ParsedRow]] = field(default_factory=dict)
    ignored: dict[str, int] = field(default_factory=dict)
    rejections: list[Rejection] = field(default_factory=list)


def _is_ignored(tool_field: str | None, question_map: Mapping[str, str | None]) -> bool:
    return tool_field is not None and tool_field in question_map and not question_map[tool_field]


def _question_of(
    row_field: str | None,
    *,
    question_key: str | None,
    question_map: Mapping[str, str | None],
    question_keys: set[str],
    single_field: bool,
) -> str | None:
    """The question key a (not ignored) field goes to; None when it maps to none."""
    if row_field is None:
        return question_key
    if row_field in question_map:
        return question_map[row_field]
    if row_field in question_keys:
        return row_field
    if question_key and single_field:
        return question_key
    return None


def _single_field(parsed: ParsedFile) -> bool:
    """Whether the file's labels and spans name one tool field only."""
    fields = {row.field for row in parsed.rows if row.field is not None}
    fields |= {span.field for span in parsed.spans if span.field is not None}
    return len(fields) == 1


def _question_required() -> ValidationError:
    return ValidationError(
        {
            "question": [
                ValidationError(
                    "A question is required: this file does not name its questions.",
                    code="required",
                )
            ]
        }
    )


def _unmapped(row_field: str | None, count: int, source: str, what: str) -> Rejection:
    return Rejection(
        source=source,
        field="question",
        code=ImportErrorCode.UNMAPPED_FIELD,
        detail=(
            f"{count} {what} of the tool's field {row_field!r} map to no question: "
            "add it to question_map (a question key, or null to ignore it)."
        ),
        tool_field=row_field,
    )


def fields_to_questions(
    parsed: ParsedFile,
    *,
    question_key: str | None,
    question_map: Mapping[str, str | None],
    question_keys: set[str],
) -> FieldGroups:
    """Group the parsed rows by question key; drop the records of ignored fields.

    A field goes to ``question_map[field]`` (null: ignored), else to the question with that
    key, else to ``question_key`` when the file has one field only; rows without a field go
    to ``question_key``. Raises ``ValidationError`` on ``question`` when such rows exist
    and no question was given.
    """
    groups = FieldGroups()
    for rejection in parsed.rejected:
        if rejection.tool_field is not None and _is_ignored(rejection.tool_field, question_map):
            groups.ignored[rejection.tool_field] = groups.ignored.get(rejection.tool_field, 0) + 1
        else:
            groups.rejections.append(rejection)
    single_field = _single_field(parsed)
    unmapped: dict[str | None, list[ParsedRow]] = {}
    for row in parsed.rows:
        if row.field is not None and _is_ignored(row.field, question_map):
            groups.ignored[row.field] = groups.ignored.get(row.field, 0) + 1
            continue
        key = _question_of(
            row.field,
            question_key=question_key,
            question_map=question_map,
            question_keys=question_keys,
            single_field=single_field,
        )
        if key is None:
            unmapped.setdefault(row.field, []).append(row)
        else:
            groups.rows.setdefault(key, []).append(row)
    if None in unmapped:
        raise _question_required()
    groups.rejections.extend(
        _unmapped(row_field, len(rows), rows[0].source, "label(s)")
        for row_field, rows in unmapped.items()
    )
    return groups


@dataclass
class SpanGroups:
    """The parsed spans per question key, and what mapping the fields left out.

    ``ignored`` counts the spans of each field mapped to null; ``skipped`` the
    nothing-found marks that reach no span question, by their reason (a classification
    file's empty annotations); ``rejections`` one per field that maps to no question.
    """

    spans: dict[str, list[ParsedSpan]] = field(default_factory=dict)
    ignored: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    rejections: list[Rejection] = field(default_factory=list)


def spans_to_questions(
    parsed: ParsedFile,
    *,
    question_key: str | None,
    question_map: Mapping[str, str | None],
    question_keys: set[str],
    span_keys: set[str],
) -> SpanGroups:
    """Group the parsed spans by question key, as :func:`fields_to_questions` groups labels.

    A nothing-found mark without a field goes to ``question_key`` when that is a span
    question (``span_keys``) and is counted as skipped otherwise. Raises
    ``ValidationError`` on ``question`` when units without a field exist and no question
    was given.
    """
    groups = SpanGroups()
    single_field = _single_field(parsed)
    unmapped: dict[str | None, list[ParsedSpan]] = {}
    for span in parsed.spans:
        if span.field is not None and _is_ignored(span.field, question_map):
            groups.ignored[span.field] = groups.ignored.get(span.field, 0) + 1
            continue
        if span.field is None and span.is_empty and question_key not in span_keys:
            groups.skipped[span.empty_reason] = groups.skipped.get(span.empty_reason, 0) + 1
            continue
        key = _question_of(
            span.field,
            question_key=question_key,
            question_map=question_map,
            question_keys=question_keys,
            single_field=single_field,
        )
        if key is None:
            unmapped.setdefault(span.field, []).append(span)
        else:
            groups.spans.setdefault(key, []).append(span)
    if None in unmapped:
        raise _question_required()
    groups.rejections.extend(
        _unmapped(span_field, len(spans), spans[0].source, "span record(s)")
        for span_field, spans in unmapped.items()
    )
    return groups


# Labels onto category codes --------------------------------------------------------------

CATEGORY_MAP = "category_map"
CASE_INSENSITIVE = "case_insensitive"

# A category_map option as given: file label -> code (or null), or, for one question only,
# question key -> {file label -> code (or null)}.
CategoryMapOption: TypeAlias = Mapping[str, str | Mapping[str, str | None] | None]


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class CategoryMap:
    """``category_map`` split into the entries for every question and those for one."""

    shared: Mapping[str, str | None] = field(default_factory=dict)
    by_question: Mapping[str, Mapping[str, str | None]] = field(default_factory=dict)

    @classmethod
    def from_option(cls, option: CategoryMapOption | None) -> CategoryMap:
        shared: dict[str, str | None] = {}
        by_question: dict[str, dict[str, str | None]] = {}
        for key, value in (option or {}).items():
            if isinstance(value, Mapping):
                by_question[key.strip()] = {
                    label.strip(): _stripped(target) for label, target in value.items()
                }
            else:
                shared[key.strip()] = _stripped(value)
        return cls(shared=shared, by_question=by_question)

    def errors(self, schemes: Mapping[str, LabelScheme]) -> list[ValidationError]:
        """What the map names that the study lacks; ``schemes`` are all its questions'."""
        errors: list[ValidationError] = []
        for key, entries in self.by_question.items():
            scheme = schemes.get(key)
            if scheme is None:
                errors.append(
                    ValidationError(
                        f"category_map names no question {key!r} of this study.",
                        code=MappingErrorCode.UNKNOWN_QUESTION,
                    )
                )
            elif not scheme.spec.category_valued:
                errors.append(
                    ValidationError(
                        f"category_map: question {key!r} takes numbers, not categories.",
                        code=MappingErrorCode.NOT_CATEGORICAL,
                    )
                )
            else:
                errors.extend(
                    ValidationError(
                        f"category_map maps {label!r} to {target!r}, which is not a category "
                        f"of question {key!r} {category_hint(target, scheme.id_by_code)}.",
                        code=MappingErrorCode.UNKNOWN_CATEGORY,
                    )
                    for label, target in entries.items()
                    if target is not None and _category_id(scheme, target) is None
                )
        categorical = [s for s in schemes.values() if s.spec.category_valued]
        errors.extend(
            ValidationError(
                f"category_map maps {label!r} to {target!r}, which is a category of no "
                "question of this study "
                f"{category_hint(target, [c for s in categorical for c in s.id_by_code])}.",
                code=MappingErrorCode.UNKNOWN_CATEGORY,
            )
            for label, target in self.shared.items()
            if target is not None
            and all(_category_id(scheme, target) is None for scheme in categorical)
        )
        return errors

    def for_question(self, key: str) -> dict[str, str | None]:
        return {**self.shared, **self.by_question.get(key, {})}


def _stripped(target: str | None) -> str | None:
    return target.strip() if isinstance(target, str) else None


def _name_key(kind: Kind, text: str) -> str:
    """A label text as ``LabelScheme`` looks it up: stripped, and a tree's path without its
    outer slashes."""
    text = text.strip()
    return text.strip(PATH_SEPARATOR) if kind.category_tree else text


def _names(scheme: LabelScheme) -> dict[str, int]:
    """Every name of the scheme's categories (codes, and the paths of a tree) -> its id."""
    return {**scheme.id_by_code, **scheme.id_by_path}


def _category_id(scheme: LabelScheme, text: str) -> int | None:
    return _names(scheme).get(_name_key(scheme.spec, text))


@dataclass(frozen=True)
class LabelMatch:
    """A label as it goes to the writer: ``label`` (possibly rewritten), or ``dropped``
    (mapped to null), or an ``error`` ``(code, detail)`` that rejects its row."""

    label: Any = None
    dropped: bool = False
    error: tuple[str, str] | None = None


class _LabelRejectedError(Exception):
    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


class LabelMatcher:
    """Matches one question's labels onto its category codes, for every format alike.

    A label text goes to its ``category_map`` entry first (a code or, for a tree, a path;
    null drops it), else stays as it is when it names a category, else, with
    ``case_insensitive``, goes to the one code equal to it ignoring case and surrounding
    whitespace (two such codes: rejected as ambiguous). A set's members are matched one by
    one; a set left empty is dropped. Numbers (interval and ratio questions) pass as they
    are. What is left unknown is rejected by the annotation writer; :meth:`hint` tells how
    to fix it. ``effects`` counts every rewrite: ``(label, code or None, rule) -> count``.
    """

    def __init__(
        self,
        *,
        question_key: str,
        scheme: LabelScheme,
        category_map: Mapping[str, str | None],
        case_insensitive: bool,
    ) -> None:
        self.question_key = question_key
        self.kind = scheme.spec
        self.categorical = scheme.spec.category_valued
        self.sets = scheme.spec.form is ValueForm.CATEGORY_SET
        self.codes = list(scheme.id_by_code)
        self.code_by_id = scheme.code_by_id
        #: The codes declared undirected (a relation question's symmetric labels).
        self.undirected = frozenset(scheme.code_by_id[pk] for pk in scheme.undirected_ids)
        self.names = _names(scheme)
        self.category_map = category_map
        self.case_insensitive = case_insensitive
        self.ids_by_folded: dict[str, set[int]] = {}
        for name, category_id in self.names.items():
            self.ids_by_folded.setdefault(name.casefold(), set()).add(category_id)
        self.effects: dict[tuple[str, str | None, str], int] = {}

    # Matching --------------------------------------------------------------------------

    def match(self, label: Any) -> LabelMatch:
        if not self.categorical:
            return LabelMatch(label)
        try:
            if self.sets:
                return self._match_set(label)
            text = _atom_text(label)
            if text is None:
                return LabelMatch(label)
            code, rule = self._resolve(text)
        except _LabelRejectedError as error:
            return LabelMatch(error=(error.code, error.detail))
        if rule is None:
            return LabelMatch(label)
        self._count(text, code, rule)
        return LabelMatch(dropped=True) if code is None else LabelMatch(code)

    def _match_set(self, label: Any) -> LabelMatch:
        members = _set_members(label)
        if members is None:
            return LabelMatch(label)
        resolved = [(text, *self._resolve(text)) for text in members]
        if all(rule is None for _text, _code, rule in resolved):
            return LabelMatch(label)
        for text, code, rule in resolved:
            if rule is not None:
                self._count(text, code, rule)
        kept = [code for _text, code, _rule in resolved if code is not None]
        return LabelMatch(kept) if kept else LabelMatch(dropped=True)

    def _resolve(self, text: str) -> tuple[str | None, str | None]:
        """(code, rule) of one label text: rule None leaves the text as it is."""
        key = text.strip()
        if key in self.category_map:
            return self._mapped(key, self.category_map[key]), CATEGORY_MAP
        if _name_key(self.kind, key) in self.names:
            return key, None
        if self.case_insensitive:
            ids = self.ids_by_folded.get(_name_key(self.kind, key).casefold(), set())
            if len(ids) > 1:
                codes = sorted(self.code_by_id[category_id] for category_id in ids)
                raise _LabelRejectedError(
                    MappingErrorCode.AMBIGUOUS_CATEGORY,
                    f"{key!r} matches the codes {' and '.join(map(repr, codes))} ignoring "
                    f"case: name the one it means in category_map, e.g. "
                    f"{_json({key: codes[0]})}.",
                )
            if ids:
                return self.code_by_id[next(iter(ids))], CASE_INSENSITIVE
        return key, None

    def _mapped(self, key: str, target: str | None) -> str | None:
        if target is None:
            return None
        category_id = self.names.get(_name_key(self.kind, target))
        if category_id is None:
            raise _LabelRejectedError(
                MappingErrorCode.UNKNOWN_CATEGORY,
                f"category_map maps {key!r} to {target!r}, which is not a category of "
                f"question {self.question_key!r} {category_hint(target, self.codes)}; give "
                "that question its own map: "
                f"{_json({self.question_key: {key: '<code>'}})}.",
            )
        return self.code_by_id[category_id]

    def _count(self, text: str, code: str | None, rule: str) -> None:
        effect = (text.strip(), code, rule)
        self.effects[effect] = self.effects.get(effect, 0) + 1

    # Explaining an unknown label -------------------------------------------------------------

    def hint(self, label: Any) -> str:
        """How to accept a label the writer found unknown; empty when nothing applies."""
        if not self.categorical:
            return ""
        texts = _set_members(label) if self.sets else [_atom_text(label)]
        for text in texts or []:
            if text is None:
                continue
            key = text.strip()
            if not key or _name_key(self.kind, key) in self.names or key in self.category_map:
                continue
            ids = self.ids_by_folded.get(_name_key(self.kind, key).casefold(), set())
            if len(ids) == 1 and not self.case_insensitive:
                code = self.code_by_id[next(iter(ids))]
                return (
                    f"{key!r} equals the code {code!r} ignoring case: set "
                    "case_insensitive_categories, or map it in category_map."
                )
            # The writer's message names the closest code already (studies.closest).
            close = difflib.get_close_matches(key, self.codes, n=1)
            target = close[0] if close else "<code>"
            return f"To accept {key!r}, map it in category_map: {_json({key: target})}."
        return ""

    def mappings(self) -> Iterator[tuple[str, str | None, str, int]]:
        """The rewrites done, as (label, code or None, rule, count), sorted by label."""
        for (text, code, rule), count in sorted(
            self.effects.items(), key=lambda entry: (entry[0][0], entry[0][2])
        ):
            yield text, code, rule, count


def _atom_text(label: Any) -> str | None:
    """One label's text (a code, a path, an integer code); None for other shapes."""
    if isinstance(label, str):
        return label
    if isinstance(label, int) and not isinstance(label, bool):
        return str(label)
    return None


def _set_members(label: Any) -> list[str] | None:
    """A set label's member texts (a list, ``a|b`` text, JSON list text); None otherwise."""
    members: Any = label
    if isinstance(label, str):
        text = label.strip()
        members = text.split(SET_SEPARATOR)
        if text.startswith("["):
            try:
                parsed = flat_json_list(text)
            except LabelError:  # a list of lists
                return None
            if parsed is not None:
                members = parsed
    if not isinstance(members, list):
        return None
    texts = [_atom_text(member) for member in members]
    if any(text is None for text in texts):
        return None
    return [text for text in texts if text is not None and text.strip()]


# Annotator names onto coders ------------------------------------------------------------

_WithCoder = TypeVar("_WithCoder", ParsedRow, ParsedSpan, ParsedRegion)

MAX_CODER_ID = 2**63 - 1  # a bigint primary key


def _is_coder_id(target: object) -> TypeGuard[int]:
    return isinstance(target, int) and not isinstance(target, bool) and 1 <= target <= MAX_CODER_ID


def coder_map_targets(coder_map: Mapping[str, str | int]) -> tuple[set[str], set[int]]:
    """The coder keys and ids ``coder_map`` names that could exist (text without NUL,
    ids in range), to look up in the study."""
    keys = {
        target.strip()
        for target in coder_map.values()
        if isinstance(target, str) and target.strip() and "\x00" not in target
    }
    ids = {target for target in coder_map.values() if _is_coder_id(target)}
    return keys, ids


def resolve_coder_map(
    coder_map: Mapping[str, str | int], coders: Iterable[tuple[int, str]]
) -> tuple[dict[str, str], list[ValidationError]]:
    """``{name in the file: coder key}``, and an error per target that is no coder.

    ``coders`` are the study's ``(id, key)`` among :func:`coder_map_targets`; a text target
    is a coder key, an integer target a coder id.
    """
    key_by_id = dict(coders)
    keys = set(key_by_id.values())
    resolved: dict[str, str] = {}
    errors: list[ValidationError] = []
    for name, target in coder_map.items():
        if isinstance(target, str) and target.strip() in keys:
            resolved[name.strip()] = target.strip()
        elif _is_coder_id(target) and target in key_by_id:
            resolved[name.strip()] = key_by_id[target]
        else:
            named = repr(target) if isinstance(target, str) else f"the coder id {target}"
            errors.append(
                ValidationError(
                    f"coder_map maps {name!r} to {named}, which is no coder of this study.",
                    code=MappingErrorCode.UNKNOWN_CODER,
                )
            )
    return resolved, errors


def names_to_coders(
    groups: Mapping[str, list[_WithCoder]],
    coder_keys: Mapping[str, str],
    moved: dict[str, int] | None = None,
) -> tuple[dict[str, list[_WithCoder]], dict[str, int]]:
    """The rows (or spans) with mapped annotator names replaced by coder keys, and the
    count of labels (units, marks) moved per name, added to ``moved`` when given."""
    moved = {} if moved is None else moved
    out: dict[str, list[_WithCoder]] = {}
    for key, rows in groups.items():
        out[key] = []
        for row in rows:
            coder = coder_keys.get(row.coder)
            if coder is None:
                out[key].append(row)
            else:
                moved[row.coder] = moved.get(row.coder, 0) + 1
                out[key].append(replace(row, coder=coder))
    return out, moved


# The options as JSON text -------------------------------------------------------------------


class MappingOptionError(ValueError):
    """A mapping option that is not the JSON object it should be; the message says why."""


def _json_object(name: str, text: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise MappingOptionError(f"{name} must be a JSON object.") from None
    if not isinstance(value, dict):
        raise MappingOptionError(f"{name} must be a JSON object.")
    return value


def _code_or_null(value: object) -> bool:
    return value is None or isinstance(value, str)


def question_map_from_text(text: str) -> dict[str, str | None]:
    """``{"tool field": "question key" or null}`` from its JSON text ("" = no map)."""
    mapping = _json_object("question_map", text)
    if not all(_code_or_null(target) for target in mapping.values()):
        raise MappingOptionError(
            "question_map maps field names to question keys (strings) or null."
        )
    return mapping


def category_map_from_text(text: str) -> dict[str, str | dict[str, str | None] | None]:
    """``category_map`` from its JSON text: label -> code or null, or, for one question
    only, question key -> {label -> code or null}."""
    mapping = _json_object("category_map", text)
    for key, value in mapping.items():
        if _code_or_null(value):
            continue
        if isinstance(value, dict) and all(_code_or_null(target) for target in value.values()):
            continue
        raise MappingOptionError(
            f"category_map[{key!r}] must be a category code, null, or (for question {key!r} "
            "only) an object of file label -> category code or null."
        )
    return mapping


def coder_map_from_text(text: str) -> dict[str, str | int]:
    """``{"annotator name": "coder key" or coder id}`` from its JSON text ("" = no map)."""
    mapping = _json_object("coder_map", text)
    if not all(
        (isinstance(target, str) and target.strip()) or _is_coder_id(target)
        for target in mapping.values()
    ):
        raise MappingOptionError(
            "coder_map maps annotator names to coder keys (non-empty strings) or coder ids "
            "(positive integers)."
        )
    return mapping

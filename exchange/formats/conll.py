"""CoNLL-style BIO files (``conll``): one annotator's token tags, offsets in tokens.

One token per line, its tag in the last column (whitespace-separated; the first column is
the token), a blank line between sentences, ``-DOCSTART-`` lines between documents (as in
CoNLL-2003). Documents are numbered ``1``, ``2``... in file order (text before the first
``-DOCSTART-`` is document 1 when it has tokens), so the files of several annotators of
the same corpus name the same documents; ``document_key=text`` keys them by a hash of
their tokens instead. A unit is ``[first token, last token + 1)``, token positions counted
from 0 within the document, so the question's ``span_unit`` must be ``token``.

Tags: ``O``; ``B-X`` begins a unit of type ``X``, ``I-X`` continues it (an ``I-X`` after
``O`` or another type begins one, as in IOB1); ``E-X`` / ``L-X`` ends one, ``S-X`` /
``U-X`` is a one-token unit (BIOES / BILOU). A unit never crosses a sentence boundary. A
document whose tokens are all ``O`` is "annotated, nothing found".

The file is one annotator's: the ``coder`` option, else the file name without extension;
a zip imports every member, each named after its annotator.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from exchange.formats.base import (
    ImportErrorCode,
    MalformedFileError,
    ParsedFile,
    ParsedSpan,
    ParseOptions,
    SpanUnitKind,
    decode,
    is_zip,
    register,
    stem,
    text_key,
    zip_members,
)

DOCSTART = "-DOCSTART-"
OUTSIDE = "O"
_TAG = re.compile(r"^([BIESLU])-(.+)$")
EXTENSIONS = (".conll", ".conll03", ".bio", ".iob", ".txt", ".tsv")
ALL_OUTSIDE = "document tagged O throughout"


@dataclass
class _Document:
    number: int
    first_line: int
    sentences: list[list[str]] = field(default_factory=list)
    # (begin token, end token exclusive, type, line of the first token)
    units: list[tuple[int, int, str, int]] = field(default_factory=list)
    # (source, field, code, detail) of its bad lines, rejected once its key is known
    rejections: list[tuple[str, str, str, str]] = field(default_factory=list)
    tokens: int = 0
    # the unit being read: (begin token, type, line)
    open: tuple[int, str, int] | None = None

    def close(self, end: int) -> None:
        """End the unit being read (if any) before token ``end``."""
        if self.open is not None:
            begin, kind, line = self.open
            self.units.append((begin, end, kind, line))
            self.open = None


@register(
    "conll",
    title="CoNLL BIO (one annotator per file)",
    description="Token per line, tag in the last column, -DOCSTART- between documents; "
    "offsets in tokens (for span questions counting tokens).",
)
def parse(data: bytes, options: ParseOptions) -> ParsedFile:
    if options.document_key not in ("id", "text"):
        raise MalformedFileError(
            "CoNLL documents have no fields: document_key is id (their position) or text."
        )
    parsed = ParsedFile(span_unit=SpanUnitKind.TOKEN, exact_texts=False)
    if is_zip(data):
        for name, text in zip_members(data, EXTENSIONS):
            coder = stem(name)
            assert coder is not None
            _parse_text(parsed, text, coder=coder, prefix=f"{name} ", options=options)
        return parsed
    coder = options.coder or stem(options.filename)
    if coder is None:
        raise MalformedFileError(
            "A CoNLL file is one annotator's: name the annotator with the coder option."
        )
    _parse_text(parsed, decode(data), coder=coder, prefix="", options=options)
    return parsed


def _parse_text(
    parsed: ParsedFile, text: str, *, coder: str, prefix: str, options: ParseOptions
) -> None:
    documents: list[_Document] = []
    current = _Document(number=1, first_line=1)
    sentence: list[str] = []

    def end_sentence() -> None:
        nonlocal sentence
        current.close(current.tokens)
        if sentence:
            current.sentences.append(sentence)
            sentence = []

    for number, line in enumerate(text.splitlines(), start=1):
        cells = line.split()
        if not cells:
            end_sentence()
            continue
        if cells[0] == DOCSTART:
            end_sentence()
            if current.tokens or documents:
                documents.append(current)
                current = _Document(number=current.number + 1, first_line=number)
            else:
                current.first_line = number
            continue
        parsed.records += 1
        if len(cells) < 2:
            current.rejections.append(
                (
                    f"{prefix}line {number}",
                    "tag",
                    ImportErrorCode.REQUIRED,
                    "A token line holds the token and its tag (in the last column).",
                )
            )
            continue
        _tag(current, cells[-1], f"{prefix}line {number}", number)
        sentence.append(cells[0])
        current.tokens += 1
    end_sentence()
    if current.tokens or not documents:
        documents.append(current)
    for document in documents:
        _emit(parsed, document, coder=coder, prefix=prefix, options=options)


def _tag(document: _Document, tag: str, source: str, number: int) -> None:
    """Read the tag of the document's next token (at position ``document.tokens``)."""
    position = document.tokens
    if tag == OUTSIDE:
        document.close(position)
        return
    match = _TAG.match(tag)
    if match is None:
        document.close(position)
        document.rejections.append(
            (
                source,
                "tag",
                ImportErrorCode.INVALID_TYPE,
                f"{tag!r} is no BIO tag: O, or B-, I-, E-, S- (L-, U-) and a type.",
            )
        )
        return
    letter, kind = match.groups()
    if not (letter in ("I", "E", "L") and document.open is not None and document.open[1] == kind):
        document.close(position)
        document.open = (position, kind, number)
    if letter in ("E", "L", "S", "U"):
        document.close(position + 1)


def _emit(
    parsed: ParsedFile, document: _Document, *, coder: str, prefix: str, options: ParseOptions
) -> None:
    text = "\n".join(" ".join(tokens) for tokens in document.sentences)
    key = str(document.number) if options.document_key == "id" else text_key(text)
    for source, field_name, code, detail in document.rejections:
        parsed.reject(source, field_name, code, detail, pair=(key, coder))
    parsed.document(key, text=text, begin=0, end=document.tokens)
    for begin, end, kind, line in document.units:
        parsed.spans.append(ParsedSpan(f"{prefix}line {line}", key, coder, begin, end, kind))
    if not document.units and not document.rejections and document.tokens:
        parsed.spans.append(
            ParsedSpan(
                f"{prefix}line {document.first_line}",
                key,
                coder,
                empty_reason=ALL_OUTSIDE,
            )
        )

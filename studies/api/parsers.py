"""The one JSON parser behind every JSON endpoint, and the strict reader it uses.

A JSON body is refused with a 400, before any view sees it, when it

- is not UTF-8 (``invalid_utf8``), or names a charset other than UTF-8 (``unsupported_charset``),
- nests arrays and objects deeper than :data:`MAX_DEPTH` levels (``too_deep``),
- is not JSON, or uses ``NaN``/``Infinity`` (``parse_error``),
- holds a lone UTF-16 surrogate such as ``"\\ud800"`` in a string or key (``lone_surrogate``,
  on the field that holds it): such text cannot be stored or written out as UTF-8.

A body larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` raises Django's ``RequestDataTooBig``,
which ``studies.api.errors`` answers with a 413; :class:`FormParser` applies the same limit
to form bodies.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import IO, Any

import numpy as np
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import QueryDict
from rest_framework import exceptions, parsers

from studies.text_rules import lone_surrogate_path

#: Levels of arrays and objects a JSON body may nest: ``{"a": [1]}`` has two.
MAX_DEPTH = 64

_STRUCTURE = b'"[]{}'
_NOT_STRUCTURE = bytes(sorted(set(range(256)) - set(_STRUCTURE)))
# '[' and '{' open a level (+1), ']' and '}' close one (-1 as a signed byte); '"' stays.
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_QUOTE = ord('"')
_CHUNK = 1 << 20
# A \uD800..\uDFFF escape: the only way a lone surrogate gets into strictly decoded UTF-8 JSON.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class JsonInputError(ValueError):
    """A JSON text that :func:`load_json` refuses; ``code`` says why, ``path`` where."""

    def __init__(self, message: str, *, code: str, path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.path = path


def nesting_depth(body: bytes, *, stop_above: int | None = None) -> int:
    """The deepest level of arrays and objects in a JSON text, without parsing it.

    Brackets inside strings do not count. The scan runs at C and numpy speed, so it is
    safe on a body nested far deeper than Python's recursion limit. With ``stop_above``
    it stops once the depth is known to exceed that many levels.

    Examples
    --------
    >>> nesting_depth(b'{"a": [1, {"b": "[[["}]}')
    3
    >>> nesting_depth(b'"just a string"')
    0
    """
    if b"\\" in body:
        # Inside strings, backslashes pair up left to right; what is left escapes a quote.
        body = body.replace(b"\\\\", b"").replace(b'\\"', b"")
    codes = np.frombuffer(body.translate(_STEPS, _NOT_STRUCTURE), dtype=np.int8)
    depth = deepest = in_string = 0
    for start in range(0, codes.size, _CHUNK):
        chunk = codes[start : start + _CHUNK]
        quotes = chunk == _QUOTE
        inside = (np.cumsum(quotes, dtype=np.int64) + in_string) & 1
        steps = np.where((inside == 1) | quotes, 0, chunk)
        running = np.cumsum(steps, dtype=np.int64) + depth
        deepest = max(deepest, int(running.max()))
        depth, in_string = int(running[-1]), int(inside[-1])
        if stop_above is not None and deepest > stop_above:
            break
    return deepest


def load_json(body: bytes | str, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parse a JSON text by this module's rules, or raise :class:`JsonInputError`.

    Examples
    --------
    >>> load_json(b'{"items": ["a", "b"]}')
    {'items': ['a', 'b']}
    >>> load_json(b'[' * 100_000 + b']' * 100_000)
    Traceback (most recent call last):
    ...
    studies.api.parsers.JsonInputError: The JSON nests arrays and objects deeper than 64 levels.
    """
    if isinstance(body, str):
        text, raw = body, body.encode("utf-8", "surrogatepass")
    else:
        raw = body
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise JsonInputError(
                f"The JSON is not valid UTF-8 (byte {error.start}).", code="invalid_utf8"
            ) from None
    too_deep = JsonInputError(
        f"The JSON nests arrays and objects deeper than {max_depth} levels.", code="too_deep"
    )
    if nesting_depth(raw, stop_above=max_depth) > max_depth:
        raise too_deep
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise too_deep from None
    except ValueError as error:
        raise JsonInputError(f"JSON parse error - {error}", code="parse_error") from None
    if _SURROGATE_ESCAPE.search(raw) or isinstance(body, str):
        path = lone_surrogate_path(data, dotted_indices=True)
        if path is not None:
            where = f" in {path}" if path else ""
            raise JsonInputError(
                f"A string{where} holds a lone UTF-16 surrogate (such as \\ud800): "
                "text must be valid Unicode.",
                code="lone_surrogate",
                path=path,
            )
    return data


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser with :func:`load_json`'s rules and the request size limit."""

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        charset = _charset(media_type)
        if charset not in (None, "utf-8", "utf8"):
            raise exceptions.ParseError(
                f"JSON bodies are UTF-8; the charset {charset!r} is not supported.",
                code="unsupported_charset",
            )
        body = _read_limited(stream, (parser_context or {}).get("request"))
        try:
            return load_json(body)
        except JsonInputError as error:
            if error.code == "lone_surrogate" and error.path:
                raise exceptions.ValidationError(
                    {error.path: [exceptions.ErrorDetail(error.message, code=error.code)]}
                ) from None
            raise exceptions.ParseError(error.message, code=error.code) from None


class FormParser(parsers.FormParser):
    """DRF's form parser with the request size limit (DRF's reads any length)."""

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:  # an immutable QueryDict
        context = parser_context or {}
        body = _read_limited(stream, context.get("request"))
        encoding = context.get("encoding", settings.DEFAULT_CHARSET)
        return QueryDict(body, encoding=encoding)


def _read_limited(stream: IO[Any], request: Any) -> bytes:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    if limit is None:
        return bytes(stream.read())
    meta = getattr(request, "META", {})
    try:
        declared = int(meta.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    too_big = RequestDataTooBig("Request body exceeded settings.DATA_UPLOAD_MAX_MEMORY_SIZE.")
    if declared > limit:
        raise too_big
    body = bytes(stream.read(limit + 1))
    if len(body) > limit:
        raise too_big
    return body


def _charset(media_type: str | None) -> str | None:
    for parameter in (media_type or "").split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip('"').lower()
    return None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number.")


class ImageParser(parsers.BaseParser):
    """An image body (``Content-Type: image/...``) as its bytes, ``{"image": bytes}``; read
    no further than one byte past ``AGREEMENT_IMAGE_MAX_BYTES`` (the service refuses more)."""

    media_type = "image/*"

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> dict[str, bytes]:
        return {"image": stream.read(int(settings.AGREEMENT_IMAGE_MAX_BYTES) + 1)}


#: The largest CSV body a distance table upload reads (bytes).
MAX_DISTANCE_CSV_BYTES = 64 * 1024 * 1024


class DistanceCsvParser(parsers.BaseParser):
    """Reads a ``text/csv`` distance table as text, ``{"csv": str}`` (UTF-8, an optional
    byte-order mark); ``studies.distance_tables`` reads its rows."""

    media_type = "text/csv"

    def parse(
        self,
        stream: Any,
        media_type: str | None = None,
        parser_context: Any = None,
    ) -> dict[str, str]:
        data = stream.read(MAX_DISTANCE_CSV_BYTES + 1)
        if len(data) > MAX_DISTANCE_CSV_BYTES:
            raise exceptions.ValidationError(
                {"file": [f"A distance table has at most {MAX_DISTANCE_CSV_BYTES >> 20} MB."]}
            )
        try:
            return {"csv": data.decode("utf-8-sig")}
        except UnicodeDecodeError:
            raise exceptions.ParseError("The CSV body must be UTF-8 text.") from None

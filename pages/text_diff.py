"""The differences between two coders' texts, word by word, as escaped HTML: the words of
the baseline a text lacks in ``<del>``, the words it adds in ``<ins>`` (``difflib``'s
matching of the two texts' words and the spaces between them)."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

#: Past this many words and spaces in either text no diff is drawn (the matching is
#: quadratic in the worst case); the text is shown as it is.
MAX_DIFF_TOKENS = 5_000
_TOKENS = re.compile(r"\s+|\S+")


def _tokens(text: str) -> list[str]:
    return _TOKENS.findall(text)


def word_diff(baseline: str, text: str) -> SafeString | None:
    """``text`` with its differences from ``baseline`` marked, or None when either text is
    too long to compare."""
    before, after = _tokens(baseline), _tokens(text)
    if max(len(before), len(after)) > MAX_DIFF_TOKENS:
        return None
    parts: list[str] = []
    matcher = SequenceMatcher(None, before, after, autojunk=False)
    for operation, b1, b2, a1, a2 in matcher.get_opcodes():
        if operation == "equal":
            parts.append(escape("".join(after[a1:a2])))
            continue
        if b2 > b1:
            parts.append(f"<del>{escape(''.join(before[b1:b2]))}</del>")
        if a2 > a1:
            parts.append(f"<ins>{escape(''.join(after[a1:a2]))}</ins>")
    return mark_safe("".join(parts))  # every text above is escaped

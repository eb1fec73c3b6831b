"""How ``python -m metrics --help`` reads: plain text, and every option's default.

Descriptions are printed as written (their own line breaks, no reStructuredText markup).
An option that takes a value shows its default: argparse's ``(default: X)`` when the parser
holds the default, or the option's help says it in the same words when the default is
decided later (``--distance``: the level's distance). A flag (``--json``) is off unless given.
"""

from __future__ import annotations

import argparse

DESCRIPTION = """\
Agreement coefficients of an annotation file, from the command line.

Run "python -m metrics COMMAND --help" for a command's options. Bad input stops with
exit code 2 and a message naming the line and the field."""

REPORT_DESCRIPTION = """\
Every coefficient of an annotation file.

The file is CSV with the header item,coder,label (a set label written a|b) or JSON lines
{"item": ..., "coder": ..., "label": ...} (a set label may be a list), one line per
annotation; a missing annotation is simply absent.

--level span reads span annotations: CSV document,coder,begin,end,label (end exclusive;
empty begin, end and label: the coder found nothing in the document).
--level box reads boxes: CSV image,coder,x,y,width,height,label (x, y the top-left corner
in pixels; an optional rotation column); --level polygon CSV image,coder,points,label with
points "x1 y1;x2 y2;...". docs/metrics.md and docs/spans.md explain each measure."""

#: The words an option's help uses when it states its own default.
OWN_DEFAULT = "(default: "


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions as written; ``(default: X)`` after the help of every value option."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if (
            not action.option_strings
            or action.nargs == 0  # a flag
            or OWN_DEFAULT in text
            or action.default is argparse.SUPPRESS
        ):
            return text
        return f"{text} (default: %(default)s)".strip()

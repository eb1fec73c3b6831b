"""Errors the library's readers raise."""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: the message names the file, line and field."""

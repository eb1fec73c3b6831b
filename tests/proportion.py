"""Counters of work for the proportion tests (issue 25): what a piece of code does, counted
in bytes, never in seconds, so that a test can double an input and assert that the work
at most doubles, or stays under a bound, on any machine.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType, ModuleType
from typing import Any

#: Methods of ``str`` and ``bytes`` that look through their receiver for a separator.
SEARCHES = frozenset(
    {"split", "rsplit", "splitlines", "find", "rfind", "index", "rindex", "partition",
     "rpartition", "count"}
)  # fmt: skip


@dataclass
class Work:
    amount: int = 0


@contextmanager
def searched_characters(module: ModuleType) -> Iterator[Work]:
    """The characters (or bytes) that the code of ``module`` searches while the block runs:
    the whole length of every ``str`` or ``bytes`` it calls a search method on (``split``,
    ``find``...), counted from the profiler's C-call events (this thread only).

    Counting the receiver whole is exact for code that searches what it was handed, and
    exposes code that searches one growing buffer again and again."""
    work = Work()
    filename = module.__file__

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event != "c_call" or frame.f_code.co_filename != filename:
            return
        receiver = getattr(arg, "__self__", None)
        if isinstance(receiver, str | bytes | bytearray) and arg.__name__ in SEARCHES:
            work.amount += len(receiver)

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield work
    finally:
        sys.setprofile(previous)


class CountingStream(io.RawIOBase):
    """A readable byte stream over ``data`` that counts the bytes handed out."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)
        self.bytes_read = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        data = self._data.read(size)
        self.bytes_read += len(data)
        return data

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

"""Entry point of ``python -m metrics`` (see :mod:`metrics.cli`)."""

from __future__ import annotations

import sys

from metrics.cli import main as _main


def main() -> None:
    """Console-script entry: run the CLI and exit with its code."""
    sys.exit(_main())


if __name__ == "__main__":
    main()

#!/usr/bin/env python
import os
import sys


def main() -> None:
    if sys.argv[1:2] == ["devserver"]:
        # The one-command development run needs no environment: debug defaults.
        os.environ.setdefault("DEBUG", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agreement_server.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()

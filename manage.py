#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portality.settings")
    from django.core.management import execute_from_command_line

    from portality.cli import prepare

    prepare(sys.argv)
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()

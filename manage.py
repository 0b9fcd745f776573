#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    # The benchmarks' commands live with the tests (tests/bench), outside the product.
    bench = len(sys.argv) > 1 and sys.argv[1].startswith("bench_")
    os.environ.setdefault(
        "DJANGO_SETTINGS_MODULE", "tests.bench.settings" if bench else "portality.settings"
    )
    from django.core.management import execute_from_command_line

    from runtime.cli import prepare
    from runtime.embedded import start_unless_external

    # The product's settings read the servers the entry point started; the tests' settings
    # (tests.settings) start their own, in a data dir of their own.
    if os.environ["DJANGO_SETTINGS_MODULE"] in {"portality.settings", "tests.bench.settings"}:
        start_unless_external()

    prepare(sys.argv)
    try:
        execute_from_command_line(sys.argv)
    except BrokenPipeError:
        # Read through `| head` and cut short: stop quietly, as a shell tool does (Python's
        # documented recipe: point stdout at devnull so the exit flush does not fail again).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)  # 128 + SIGPIPE, what the shell reports for a tool killed by the pipe


if __name__ == "__main__":
    main()

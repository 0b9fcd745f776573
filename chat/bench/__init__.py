"""Benchmark runners of the chat (``manage.py bench_chat``); not imported by the product."""

"""Benchmarks for `make bench`: run with `python -m tests.benchmarks` (prints JSON)."""

"""Crash safety: a harness that SIGKILLs a graph run on SqliteSaver at random moments.

Full size: `python -m tests.crash --kills 200` (from the repository root).
CI runs a reduced size in tests/test_crash.py.
"""

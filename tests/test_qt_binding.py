"""Guards against a Qt binding that corrupts the interpreter (see the pin in pyproject.toml)."""
from __future__ import annotations

import sys


def test_void_qt_calls_do_not_leak_references_to_none(qapp):
    before = sys.getrefcount(None)
    for _ in range(5000):
        qapp.processEvents()
    # PySide6 6.12.0 on CPython 3.11 loses one reference per call, then aborts the process
    assert before - sys.getrefcount(None) < 100

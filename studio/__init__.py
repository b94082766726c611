"""Retrograph Studio: a desktop time-travel debugger for state graphs (PySide6 + qasync).

Qt is imported only when a window class is asked for, so `retrograph run` and
`retrograph draw` work without a display.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["MainWindow", "Session", "load_graph", "LoadedGraph", "LoadError", "main"]

_WHERE = {
    "MainWindow": "studio.window.main_window",
    "Session": "studio.session",
    "load_graph": "studio.core.loader",
    "LoadedGraph": "studio.core.loader",
    "LoadError": "studio.core.loader",
    "main": "studio.__main__",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'studio' has no attribute {name!r}")

"""The graph panel's layout job: graphviz `dot` on a worker thread (`layout_graph`), its
result (or error) reported through a queued signal; and pygraphviz imported on the UI thread."""
from __future__ import annotations

import contextlib
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Signal, SignalInstance
from PySide6.QtWidgets import QLabel

from studio.core.layout import layout_graph
from studio.core.records import GraphShape

__all__ = ["PREIMPORT_MS", "LayoutJob", "LayoutSignals", "graphviz_ready", "preimport_graphviz"]


def graphviz_ready(status: QLabel, failed: SignalInstance) -> bool:
    """Import pygraphviz on the UI thread: importing it first on a pool thread can crash
    shiboken's import hook (seen with PySide6 6.12)."""
    try:
        import pygraphviz  # noqa: F401
    except ImportError as exc:
        message = f"graphviz is not available ({exc}); install pygraphviz>=2.0 to draw the graph"
        status.setText(message)
        failed.emit(message)
        return False
    return True


PREIMPORT_MS = 250
"""After this long (the window on screen), pygraphviz is imported on the UI thread ahead of
the first layout (~15 ms), not inside the callback that opens the graph file."""


def preimport_graphviz() -> None:
    with contextlib.suppress(ImportError):  # said when a graph is drawn (`graphviz_ready`)
        import pygraphviz  # noqa: F401


class LayoutSignals(QObject):
    done = Signal(int, object)


class LayoutJob(QRunnable):
    """Runs `layout_graph` off the UI thread and reports (generation, layout or error)."""

    def __init__(self, generation: int, view: GraphShape, sizes: dict[str, tuple[float, float]],
                 signals: LayoutSignals, label_sizes: dict[str, tuple[float, float]] | None = None) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self.generation, self.view, self.sizes, self.signals = generation, view, sizes, signals
        self.label_sizes = label_sizes

    def run(self) -> None:
        try:
            result: Any = layout_graph(self.view, self.sizes, label_sizes=self.label_sizes)
        except Exception as exc:  # reported in the panel, never raised on a pool thread
            result = exc
        self.signals.done.emit(self.generation, result)

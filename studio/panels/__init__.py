"""The studio's panels: Qt widgets that get plain data (`studio.viewmodel`) and emit intents.

Panels never import the engine, the session or each other; `studio.wiring` connects them.
Each class docstring lists its methods and signals.
"""
from __future__ import annotations

from .compare_view import CompareDialog, CompareView
from .diff_view import DiffPanel
from .events_view import EventsPanel
from .graph_view import GraphPanel
from .inspector import InspectorPanel
from .interrupt_view import InterruptPanel
from .state_editor import StateEditorDialog
from .state_view import StatePanel
from .timeline import TimelinePanel

__all__ = [
    "GraphPanel",
    "StatePanel",
    "DiffPanel",
    "TimelinePanel",
    "EventsPanel",
    "InspectorPanel",
    "InterruptPanel",
    "CompareView",
    "CompareDialog",
    "StateEditorDialog",
]

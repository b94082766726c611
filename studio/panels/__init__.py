"""The studio's panels: Qt widgets that get plain data (`studio.core.records`) and emit intents.

Panels never import the engine, the session or each other; `studio.window.wiring` connects them.
Each class docstring lists its methods and signals.
"""
from __future__ import annotations

from .diff import CompareDialog, CompareView, DiffPanel
from .event_log import EventsPanel
from .graph import GraphPanel
from .inspector import InspectorPanel
from .interrupts import InterruptPanel
from .state import StateEditorDialog, StatePanel
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

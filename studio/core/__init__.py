"""The studio's Qt-free core: the driver that steps a Run, the checkpoint history, the
graph loader, the store readers, the records the panels show, the engine -> record
conversion, value formatting and diffing, and the graph layout.

Nothing here imports PySide6 (a test enforces it), so all of it is testable without a
display and reusable by the headless commands.
"""
from __future__ import annotations

__all__: list[str] = []

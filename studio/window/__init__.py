"""The main window and what frames the panels: wiring, actions, docks, dialogs, the error
banner and the file watcher."""
from __future__ import annotations

__all__: list[str] = []

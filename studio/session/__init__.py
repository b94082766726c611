"""The debugging session: Qt signals and the one-command-at-a-time guard over the
engine's Run, with collaborators for loading, time travel and events -> records."""
from __future__ import annotations

from .session import Session

__all__ = ["Session"]

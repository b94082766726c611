"""Session-level records for the window chrome (status bar, error banner, thread picker).

The panels' records live in `studio.core.viewmodel`; these are the few the window itself shows.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["StatusView", "ErrorView", "ThreadView", "CompareView"]


@dataclass(frozen=True, kw_only=True)
class StatusView:
    """What the status bar shows and which controls are enabled."""

    thread_id: str | None
    step: int | None
    status: str
    """"no graph", "ready", "running", "paused", "interrupted", "failed", "done", "stopped",
    "read-only" (a database opened without the graph's code)."""
    busy: bool = False
    can_step: bool = False
    viewing: str | None = None
    """The checkpoint being viewed when it is not the head (read-only view)."""
    head_id: str | None = None
    graph_name: str = ""
    db_path: str = ""
    next_nodes: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ErrorView:
    """One error shown in the window's banner: what went wrong, where, and what to do."""

    kind: str
    """"load" (import, syntax, no graph), "node" (a node raised), "input" (bad JSON),
    "command" (a command was refused or failed), "database"."""
    title: str
    message: str
    detail: str = ""
    node: str | None = None
    hint: str = ""


@dataclass(frozen=True, kw_only=True)
class ThreadView:
    thread_id: str
    checkpoints: int
    updated_at: str


@dataclass(frozen=True, kw_only=True)
class CompareView:
    """Two checkpoints side by side: `diff` goes from `left` to `right`."""

    left_id: str
    right_id: str
    left_values: dict
    right_values: dict
    diff: object

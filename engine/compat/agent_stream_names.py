"""The private stream name langchain's agents subclass: `_TasksLifecycleBase` of
`langgraph.stream.transformers` (langchain's SubagentTransformer builds on its hooks).

It reads a run's `tasks` events and calls the hooks a subclass overrides:
`_on_started(ns, graph_name, trigger_call_id)` once per namespace below the scope it
tracks (`_should_track`), with the triggering tool call in `_pending_cause`, and
`_on_terminal(ns, status, error)` when the task that opened it ends (or the run does).
The namespace's `lc_agent_name` (task metadata) is kept in `_lc_by_ns`.
"""
from __future__ import annotations

from typing import Any

from ..streaming.subgraphs import SubgraphStatus, failure_status, is_task_start, parse_segment, task_outcome
from ..streaming.transformer import ProtocolEvent, StreamTransformer

__all__ = ["_TasksLifecycleBase"]


def _tool_call_id(payload: Any) -> str | None:
    """The tool call a task was started for: a pushed `tool_call_with_context` input, or the
    first of a list of tool calls."""
    if isinstance(payload, dict) and isinstance(payload.get("tool_call"), dict):
        found = payload["tool_call"].get("id")
        return found if isinstance(found, str) else None
    if isinstance(payload, list):
        for call in payload:
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                return str(call["id"])
    return None


class _TasksLifecycleBase(StreamTransformer):
    """Subgraph starts and ends found in `tasks` events, as hooks for a subclass."""

    required_stream_modes = ("tasks",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._lc_by_ns: dict[tuple[str, ...], str | None] = {}
        self._pending_tool_calls: dict[str, str] = {}
        self._pending_cause: dict[str, str] | None = None
        self._seen: set[tuple[str, ...]] = set()
        self._open: dict[tuple[str, ...], str] = {}

    # -- what a subclass overrides ------------------------------------------
    def _should_track(self, ns: tuple[str, ...]) -> bool:
        depth = len(self.scope)
        return len(ns) > depth and ns[:depth] == tuple(self.scope)

    def _on_started(self, ns: tuple[str, ...], graph_name: str | None, trigger_call_id: str | None) -> None:
        return None

    def _on_terminal(self, ns: tuple[str, ...], status: SubgraphStatus, error: str | None) -> None:
        return None

    # -- reading the events -------------------------------------------------
    def process(self, event: ProtocolEvent) -> bool:
        if event["method"] != "tasks":
            return True
        ns = tuple(event["params"]["namespace"])
        data = event["params"]["data"]
        if not isinstance(data, dict):
            return False
        if not is_task_start(data):
            for child, status, error in self._pop_terminal_transitions(ns, data):
                self._on_terminal(child, status, error)
        else:
            self._record_identity(ns, data)
            self._record_pending_tool_calls(data)
            self._handle_task_start(ns, data)
        return False

    def _record_identity(self, ns: tuple[str, ...], data: dict[str, Any]) -> None:
        if ns not in self._lc_by_ns:
            self._lc_by_ns[ns] = (data.get("metadata") or {}).get("lc_agent_name")

    def _record_pending_tool_calls(self, data: dict[str, Any]) -> None:
        task_id, call_id = data.get("id"), _tool_call_id(data.get("input"))
        if isinstance(task_id, str) and call_id is not None:
            self._pending_tool_calls[task_id] = call_id

    def _handle_task_start(self, ns: tuple[str, ...], data: dict[str, Any]) -> None:
        if not self._should_track(ns) or ns in self._seen:
            return
        self._seen.add(ns)
        name, trigger = parse_segment(ns[-1])
        agent = (data.get("metadata") or {}).get("lc_agent_name")
        call_id = self._pending_tool_calls.get(trigger) if agent is not None and trigger else None
        self._pending_cause = {"type": "toolCall", "tool_call_id": call_id} if call_id else None
        self._on_started(ns, agent if agent is not None else (name or None), trigger)
        if trigger is not None:
            self._open[ns] = trigger

    def _pop_terminal_transitions(self, ns: tuple[str, ...],
                                  data: dict[str, Any]) -> list[tuple[tuple[str, ...], SubgraphStatus, str | None]]:
        task_id = data.get("id")
        if not task_id:
            return []
        ended = [child for child, opener in self._open.items() if child[:-1] == ns and opener == task_id]
        out = []
        for child in ended:
            del self._open[child]
            status, error = task_outcome(data)
            out.append((child, status, error))
        return out

    def finalize(self) -> None:
        for ns in list(self._open):
            self._on_terminal(ns, "completed", None)
        self._open.clear()

    def fail(self, err: BaseException) -> None:
        status = failure_status(err)
        for ns in list(self._open):
            self._on_terminal(ns, status, str(err) if status == "failed" else None)
        self._open.clear()

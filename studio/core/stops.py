"""Why the run stopped, in words and keys: a command's `Outcome` -> the `StopReport` the
banner above the graph shows (Qt-free).

Every stop has one: a breakpoint (which node, before or after it), a conditional
breakpoint (its expression and the value it gave), run-to-node, an interrupt (the node and
its question), an error (the node and the exception), a pause, the end, a step, inside a
subgraph, a stop. Each names the keys that go on from there.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .driver import Outcome
from .records import ErrorReport, StopReport

__all__ = ["stop_report", "interrupt_stop", "error_stop", "KEYS", "question_of"]

KEYS: Mapping[str, tuple[str, str]] = {
    "continue": ("continue_", "Continue (F5)"),
    "step": ("step", "Step (F10)"),
    "into": ("step_into", "Step into (F11)"),
    "out": ("step_out", "Step out (Shift+F11)"),
    "stop": ("stop", "Stop (Shift+F5)"),
    "answer": ("answer", "Answer (Ctrl+I)"),
    "reload": ("reload", "Reload (Ctrl+R)"),
    "back": ("back", "Back (Ctrl+[)"),
    "rewind": ("rewind", "Rewind here (Ctrl+Backspace)"),
    "restart": ("restart", "Restart (Ctrl+Shift+F5)"),
    "new": ("new_run", "New run (Ctrl+N)"),
}
"""What each key does, as the banner's buttons say it: (window action, label with its key)."""


def _keys(*names: str) -> tuple[tuple[str, str], ...]:
    return tuple(KEYS[n] for n in names)


_GO_ON = _keys("continue", "step", "into", "stop")


def _names(nodes: Sequence[str]) -> str:
    return ", ".join(f"`{n}`" for n in nodes)


def question_of(value: Any) -> str:
    """An interrupt's question as a line: a string, or a dict's question/message/prompt."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        for key in ("question", "message", "prompt"):
            if isinstance(value.get(key), str):
                return str(value[key])
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 200 else text[:199] + "…"


def interrupt_stop(interrupts: Sequence[tuple[str, Any]]) -> StopReport:
    """Waiting at interrupts: (node, value) pairs."""
    nodes = tuple(dict.fromkeys(node for node, _ in interrupts))
    detail = "\n".join(f"{node} asks: {question_of(value)}" for node, value in interrupts)
    return StopReport(kind="interrupt", title=f"Waiting at interrupt in {_names(nodes)}", detail=detail,
                      nodes=nodes, keys=_keys("answer", "back", "stop"))


def error_stop(error: ErrorReport | None, nodes: Sequence[str]) -> StopReport:
    """The one banner of an error stop: where, the exception and its message in the title,
    what to do as the detail, the traceback behind Details."""
    where = error.node if error is not None and error.node else None
    failed = (where,) if where else tuple(nodes)
    title = f"Stopped on an error in {_names(failed)}" if failed else "Stopped on an error"
    if error is None:
        return StopReport(kind="error", title=title, nodes=failed, keys=_keys("reload", "back", "rewind", "restart"))
    said = ": ".join(t for t in (error.exception, error.message) if t) or error.title
    return StopReport(kind="error", title=f"{title}: {said}", detail=error.hint or error.title, nodes=failed,
                      keys=_keys("reload", "back", "rewind", "restart"), trace=error.detail)


def stop_report(outcome: Outcome, *, interrupts: Sequence[tuple[str, Any]] = (), error: ErrorReport | None = None,
                next_nodes: Sequence[str] = ()) -> StopReport:
    """The banner for a command's `outcome`; `interrupts` pending, the `error` shown, the
    nodes that run next."""
    reason, nodes = outcome.reason, outcome.nodes
    upcoming = f"Next: {_names(next_nodes)}." if next_nodes else ""
    if reason == "breakpoint" and outcome.condition:
        side = "before the step" if outcome.where == "before" else "after the step"
        return StopReport(kind="condition", title=f"Paused on condition `{outcome.condition}` ({side})",
                          detail=f"Value: {outcome.value}. {outcome.message}. {upcoming}".strip(), nodes=nodes,
                          keys=_GO_ON)
    if reason == "breakpoint":
        where = outcome.where or "before"
        title = f"Paused on breakpoint {where} {_names(nodes)}"
        detail = (f"{_names(nodes)} runs next." if where == "before" else f"{_names(nodes)} committed. {upcoming}")
        return StopReport(kind="breakpoint", title=title, detail=detail.strip(), nodes=nodes, keys=_GO_ON)
    if reason == "target":
        return StopReport(kind="target", title=f"Reached {_names(nodes)} (run to node)",
                          detail=f"{_names(nodes)} runs next.", nodes=nodes, keys=_GO_ON)
    if reason == "interrupted" or (interrupts and reason not in ("failed",)):
        return interrupt_stop(interrupts) if interrupts else StopReport(
            kind="interrupt", title=f"Waiting at interrupt in {_names(nodes)}", nodes=nodes,
            keys=_keys("answer", "back", "stop"))
    if reason == "failed":
        return error_stop(error, nodes)
    if reason == "paused":
        return StopReport(kind="paused", title="Paused", detail=f"You paused the run. {upcoming}".strip(),
                          keys=_GO_ON)
    if reason == "done":
        return StopReport(kind="done", title="The run reached the end",
                          detail="Nothing is left to run on this thread.", keys=_keys("back", "rewind", "restart", "new"))
    if reason == "inside":
        return StopReport(kind="inside", title=f"Inside subgraph {_names(nodes)}", detail=outcome.message,
                          nodes=nodes, keys=_keys("step", "continue", "out", "stop"))
    ran = f"Ran {_names(nodes)}." if nodes else ""
    return StopReport(kind="stepped", title=f"Stepped {_names(nodes)}" if nodes else "Stepped",
                      detail=f"{ran} {upcoming}".strip(), nodes=nodes, keys=_GO_ON)

"""Human-in-the-loop requests of langchain's HumanInTheLoopMiddleware (and deepagents'
`interrupt_on`), read from the interrupt's value, and the resume values that answer them.

The request is `{"action_requests": [{"name", "args", "description"}, ...],
"review_configs": [{"action_name", "allowed_decisions": [...]}, ...]}`; the answer is
`{"decisions": [...]}`, one decision per action, in order: `{"type": "approve"}`,
`{"type": "edit", "edited_action": {"name": ..., "args": {...}}}` or
`{"type": "reject", "message": "..."}`. Nothing here runs or imports langchain."""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["DECISIONS", "REJECT_MESSAGE", "HitlAction", "hitl_actions", "allowed_for_all", "decision_text"]

DECISIONS = ("approve", "edit", "reject")
REJECT_MESSAGE = "Not approved: please do something else."
"""The reject decision's message as first filled in (the reviewer replaces it)."""


@dataclass(frozen=True)
class HitlAction:
    """One tool call waiting for a decision."""

    name: str
    args: Any
    allowed: tuple[str, ...]


def hitl_actions(value: Any) -> tuple[HitlAction, ...]:
    """The tool calls a human-in-the-loop interrupt asks about (empty: it is not one)."""
    if not isinstance(value, Mapping):
        return ()
    requests, configs = value.get("action_requests"), value.get("review_configs", [])
    if not isinstance(requests, list) or not requests or not isinstance(configs, list):
        return ()
    allowed: dict[str, tuple[str, ...]] = {}
    for config in configs:
        if isinstance(config, Mapping) and isinstance(config.get("action_name"), str):
            kinds = config.get("allowed_decisions", DECISIONS)
            allowed[config["action_name"]] = tuple(k for k in kinds if k in DECISIONS) if isinstance(kinds, list) \
                else DECISIONS
    out = []
    for request in requests:
        if not isinstance(request, Mapping) or not isinstance(request.get("name"), str):
            return ()
        out.append(HitlAction(name=request["name"], args=request.get("args", {}),
                              allowed=allowed.get(request["name"], DECISIONS)))
    return tuple(out)


def allowed_for_all(actions: tuple[HitlAction, ...], kind: str) -> bool:
    return bool(actions) and all(kind in a.allowed for a in actions)


def decision_text(actions: tuple[HitlAction, ...], kind: str) -> str:
    """The resume value (pretty JSON) that gives every action the decision `kind`; an edit
    starts from the calls' own arguments, a reject from a message, for the person to change."""
    if kind not in DECISIONS:
        raise ValueError(f"unknown decision {kind!r}: one of {', '.join(DECISIONS)}")
    decisions: list[dict[str, Any]] = []
    for action in actions:
        if kind == "approve":
            decisions.append({"type": "approve"})
        elif kind == "edit":
            decisions.append({"type": "edit", "edited_action": {"name": action.name, "args": action.args}})
        else:
            decisions.append({"type": "reject", "message": REJECT_MESSAGE})
    return json.dumps({"decisions": decisions}, indent=1, ensure_ascii=False, default=str)

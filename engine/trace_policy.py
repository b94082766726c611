"""What a node's own trace run records: `add_node(..., trace_policy=TracePolicy(...))`.

The processors see the node's real input (its state) and output (its update) and return
what the node's callback run records instead; the node itself gets and returns the real
values. A processor that raises is logged and the real value is recorded: tracing never
breaks a run. Only the node's own run is affected (not its children, not the graph's).
For secrets, redact where they are stored or sent, not here.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["TracePolicy", "omit_payload", "traced_value"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TracePolicy:
    process_inputs: Callable[[Any], Any] | None = None
    """The node's input -> what its trace run records as inputs."""
    process_outputs: Callable[[Any], Any] | None = None
    """The node's output -> what its trace run records as outputs."""


def omit_payload(_value: Any) -> dict[str, Any]:
    """A processor that records nothing of the value (the run and its timing stay)."""
    return {}


def traced_value(policy: Any, which: str, value: Any, node: str) -> Any:
    """`value` as the node's trace run records it under `policy` (None: as it is)."""
    process = getattr(policy, which, None) if policy is not None else None
    if process is None:
        return value
    try:
        return process(value)
    except Exception as exc:  # fail-open: the real value is recorded
        log.warning("trace_policy.%s of node %r raised %r; the real value is recorded", which, node, exc)
        return value

"""Names the graph reserves for itself."""
from __future__ import annotations

__all__ = ["START", "END", "RESERVED_NAMES", "INTERRUPT_KEY", "PULL_PATH", "PUSH_PATH", "NODE_FINISHED_KEY",
           "ERROR_HANDLER_PREFIX", "DEFAULT_ERROR_HANDLER",
           "RUNTIME_KEY", "READ_KEY", "SEND_KEY", "DURABILITY_KEY"]

START = "__start__"
"""The virtual entry node: edges from it name the graph's entry points."""

END = "__end__"
"""The virtual exit node: routing here ends a branch."""

INTERRUPT_KEY = "__interrupt__"
"""The key under which invoke() and the updates stream report pending interrupts."""

PULL_PATH = "__pregel_pull"
"""First item of a task's path (StateSnapshot.tasks[].path, langgraph_path) for a node an
edge, a router or a Command triggered: ("__pregel_pull", node)."""

PUSH_PATH = "__pregel_push"
"""First item of a `Send` task's path: ("__pregel_push", index)."""

NODE_FINISHED_KEY = "__pregel_node_finished"
"""A `configurable` key whose value, a callable, is told the name of every node that
finishes without error, at every level of subgraphs (LangGraph's hook of that name)."""

RUNTIME_KEY = "__pregel_runtime"
"""A `configurable` key under which a caller may seed a runtime object (anything with
`context` and `store`): a run given no context takes its context, and its store when it
has one (LangGraph's slot of that name, which a server's graph factory fills)."""

READ_KEY = "__pregel_read"
"""A `configurable` key a node given its config finds `read(select, fresh=False)` under: the
value of one state key (`select` a key) or a dict of several; `fresh` adds the node's own
writes so far (LangGraph's slot of that name, which deepagents' file backend reads)."""

SEND_KEY = "__pregel_send"
"""A `configurable` key a node given its config finds `send([(key, value), ...])` under:
state writes made while the node runs, applied before what it returns."""

ERROR_HANDLER_PREFIX = "__error_handler__"
"""A node's own error handler runs as the node `__error_handler__<node>` (LangGraph's name)."""

DEFAULT_ERROR_HANDLER = "__default_error_handler__"
"""The node of the handler set_node_defaults(error_handler=...) gives every other node."""

RESERVED_NAMES = frozenset({START, END, INTERRUPT_KEY})

DURABILITY_KEY = "__pregel_durability"
"""A `configurable` key a node given its config finds the run's durability under ("sync",
"async" — the default — or "exit"), as LangGraph's slot of that name."""

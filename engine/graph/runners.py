"""A compiled graph's node runners: each node's function with its edges, routers, joins,
retry, cache and timeout policies and error handler, read once from the builder."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..constants import DEFAULT_ERROR_HANDLER, ERROR_HANDLER_PREFIX, START
from ..node_input import NodeInput
from ..policies import TimeoutPolicy
from ..runtime.task import NodeRunner

if TYPE_CHECKING:
    from ..specs import GraphDefinition

__all__ = ["node_runners"]

DEFAULT_HANDLER = DEFAULT_ERROR_HANDLER

Joins = dict[str, tuple[tuple[str, ...], str]]
"""join key -> (its sources, its target)."""


def node_runners(builder: GraphDefinition) -> tuple[dict[str, NodeRunner], Joins]:
    """(node name -> its runner, the joins) of the graph `builder` describes."""
    joins: dict[str, tuple[tuple[str, ...], str]] = {}
    joins_of: dict[str, list[str]] = {}
    for sources, target in builder.waiting_edges:
        join = f"join:{'+'.join(sources)}:{target}"
        joins[join] = (sources, target)
        for s in sources:
            joins_of.setdefault(s, []).append(join)
    edges_of: dict[str, list[str]] = {}
    for src, dst in builder.edges:
        if dst not in edges_of.setdefault(src, []):
            edges_of[src].append(dst)
    runners: dict[str, NodeRunner] = {
        START: NodeRunner(START, None, edges_of.get(START, ()),
                          tuple(builder.branches.get(START, {}).values()), ()),
    }
    defaults = builder.node_defaults
    for name_, spec in builder.nodes.items():
        timeout = TimeoutPolicy.coerce(spec.timeout) or defaults.get("timeout")
        runners[name_] = NodeRunner(name_, spec.fn, edges_of.get(name_, ()),
                                         tuple(builder.branches.get(name_, {}).values()),
                                         joins_of.get(name_, ()), retry=spec.retry or defaults.get("retry"),
                                         cache_policy=spec.cache_policy or defaults.get("cache_policy"),
                                         timeout=timeout,
                                         input_view=None if spec.input_schema is None
                                         else NodeInput(spec.input_schema))
    _add_error_handlers(runners, builder)
    slow_sync = [n for n, r in runners.items() if r.timeout is not None and not r.is_async]
    if slow_sync:
        raise ValueError(
            f"node(s) {', '.join(f'`{n}`' for n in slow_sync)}: timeouts are only supported for async nodes "
            "(a sync function cannot be stopped safely while it runs); make it `async def` or drop the timeout"
        )
    return runners, joins


def _add_error_handlers(runners: dict[str, NodeRunner], builder: GraphDefinition) -> None:
    """A runner per error handler (`__error_handler__<node>`, or the graph's default
    `__default_error_handler__`), linked from the nodes it serves."""
    default = builder.node_defaults.get("error_handler")
    if default is not None and DEFAULT_HANDLER in builder.nodes:
        raise ValueError(f"node `{DEFAULT_HANDLER}` collides with the default error handler that "
                         "set_node_defaults(error_handler=...) adds under that name; rename the node")
    if default is not None:
        runners[DEFAULT_HANDLER] = NodeRunner(DEFAULT_HANDLER, default, (), (), ())
        runners[DEFAULT_HANDLER].handles_errors = True
    for name_, spec in builder.nodes.items():
        if spec.error_handler is not None:
            handler = f"{ERROR_HANDLER_PREFIX}{name_}"
            runners[handler] = NodeRunner(handler, spec.error_handler, (), (), ())
            runners[handler].handles_errors = True
            runners[name_].error_handler = handler
        elif default is not None:
            runners[name_].error_handler = DEFAULT_HANDLER

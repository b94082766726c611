"""What `invoke`/`stream` and their async twins drive: a Run, and how its drive ends.

`drive_opened` (engine/runtime/drive.py) runs the one loop and calls the `Opened`'s
`finish` after its last chunk, so the graph's own API adds no generator around the loop:
an `astream` chunk passes through the loop's generator alone. What `finish` does is
what the API promises at the end of a run: the graph's callback run (a traced call)
ends after the last chunk, with the output or with the error; a failed run raises its
error to the caller; a graph invoked inside a node ends that node's way (an interrupt
pauses the node's task: `nested_outcome`).
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from ..runtime.drive import Opened
from ..runtime.home_gate import gated_hooks
from ..runtime.nested import nested_outcome

if TYPE_CHECKING:
    from ..runtime.run import Run
    from ..runtime.stream import StreamCollector

__all__ = ["opened"]


def opened(graph: Any, run: Run, collector: StreamCollector | None) -> Opened:
    """The Opened of an invoke/stream of `graph` (see the module's text)."""
    tracer = run.tracer
    if tracer is None:
        return Opened(run, gated_hooks(run), collector, functools.partial(_ended, graph))
    tracer.ended_by_driver = True
    from ..callbacks import GraphLifecycle  # (only a call with callbacks can have GraphCallbackHandlers)

    lifecycle = GraphLifecycle.attach(run, run.config)

    async def finish(run: Any) -> None:
        try:
            if lifecycle is not None:  # GraphCallbackHandlers' on_interrupt / on_resume
                await lifecycle.flush()
            if run.status == "failed" and run.error is not None:
                raise run.error
        except BaseException as exc:
            tracer.end(None, exc)
            raise
        tracer.end(graph.schema.output(run.preview or run.values), None)
        if run.namespace:
            nested_outcome(run, graph)

    return Opened(run, gated_hooks(run), collector, finish, functools.partial(tracer.end, None))


async def _ended(graph: Any, run: Any) -> None:
    """The end of an untraced call: a failed run raises, a nested one ends its node's way."""
    if run.status == "failed" and run.error is not None:
        raise run.error
    if run.namespace:  # invoked inside a node: an interrupt pauses that node's task
        nested_outcome(run, graph)

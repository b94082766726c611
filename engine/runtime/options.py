"""How one Run differs from a plain invoke, in one frozen object.

`CompiledStateGraph.new_run(..., options=RunOptions(...))` makes it; the Run reads it as
`run.options` and, where one of its own moves changes how it goes on (a start that
continues a saved checkpoint is `resuming` from then on), replaces it with
`run.set_options(...)`. Five groups:

- resume: `resuming`, `fork_same_step`, `null_resume`;
- subgraph: `fresh`, `parents`, `gate`;
- time travel through subgraphs: `replay`;
- recording and recorded replay: `record`, `answers`; the server's `control`;
- where nodes run: `keep_loop_free`.
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .time_travel import Replay

__all__ = ["RunOptions", "Gate", "PLAIN", "run_options"]

Gate = Callable[[Any], Awaitable[None]]
"""Awaited with the (child) run before each of its moves: a task, or a commit."""


@dataclass(frozen=True, slots=True)
class RunOptions:
    """A Run's options (see the module's docstring); the defaults are a plain invoke's."""

    resuming: bool = False
    """Started by continuing a saved checkpoint (resume, breakpoint, crash): a subgraph
    task of this run then continues its own unfinished history instead of starting anew."""
    fork_same_step: bool = False
    """Starting at an older checkpoint N saves a copy of it (source "fork") that owns the
    new branch's writes; LangGraph numbers the copy N+1, so the branch's first commit is
    N+2. A debugger sets True: the copy keeps step N and the branch goes on at N+1."""
    null_resume: tuple[str, Any] | None = None
    """(checkpoint id, value): a resume value no paused task took; the first interrupt()
    of that checkpoint's superstep with no resume value of its own returns it (LangGraph's)."""
    fresh: bool = False
    """A stateless subgraph's run: an input starts a new history even where its namespace has one."""
    parents: Mapping[str, str] | None = None
    """A subgraph run's ancestors' checkpoints by namespace, kept in its checkpoints'
    metadata["parents"] (LangGraph's), so its checkpoints lead back to theirs."""
    gate: Gate | None = None
    """Awaited before each move of a child (subgraph) run: a debugger's "step into"."""
    replay: Replay | None = None
    """Set when this run (or the one it is a subgraph of)
    time-travels: where its subgraphs start."""
    record: bool = False
    """config["record"]: each committed checkpoint keeps its tasks' writes (and resume
    values) in its metadata, so a replay can answer nodes from them (engine/replay)."""
    answers: Callable[[Any], Any] | None = None
    """Set by a recorded replay: a task's recorded output (NOT_ANSWERED to run the node).
    Its `for_child(ctx, child_run)`, when it has one, gives each subgraph run a hook of its
    own (runtime/nested.py); it may `preset_resume` the task it is asked about."""
    control: Any = None
    """A server's run control (drain requests), shared with the run's subgraphs."""
    keep_loop_free: bool = False
    """No node runs on the event loop's thread, however quick it was seen to be (the async
    API otherwise calls a quick plain sync node there, skipping two thread hops). A debugger
    whose loop is its UI thread sets it, for the run and its subgraphs: a node that blocks
    or never returns then cannot freeze the window, and Stop still reaches it."""


PLAIN = RunOptions()
"""A plain invoke's options."""


def run_options(given: RunOptions | None, control: Any, record: bool, outer: RunOptions | None) -> RunOptions:
    """A new run's options: those it was `given` (a plain invoke's when None), with the
    server's `control` (else the given one's, else the enclosing run's) and recording
    switched on by `record` (config["record"])."""
    opts = given or PLAIN
    if control is None:
        control = opts.control if opts.control is not None else (outer.control if outer is not None else None)
    record = record or opts.record
    if control is not opts.control or record != opts.record:
        opts = replace(opts, control=control, record=record)
    return opts


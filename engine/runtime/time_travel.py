"""Time travel through subgraphs: which checkpoint a subgraph starts from when its
parent replays, forks, or is addressed through one of the subgraph's own checkpoints.

A subgraph's checkpoints live in their own namespace, so going back in the parent does not
by itself take the subgraph back. Two rules, LangGraph's, do:

- A run that time-travels carries a `Replay` with a *bound*: the parent checkpoint it
  replays (for an edited checkpoint, the one that was edited). The first time a subgraph
  namespace opens in that run, it starts from its latest checkpoint older than the bound,
  i.e. its state as of that parent checkpoint; a stateless subgraph finds none and starts
  empty. Later calls of the same subgraph in the run (a loop) continue as usual.
- A subgraph's own checkpoint config (from get_state(subgraphs=True), or what
  update_state on it returned) names its namespace and checkpoint, and in
  `checkpoint_map` its ancestors' checkpoints (kept in each child checkpoint's
  `metadata["parents"]`). Invoking the top graph with it replays the top graph from the
  ancestor checkpoint and starts each named namespace from its named checkpoint, which a
  resume then continues.

Checkpoint ids sort in creation order across a thread's namespaces (see ids.py), which is
what "older than the bound" compares.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..checkpoint.base import Checkpoint, ns_thread_key

__all__ = ["Replay", "NO_RESUME", "address_subgraph", "checkpoint_before", "stable_namespace", "with_map"]

NO_RESUME: Any = object()


@dataclass
class Replay:
    """Shared by a time-travelling run and all its subgraph runs."""

    bound: str | None = None
    """Subgraphs opened for the first time load their latest checkpoint older than this."""
    targets: dict[str, str] = field(default_factory=dict)
    """Namespace -> the checkpoint that subgraph starts from (a subgraph's config was given)."""
    resume: Any = NO_RESUME
    """The top run's resume value, for a targeted subgraph whose task got none of its own."""
    visited: set[str] = field(default_factory=set)

    def first_visit(self, ns: str) -> bool:
        """True the first time the namespace (its last task id left out) opens in this run."""
        stable = stable_namespace(ns)
        if stable in self.visited:
            return False
        self.visited.add(stable)
        return True


def stable_namespace(ns: str) -> str:
    """`ns` without the task id of its last segment: the same node's subgraph across calls."""
    head, sep, last = ns.rpartition("|")
    return f"{head}{sep}{last.split(':', 1)[0]}"


def checkpoint_before(saver: Any, key: str, bound: str) -> Checkpoint | None:
    """The newest checkpoint stored under `key` whose id is older than `bound`."""
    for header in saver.list_headers(key):
        if header.id < bound:
            found: Checkpoint | None = saver.load(key, header.id)
            return found
    return None


def address_subgraph(saver: Any, thread_id: str, conf: Mapping[str, Any]) -> tuple[str, dict[str, str]]:
    """For a top-level run given a subgraph's checkpoint config: (the top graph's checkpoint
    to start from, {namespace: checkpoint} for the subgraphs on the way down)."""
    ns = conf.get("checkpoint_ns") or ""
    cid = conf.get("checkpoint_id")
    given = conf.get("checkpoint_map") or {}
    if not isinstance(ns, str) or not isinstance(given, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in given.items()):
        raise TypeError(
            f"config['configurable']: checkpoint_ns must be a string and checkpoint_map a dict of "
            f"namespace -> checkpoint id strings, got {ns!r:.60} and {given!r:.80}; take a subgraph's "
            "config from get_state(config, subgraphs=True)"
        )
    cmap = dict(given)
    if cid is not None:
        cmap[ns] = str(cid)
    top = cmap.pop("", None)
    if top is None:
        if cid is None:
            raise ValueError(
                f"config names the subgraph namespace {ns!r} but no checkpoint_id: take a subgraph's config "
                "from get_state(config, subgraphs=True), or pass the top graph's config to run the thread"
            )
        child = saver.load(ns_thread_key(thread_id, ns), str(cid))
        if child is None:
            raise ValueError(
                f"thread {thread_id!r} has no checkpoint {cid!r} in subgraph namespace {ns!r}; "
                "pick one from get_state_history() with that namespace's config"
            )
        parents = dict(child.metadata.get("parents") or {})
        top = parents.pop("", None)
        if top is None:
            raise ValueError(
                f"checkpoint {cid!r} of subgraph namespace {ns!r} records no parent checkpoint "
                "(metadata['parents']): replay it from the top graph's history instead"
            )
        cmap = {**parents, **cmap}
    return str(top), cmap


def with_map(config: dict[str, Any], parents: Mapping[str, str] | None) -> dict[str, Any]:
    """A subgraph checkpoint's config with LangGraph's `checkpoint_map`: its ancestors'
    checkpoints and its own, which is what invoking the top graph with it needs."""
    if parents:
        conf = config["configurable"]
        conf["checkpoint_map"] = {**parents, conf["checkpoint_ns"]: conf["checkpoint_id"]}
    return config

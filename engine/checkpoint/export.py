"""Export one thread, or one branch of it, to a single portable checkpoint file.

The file is a Retrograph SQLite checkpoint file holding only that thread: the root
graph's checkpoints and those of every subgraph namespace of the thread (stored under
`ns_thread_key(thread, ns)`, as every store keeps them). `retrograph open FILE` reads it
as it reads any run (subgraph checkpoints under the root step that ran them), and a
replay or a generated regression test can run on it. Any store the read protocol serves
can be exported: Retrograph's SQLite or PostgreSQL, LangGraph's SQLite or PostgreSQL (the
production bug-report path: a LangGraph app's store in, a small Retrograph file out).

With `branch`, only that checkpoint and its ancestors are written, with the subgraph
checkpoints that belong to them (those run by the superstep after an exported root
checkpoint). Secrets can be redacted on the way out: every dict key named in `redact`,
at any depth, in the state, the checkpoint metadata (task records included), the plans'
Send arguments and the pending writes, of the root graph and of every subgraph, has its
value replaced by `REDACTED`; a state key named there is redacted as a whole.
"""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .base import Checkpoint, CheckpointHeader
from .ids import ns_thread_key

__all__ = ["export_thread", "ExportSummary", "REDACTED", "namespace_owner"]

REDACTED = "<redacted>"
_MAX_DEPTH = 100 + 16
"""The serializer's nesting limit, plus room for the levels a task record wraps around a
node's write in the metadata. Past it a container is redacted whole (fail closed), never
copied unscrubbed."""


@dataclass(frozen=True, kw_only=True)
class ExportSummary:
    path: str
    thread_id: str
    checkpoints: int
    """The root graph's checkpoints written."""
    redacted: tuple[str, ...]
    """The names asked for that were found (and replaced) somewhere."""
    subgraph_checkpoints: int = 0
    namespaces: int = 0
    """Subgraph namespaces with at least one checkpoint written."""


def namespace_owner(namespace: str) -> str | None:
    """The root checkpoint that planned the task a Retrograph namespace ("node:cid/index|...")
    belongs to; None for "" or a namespace whose task id does not name it (LangGraph's)."""
    if not namespace:
        return None
    task = namespace.split("|", 1)[0].partition(":")[2]
    return task.rpartition("/")[0] or None


def _parents_owner(ckpt: Checkpoint | None) -> str | None:
    """The root checkpoint a subgraph checkpoint's metadata names (`parents[""]`)."""
    parents = ckpt.metadata.get("parents") if ckpt is not None and isinstance(ckpt.metadata, Mapping) else None
    owner = parents.get("") if isinstance(parents, Mapping) else None
    return owner if isinstance(owner, str) and owner else None


def _subgraph_namespaces(store: Any, thread_id: str) -> list[str]:
    spaces = getattr(store, "namespaces", None)
    return [ns for ns in spaces(thread_id) if ns] if callable(spaces) else []


def _branch_ids(headers: list[CheckpointHeader], branch: str, thread_id: str) -> list[str]:
    by_id = {h.id: h for h in headers}
    if branch not in by_id:
        raise ValueError(f"thread `{thread_id}` has no checkpoint `{branch}` to export the branch of")
    keep: list[str] = []
    at: str | None = branch
    while at is not None and at in by_id and at not in keep:
        keep.append(at)
        at = by_id[at].parent_id
    return keep[::-1]


def _owned_ids(store: Any, key: str, ns: str, roots: set[str] | None) -> list[str]:
    """The namespace's checkpoint ids to export, oldest first: all of them (`roots` None),
    or those whose owner (the root checkpoint whose superstep ran them) is in `roots`."""
    headers = list(store.list_headers(key))
    if roots is None:
        return [h.id for h in reversed(headers)]
    fallback = namespace_owner(ns)
    if fallback is None and headers and not any(getattr(h, "owner_id", None) for h in headers):
        fallback = _parents_owner(store.get(key, headers[0].id))  # one namespace, one owner
    return [h.id for h in reversed(headers) if (getattr(h, "owner_id", None) or fallback) in roots]


class _Writer:
    """Writes checkpoints of one store key into the export, portable and redacted."""

    def __init__(self, saver: Any, names: frozenset[str], found: set[str]) -> None:
        self.saver, self.names, self.found = saver, names, found

    def copy(self, store: Any, key: str, ids: list[str]) -> int:
        exported: set[str] = set()
        written: set[tuple[str, str]] = set()
        names, found = self.names, self.found
        for cid in ids:
            ckpt = store.get(key, cid)
            if ckpt is None:
                continue
            ckpt = _portable(ckpt, key, exported, written)
            if names:
                ckpt = _redacted(ckpt, names, found)
            self.saver.put(ckpt)
            exported.add(ckpt.id)
            written.update((k, ckpt.id) for k, v in ckpt.versions.items() if v == ckpt.id)
            pending = store.pending_writes(key, cid)
            if pending:
                if names:
                    pending = [replace(w, value=REDACTED if w.channel in names else _scrub(w.value, names, found))
                               for w in pending]
                    found.update(w.channel for w in pending if w.channel in names)
                self.saver.put_writes(key, ckpt.id, pending)
        return len(exported)


def export_thread(store: Any, thread_id: str, path: str | os.PathLike[str], *, branch: str | None = None,
                  redact: Iterable[str] = ()) -> ExportSummary:
    """Write `thread_id` of `store` (a saver or a `CheckpointStore`), its subgraphs'
    checkpoints included, into a new file at `path`.

    `branch`: a checkpoint id of the root graph; only it and its ancestors are written
    (the branch it ends), with the subgraph checkpoints their supersteps made.
    Raises ValueError naming the thread, checkpoint or file at fault."""
    from .sqlite import SqliteSaver

    out = os.fspath(path)
    if os.path.exists(out):
        raise ValueError(f"`{out}` exists already: export writes a new file (remove it or pick another name)")
    headers = list(store.list_headers(thread_id))
    if not headers:
        known = ", ".join(repr(t.thread_id) for t in store.threads()[:10]) or "none"
        raise ValueError(f"thread `{thread_id}` has no checkpoints to export (threads: {known})")
    ids = _branch_ids(headers, branch, thread_id) if branch is not None else [h.id for h in reversed(headers)]
    del headers
    roots = set(ids) if branch is not None else None
    names = frozenset(n.strip() for n in redact if n and n.strip())
    found: set[str] = set()
    saver = SqliteSaver(out)
    sub = spaces = 0
    try:
        writer = _Writer(saver, names, found)
        count = writer.copy(store, thread_id, ids)
        for ns in _subgraph_namespaces(store, thread_id):
            key = ns_thread_key(thread_id, ns)
            n = writer.copy(store, key, _owned_ids(store, key, ns, roots))
            sub += n
            spaces += n > 0
    except BaseException:
        saver.close()
        for suffix in ("", "-wal", "-shm"):
            try:
                os.remove(out + suffix)
            except OSError:
                pass
        raise
    saver.close()
    return ExportSummary(path=out, thread_id=thread_id, checkpoints=count, redacted=tuple(sorted(found)),
                         subgraph_checkpoints=sub, namespaces=spaces)


def _portable(c: Checkpoint, key: str, exported: set[str], written: set[tuple[str, str]]) -> Checkpoint:
    """The checkpoint with a parent and versions that the exported file can resolve: a
    version naming a checkpoint left out (or a store's own scheme) becomes its own id."""
    versions = {k: (v if v == c.id or (k, v) in written else c.id) for k, v in c.versions.items()}
    for name in c.values:
        versions.setdefault(name, c.id)
    parent = c.parent_id if c.parent_id in exported else None
    return replace(c, versions=versions, parent_id=parent, thread_id=key)


def _redacted(c: Checkpoint, names: frozenset[str], found: set[str]) -> Checkpoint:
    values = {}
    for k, v in c.values.items():
        if k in names:
            found.add(k)
            values[k] = REDACTED
        else:
            values[k] = _scrub(v, names, found)
    tasks = tuple(replace(t, arg=_scrub(t.arg, names, found)) if t.is_send else t for t in c.tasks)
    metadata = _scrub(dict(c.metadata), names, found, record=True)
    return replace(c, values=values, tasks=tasks, metadata=metadata)


def _scrub(value: Any, names: frozenset[str], found: set[str], depth: int = 0, record: bool = False) -> Any:
    if depth > _MAX_DEPTH:
        return REDACTED if isinstance(value, (Mapping, list, tuple)) or _has_fields(value) else value
    if isinstance(value, Mapping) and type(value) in (dict,):
        out = {}
        for k, v in value.items():
            if k in names:
                found.add(k)
                out[k] = REDACTED
            else:
                out[k] = _scrub(v, names, found, depth + 1, record)
        if record and "writes" in out and isinstance(out["writes"], list):  # a task record: [[key, value]...]
            out["writes"] = [[w[0], REDACTED] if isinstance(w, list) and len(w) == 2 and w[0] in names
                             else w for w in out["writes"]]
            found.update(w[0] for w in value.get("writes", ()) if isinstance(w, list) and w and w[0] in names)
        return out
    if isinstance(value, list):
        return [_scrub(v, names, found, depth + 1, record) for v in value]
    if isinstance(value, tuple) and type(value) is tuple:
        return tuple(_scrub(v, names, found, depth + 1, record) for v in value)
    return _scrub_fields(value, names, found, depth)


def _has_fields(value: Any) -> bool:
    return (dataclasses.is_dataclass(value) and not isinstance(value, type)) or callable(getattr(value, "model_copy", None))


def _scrub_fields(value: Any, names: frozenset[str], found: set[str], depth: int) -> Any:
    """A dataclass or a pydantic model (a message, a user's record) with its fields
    scrubbed as dict keys are; the value itself when nothing changed or it cannot be copied."""
    pydantic = False
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = [f.name for f in dataclasses.fields(value) if f.init]
    elif callable(getattr(value, "model_copy", None)) and isinstance(getattr(type(value), "model_fields", None), dict):
        fields, pydantic = list(type(value).model_fields), True
    else:
        return value
    changed: dict[str, Any] = {}
    for name in fields:
        try:
            old = getattr(value, name)
        except Exception:
            continue
        if name in names:
            found.add(name)
            changed[name] = REDACTED
            continue
        new = _scrub(old, names, found, depth + 1)
        if new is not old:
            changed[name] = new
    if not changed:
        return value
    try:
        return value.model_copy(update=changed) if pydantic else dataclasses.replace(value, **changed)
    except Exception:
        return value

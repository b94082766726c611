"""Export one thread, or one branch of it, to a single portable checkpoint file.

The file is a Retrograph SQLite checkpoint file holding only that thread (root graph
namespace): `retrograph open FILE` reads it as it reads any run, and a replay or a
generated regression test can run on it. Secrets can be redacted on the way out: every
dict key named in `redact`, at any depth, in the state, the checkpoint metadata (task
records included), the plans' Send arguments and the pending writes, has its value
replaced by `REDACTED`; a state key named there is redacted as a whole.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .base import Checkpoint

__all__ = ["export_thread", "ExportSummary", "REDACTED"]

REDACTED = "<redacted>"
_MAX_DEPTH = 100


@dataclass(frozen=True, kw_only=True)
class ExportSummary:
    path: str
    thread_id: str
    checkpoints: int
    redacted: tuple[str, ...]
    """The names asked for that were found (and replaced) somewhere."""


def export_thread(store: Any, thread_id: str, path: str | os.PathLike[str], *, branch: str | None = None,
                  redact: Iterable[str] = ()) -> ExportSummary:
    """Write `thread_id` of `store` (a saver or a `CheckpointStore`) into a new file at `path`.

    `branch`: a checkpoint id; only it and its ancestors are written (the branch it ends).
    Raises ValueError naming the thread, checkpoint or file at fault."""
    from .sqlite import SqliteSaver

    out = os.fspath(path)
    if os.path.exists(out):
        raise ValueError(f"`{out}` exists already: export writes a new file (remove it or pick another name)")
    headers = list(store.list_headers(thread_id))
    if not headers:
        known = ", ".join(repr(t.thread_id) for t in store.threads()[:10]) or "none"
        raise ValueError(f"thread `{thread_id}` has no checkpoints to export (threads: {known})")
    by_id = {h.id: h for h in headers}
    if branch is not None:
        if branch not in by_id:
            raise ValueError(f"thread `{thread_id}` has no checkpoint `{branch}` to export the branch of")
        keep: list[str] = []
        at: str | None = branch
        while at is not None and at in by_id:
            keep.append(at)
            at = by_id[at].parent_id
        ids = keep[::-1]
    else:
        ids = [h.id for h in reversed(headers)]  # oldest first: parents before children
    names = frozenset(n.strip() for n in redact if n and n.strip())
    found: set[str] = set()
    saver = SqliteSaver(out)
    try:
        written: set[tuple[str, str]] = set()
        exported: set[str] = set()
        for cid in ids:
            ckpt = store.get(thread_id, cid)
            if ckpt is None:
                continue
            ckpt = _portable(ckpt, thread_id, exported, written)
            if names:
                ckpt = _redacted(ckpt, names, found)
            saver.put(ckpt)
            exported.add(ckpt.id)
            written.update((k, ckpt.id) for k, v in ckpt.versions.items() if v == ckpt.id)
            pending = store.pending_writes(thread_id, cid)
            if pending:
                if names:
                    pending = [replace(w, value=REDACTED if w.channel in names else _scrub(w.value, names, found))
                               for w in pending]
                saver.put_writes(thread_id, ckpt.id, pending)
    except BaseException:
        saver.close()
        for suffix in ("", "-wal", "-shm"):
            try:
                os.remove(out + suffix)
            except OSError:
                pass
        raise
    saver.close()
    return ExportSummary(path=out, thread_id=thread_id, checkpoints=len(exported), redacted=tuple(sorted(found)))


def _portable(c: Checkpoint, thread_id: str, exported: set[str], written: set[tuple[str, str]]) -> Checkpoint:
    """The checkpoint with a parent and versions that the exported file can resolve: a
    version naming a checkpoint left out (or a store's own scheme) becomes its own id."""
    versions = {k: (v if v == c.id or (k, v) in written else c.id) for k, v in c.versions.items()}
    for key in c.values:
        versions.setdefault(key, c.id)
    parent = c.parent_id if c.parent_id in exported else None
    return replace(c, versions=versions, parent_id=parent, thread_id=thread_id)


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
        return value
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
    return value

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
checkpoint). Secrets can be redacted on the way out (redaction.py): every dict key named
in `redact`, at any depth, in the state, the checkpoint metadata (task records included),
the plans' Send arguments and the pending writes, of the root graph and of every
subgraph, has its value replaced by `REDACTED` (a state key named there is redacted as a
whole), and every text value found under those keys, or matching a `redact_patterns`
regex, is replaced wherever else it appears, inside other text included. The file is
vacuumed at the end: no free page or -wal holds a byte of what was replaced.
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .base import Checkpoint, CheckpointHeader
from .ids import ns_thread_key
from .redaction import REDACTED, RedactionReport, Redactor

__all__ = ["export_thread", "ExportSummary", "REDACTED", "RedactionReport", "namespace_owner"]


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
    report: RedactionReport | None = None
    """What redaction replaced (None: nothing was asked to be redacted)."""


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
        fallback = _parents_owner(store.load(key, headers[0].id))  # one namespace, one owner
    return [h.id for h in reversed(headers) if (getattr(h, "owner_id", None) or fallback) in roots]


class _Writer:
    """Writes checkpoints of one store key into the export, portable and redacted."""

    def __init__(self, saver: Any, redactor: Redactor) -> None:
        self.saver, self.redactor = saver, redactor

    def learn(self, store: Any, key: str, ids: list[str]) -> None:
        """Redaction's first pass: the secrets in these checkpoints and their writes."""
        r = self.redactor
        for cid in ids:
            ckpt = store.load(key, cid)
            if ckpt is None:
                continue
            for k, v in ckpt.values.items():
                r.learn_key(k, v)
            r.learn([t.arg for t in ckpt.tasks if t.is_send])
            r.learn(dict(ckpt.metadata))
            for w in store.pending_writes(key, cid):
                r.learn_key(w.channel, w.value)

    def copy(self, store: Any, key: str, ids: list[str]) -> int:
        exported: set[str] = set()
        written: set[tuple[str, str]] = set()
        r = self.redactor
        for cid in ids:
            ckpt = store.load(key, cid)
            if ckpt is None:
                continue
            ckpt = _portable(ckpt, key, exported, written)
            if r.active:
                ckpt = _redacted(ckpt, r)
            self.saver.save(ckpt)
            exported.add(ckpt.id)
            written.update((k, ckpt.id) for k, v in ckpt.versions.items() if v == ckpt.id)
            pending = store.pending_writes(key, cid)
            if pending:
                if r.active:
                    pending = [replace(w, value=r.key_value(w.channel, w.value)) for w in pending]
                self.saver.save_writes(key, ckpt.id, pending)
        return len(exported)


def export_thread(store: Any, thread_id: str, path: str | os.PathLike[str], *, branch: str | None = None,
                  redact: Iterable[str] = (), redact_patterns: Iterable[str] = ()) -> ExportSummary:
    """Write `thread_id` of `store` (a saver or a `CheckpointStore`), its subgraphs'
    checkpoints included, into a new file at `path`.

    `branch`: a checkpoint id of the root graph; only it and its ancestors are written
    (the branch it ends), with the subgraph checkpoints their supersteps made.
    `redact` (keys) and `redact_patterns` (regexes): see the module's docstring.
    Raises ValueError naming the thread, checkpoint, pattern or file at fault."""
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
    redactor = Redactor(redact, redact_patterns)
    saver = SqliteSaver(out)
    sub = spaces = 0
    try:
        writer = _Writer(saver, redactor)
        keys = [(thread_id, ids)]  # the root graph's, then each subgraph namespace's
        for ns in _subgraph_namespaces(store, thread_id):
            key = ns_thread_key(thread_id, ns)
            keys.append((key, _owned_ids(store, key, ns, roots)))
        if redactor.active:
            for key, chosen in keys:
                writer.learn(store, key, chosen)
        count = writer.copy(store, *keys[0])
        for key, chosen in keys[1:]:
            n = writer.copy(store, key, chosen)
            sub += n
            spaces += n > 0
        saver.close()
        _vacuum(out)
    except BaseException:
        saver.close()
        for suffix in ("", "-wal", "-shm"):
            try:
                os.remove(out + suffix)
            except OSError:
                pass
        raise
    return ExportSummary(path=out, thread_id=thread_id, checkpoints=count, redacted=tuple(sorted(redactor.found)),
                         subgraph_checkpoints=sub, namespaces=spaces,
                         report=redactor.report() if redactor.active else None)


def _vacuum(path: str) -> None:
    """Rewrite the export compactly in rollback-journal mode: no free page, no -wal, so
    no byte of a value that was replaced survives anywhere in or beside the file."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("VACUUM")
    finally:
        conn.close()


def _portable(c: Checkpoint, key: str, exported: set[str], written: set[tuple[str, str]]) -> Checkpoint:
    """The checkpoint with a parent and versions that the exported file can resolve: a
    version naming a checkpoint left out (or a store's own scheme) becomes its own id."""
    versions = {k: (v if v == c.id or (k, v) in written else c.id) for k, v in c.versions.items()}
    for name in c.values:
        versions.setdefault(name, c.id)
    parent = c.parent_id if c.parent_id in exported else None
    return replace(c, versions=versions, parent_id=parent, thread_id=key)


def _redacted(c: Checkpoint, r: Redactor) -> Checkpoint:
    values = {k: r.key_value(k, v) for k, v in c.values.items()}
    tasks = tuple(replace(t, arg=r.scrub(t.arg)) if t.is_send else t for t in c.tasks)
    metadata = r.scrub(dict(c.metadata), record=True)
    return replace(c, values=values, tasks=tasks, metadata=metadata)

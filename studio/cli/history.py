"""`retrograph history DB_OR_URL [--thread T] [--json] [--values]`: a store's history as
data, for scripts and CI.

Works on every store `engine.checkpoint.reading.open_store` recognises (Retrograph's or
LangGraph's, SQLite or PostgreSQL). It prints data only: it imports none of the modules
the stored data names (values decode through allow-lists into plain records), and any
problem is one line on stderr and a non-zero exit, never a traceback.

Without --thread: one line per thread, `{"thread_id": ..., "checkpoints": N}`. With it:
one object per checkpoint, newest first (subgraph namespaces merged in by time), with
checkpoint_id, parent_id, step, source, next, checkpoint_ns, created_at; --values adds
the state as JSON-like data (messages as {type, content, tool_calls...}).

A checkpoint whose stored row cannot be decoded (a damaged file) is skipped, not fatal:
stderr says "checkpoint X could not be read: ...; the rest is listed" (with --json, stdout
also gets `{"checkpoint_id", "checkpoint_ns", "unreadable"}` for it). The exit code is 0
when at least one checkpoint was listed, 1 when every one was unreadable. Reads only.
"""
from __future__ import annotations

import argparse
import heapq
import itertools
import json
import sys
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from studio.core.jsonable import jsonable

__all__ = ["history_parser", "cmd_history", "jsonable"]


def history_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="retrograph history",
        description="Print a checkpoint store's history (Retrograph's or LangGraph's; SQLite or PostgreSQL). "
                    "Reads only; runs no code the data names.",
    )
    p.add_argument("db", help="a checkpoint file, or a postgresql://user:password@host:port/db URL")
    p.add_argument("--thread", help="the thread to list (default: list the threads)")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.add_argument("--values", action="store_true", help="with --thread: include each checkpoint's state")
    p.set_defaults(command="history")
    return p


def _line(out: TextIO, obj: Any, as_json: bool) -> None:
    if as_json:
        out.write(json.dumps(obj, ensure_ascii=False) + "\n")
        return
    if "checkpoints" in obj:
        out.write(f"{obj['thread_id']}\t{obj['checkpoints']} checkpoints\n")
        return
    ns = f" [{obj['checkpoint_ns']}]" if obj["checkpoint_ns"] else ""
    nxt = ", ".join(obj["next"]) or "-"
    out.write(f"step {obj['step']:>4}  {obj['source']:<6}  next: {nxt:<24} {obj['checkpoint_id']}{ns}\n")
    if "values" in obj:
        out.write("      " + json.dumps(obj["values"], ensure_ascii=False) + "\n")


_PAGE = 200
"""Checkpoints whose values `history --values` reads together."""


def _records(store: Any, thread_id: str, values: bool, unreadable: Any) -> Iterator[dict[str, Any]]:
    """Every namespace's checkpoints, merged newest first by time (each list is already).
    A checkpoint whose row cannot be decoded is skipped and told to `unreadable(id, ns, reason)`."""
    from engine.checkpoint.reading import skipping
    from engine.errors import CheckpointDecodeError

    def stream(ns: str) -> Iterator[tuple[str, str, Any]]:
        skip = skipping(store, lambda cid, reason: unreadable(cid, ns, reason))
        for h in store.list_headers(thread_id, checkpoint_ns=ns, **skip):
            yield h.created_at, ns, h

    streams = [stream(ns) for ns in store.namespaces(thread_id)]
    merged = heapq.merge(*streams, key=lambda t: t[0], reverse=True)
    many = getattr(store, "get_many", None) if values else None
    while True:
        page = list(itertools.islice(merged, _PAGE))
        if not page:
            return
        states: dict[tuple[str, str], Any] = {}
        if callable(many):  # a page of values in a few queries, not one or two per checkpoint
            for ns in dict.fromkeys(ns for _, ns, _ in page):
                got = many(thread_id, [h.id for _, n, h in page if n == ns], checkpoint_ns=ns)
                states.update(((ns, cid), c) for cid, c in got.items())
        for created_at, ns, h in page:
            obj: dict[str, Any] = {
                "checkpoint_id": h.id, "parent_id": h.parent_id, "step": h.step, "source": h.source,
                "next": list(h.next), "checkpoint_ns": ns, "created_at": created_at,
            }
            if values:
                try:
                    found = states.get((ns, h.id)) if callable(many) else store.load(thread_id, h.id, checkpoint_ns=ns)
                    if isinstance(found, CheckpointDecodeError):
                        raise found
                except CheckpointDecodeError as e:
                    unreadable(h.id, ns, str(e))
                    continue
                obj["values"] = jsonable(dict(found.values)) if found is not None else None
            yield obj


def cmd_history(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    from engine.checkpoint.reading import describe_target, open_store

    out, err = out or sys.stdout, err or sys.stderr
    target = args.db
    if args.values and not args.thread:  # was silently ignored: the thread list has no states
        print("retrograph: --values needs --thread T: it adds each checkpoint's state to that thread's list",
              file=err)
        return 2
    try:
        store = open_store(target)
    except Exception as e:  # every failure is one line: the store's own words
        print(f"retrograph: cannot open {describe_target(target)}: {_text(e)}", file=err)
        return 2
    try:
        if not args.thread:
            for t in store.threads():
                _line(out, {"thread_id": t.thread_id, "checkpoints": t.checkpoints}, args.json)
            return 0
        if not any(t.thread_id == args.thread for t in store.threads()):
            print(f"retrograph: no thread {args.thread!r} in {store.describe()}", file=err)
            return 1
        listed, skipped = 0, 0

        def unreadable(cid: str, ns: str, reason: str) -> None:
            nonlocal skipped
            skipped += 1
            text = f"checkpoint {cid} could not be read: {' '.join(reason.split()) or 'no reason given'}; the rest is listed"
            if args.json:
                out.write(json.dumps({"checkpoint_id": cid, "checkpoint_ns": ns, "unreadable": text},
                                     ensure_ascii=False) + "\n")
            print(f"retrograph: {text}", file=err)

        for obj in _records(store, args.thread, args.values, unreadable):
            _line(out, obj, args.json)
            listed += 1
        out.flush()
        return 1 if skipped and not listed else 0
    except BrokenPipeError:
        return 0
    except Exception as e:
        print(f"retrograph: reading {store.describe()} failed: {_text(e)}", file=err)
        return 1
    finally:
        try:
            store.close()
        except Exception:
            pass


def _text(e: BaseException) -> str:
    text = str(e).strip().replace("\n", " ")
    return text if text else type(e).__name__


def main(argv: Sequence[str]) -> int:
    return cmd_history(history_parser().parse_args(list(argv)))

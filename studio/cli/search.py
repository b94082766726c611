"""`retrograph search DB QUERY [--thread T] [-e] [--limit N] [--json]`: the checkpoints,
across every thread and branch of a store (subgraphs included), whose state contains a
text or makes an expression true.

Works on every store `open_store` recognises (Retrograph's or LangGraph's, SQLite or
PostgreSQL) and only reads. Matches are printed as they are found, a page of checkpoints
at a time (studio/core/search.py), so a store of any size streams in constant memory.
The expression (with `-e`) is the one typed on the command line, evaluated by the safe
evaluator of studio/core/expressions.py; nothing read from the database is evaluated.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

__all__ = ["search_parser", "cmd_search"]


def search_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="retrograph search",
        description="Find the checkpoints whose state contains a text (case-insensitive) or makes an expression "
                    "true, across every thread and branch of a store (Retrograph's or LangGraph's). Reads only.",
        epilog="Exit status: 0 some match, 1 none (or a read failed), 2 a bad command line or store, or an expression "
               "that cannot be evaluated on any checkpoint. Examples: "
               "retrograph search runs.sqlite 'rate limit'   ·   "
               "retrograph search runs.sqlite -e 'len(messages) > 20' --thread t1")
    p.add_argument("db", help="a checkpoint file, or a postgresql:// URL")
    p.add_argument("query", help="the text to find, or with -e an expression over the state such as "
                                 "len(messages) > 4 or route == 'search'")
    p.add_argument("-e", "--expression", action="store_true", help="QUERY is an expression, not a text")
    p.add_argument("--thread", help="search only this thread (default: every thread)")
    p.add_argument("--no-subgraphs", action="store_true", help="search the root graphs' checkpoints only")
    p.add_argument("--limit", type=int, default=0, metavar="N",
                   help="stop after N matches (default: 0, every match)")
    p.add_argument("--json", action="store_true", help="one JSON object per match")
    p.set_defaults(command="search")
    return p


def cmd_search(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    from engine.checkpoint.reading import describe_target, open_store
    from studio.core.expressions import ExpressionError
    from studio.core.search import StoreSearch

    out, err = out or sys.stdout, err or sys.stderr
    if args.limit < 0:
        print(f"retrograph: --limit {args.limit}: give 0 (every match) or a positive number", file=err)
        return 2
    try:
        search = StoreSearch(args.query, "expression" if args.expression else "text",
                             threads=[args.thread] if args.thread else None, subgraphs=not args.no_subgraphs)
    except (ExpressionError, ValueError) as e:
        print(f"retrograph: {e}", file=err)
        return 2
    try:
        store = open_store(args.db)
    except Exception as e:
        print(f"retrograph: cannot open {describe_target(args.db)}: {e}", file=err)
        return 2
    try:
        if args.thread and not any(t.thread_id == args.thread for t in store.threads()):
            shown = ", ".join(t.thread_id for t in store.threads()[:10]) or "none"
            print(f"retrograph: --thread {args.thread}: no such thread in {store.describe()} (threads: {shown})",
                  file=err)
            return 1
        _print_hits(search, store, args.limit or None, args.json, out)
    except BrokenPipeError:
        return 0
    except Exception as e:
        print(f"retrograph: reading {store.describe()} failed: {str(e).strip() or type(e).__name__}", file=err)
        return 1
    finally:
        try:
            store.close()
        except Exception:
            pass
    return _report(search, err)


def _print_hits(search: Any, store: Any, left: int | None, as_json: bool, out: TextIO) -> None:
    """Page through the search, one line (or JSON object) per match, at most `left`."""
    while not search.done and (left is None or left > 0):
        for hit in search.next_page(store, max_hits=left):
            if as_json:
                out.write(json.dumps({"thread_id": hit.thread_id, "checkpoint_ns": hit.namespace,
                                      "checkpoint_id": hit.checkpoint_id, "step": hit.step, "source": hit.source,
                                      "nodes": list(hit.nodes), "match": hit.excerpt}, ensure_ascii=False) + "\n")
            else:
                ns = f" [{hit.namespace}]" if hit.namespace else ""
                out.write(f"{hit.thread_id}\tstep {hit.step:>4}  {hit.source:<6} {hit.checkpoint_id}{ns}\t"
                          f"{hit.excerpt}\n")
            if left is not None:
                left -= 1
        out.flush()


def _report(search: Any, err: TextIO) -> int:
    """The search's summary on stderr, and the exit code: 0 with matches, 1 without, 2
    when the expression failed on every checkpoint."""
    for cid, reason in search.unreadable:
        print(f"retrograph: checkpoint {cid} could not be read: {reason}; the rest is searched", file=err)
    if search.failed_everywhere:
        print(f"retrograph: {search.failures()}", file=err)
        return 2
    if search.failed:
        print(f"retrograph: {search.failures()}", file=err)
    if not search.done:
        print(f"retrograph: stopped after {search.matched:,} matches (--limit); {search.scanned:,} checkpoints "
              "searched so far", file=err)
    else:
        print(f"retrograph: {search.describe()}", file=err)
    return 0 if search.matched else 1

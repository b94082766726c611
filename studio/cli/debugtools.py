"""The debugging commands' table (pytest, export, search), and `retrograph export`.

`retrograph export DB --thread T [--branch CHECKPOINT] [--redact KEY,...] [--redact-pattern REGEX]... -o RUN.sqlite`
writes one thread (or the branch ending at CHECKPOINT), its subgraphs' checkpoints
included, into a single portable checkpoint file that `retrograph open RUN.sqlite` reads:
for bug reports, with secrets redacted. DB may be Retrograph's or LangGraph's store.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TextIO

from .pytestgen import cmd_pytest, pytest_parser
from .search import cmd_search, search_parser

__all__ = ["export_parser", "cmd_export", "PARSERS", "COMMANDS"]


def export_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="retrograph export",
        description="Export one thread (or one branch) to a single checkpoint file that `retrograph open` reads.")
    p.add_argument("db", help="the checkpoint database (SQLite file or postgresql:// URL; Retrograph's or LangGraph's)")
    p.add_argument("--thread", required=True, help="the thread to export")
    p.add_argument("--branch", metavar="CHECKPOINT",
                   help="export only the branch ending at this checkpoint (default: every branch of the thread)")
    p.add_argument("--redact", default="", metavar="KEY,...",
                   help="replace the values of these keys (state keys, and dict keys at any depth) by <redacted>, "
                        "and each text value found under them wherever else it appears")
    p.add_argument("--redact-pattern", action="append", default=[], metavar="REGEX",
                   help="also replace every text matching this regular expression (e.g. 'sk-[A-Za-z0-9]{20,}'); "
                        "may be given more than once")
    p.add_argument("-o", "--output", required=True, help="the file to write (must not exist)")
    p.set_defaults(command="export")
    return p


def cmd_export(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    from engine.checkpoint.export import export_thread
    from engine.errors import CheckpointError
    from engine.checkpoint.reading import describe_target, open_store

    out, err = out or sys.stdout, err or sys.stderr
    try:
        store = open_store(args.db)
    except Exception as e:
        print(f"retrograph: cannot open {describe_target(args.db)}: {e}", file=err)
        return 2
    try:
        if not any(t.thread_id == args.thread for t in store.threads()):
            shown = ", ".join(t.thread_id for t in store.threads()[:10]) or "none"
            print(f"retrograph: --thread {args.thread}: no such thread in {store.describe()} (threads: {shown})",
                  file=err)
            return 1
        redact = [n.strip() for n in args.redact.split(",") if n.strip()]
        patterns = [p for p in args.redact_pattern if p]
        try:
            summary = export_thread(store, args.thread, args.output, branch=args.branch, redact=redact,
                                    redact_patterns=patterns)
        except ValueError as e:
            print(f"retrograph: {e}", file=err)
            return 1
        except CheckpointError as e:  # the output cannot be created, or the source cannot be read
            print(f"retrograph: export of thread {args.thread} to {args.output} failed: {e}", file=err)
            return 1
    finally:
        store.close()
    missing = [n for n in redact if n not in summary.redacted]
    if missing:
        print(f"retrograph: --redact {', '.join(missing)}: no such key anywhere in the thread (nothing replaced)",
              file=err)
    subgraphs = (f" and {summary.subgraph_checkpoints} subgraph checkpoints in {summary.namespaces} "
                 f"namespace{'s' if summary.namespaces != 1 else ''}" if summary.subgraph_checkpoints else "")
    print(f"retrograph: wrote {summary.checkpoints} checkpoints{subgraphs} of thread {summary.thread_id} to "
          f"{summary.path}" + (f" (redacted: {', '.join(summary.redacted)})" if summary.redacted else ""), file=out)
    if summary.report is not None:  # what was replaced, one line each
        for line in summary.report.lines():
            print(f"retrograph: redacted {line}", file=out)
    return 0


PARSERS: dict[str, Callable[[], argparse.ArgumentParser]] = {
    "pytest": pytest_parser, "export": export_parser, "search": search_parser}
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "pytest": cmd_pytest, "export": cmd_export, "search": cmd_search}

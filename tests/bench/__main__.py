"""`python -m tests.bench [--smoke | --full] [--only NAME[,NAME]] [--json OUT] [--markdown OUT]`.

Runs the workloads, prints the table, the notes and the machine. Exits 0 unless a
workload crashed (a missed target is a verdict in the table, never a failure: the smoke
mode that CI runs must not fail on noise).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

from . import agents, any_checkpoint, async_api, big_stores, fanout, history, imports, postgres, storage, studio, superstep
from .graphs import LANGGRAPH_MISSING, langgraph_backend
from .harness import PROFILES, Context, Row
from .report import machine, markdown_table, notes, text_table, write_json

WORKLOADS = (imports, superstep, async_api, fanout, agents, storage, history, any_checkpoint, studio, postgres, big_stores)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m tests.bench", description=__doc__.split("\n\n")[1])
    size = p.add_mutually_exclusive_group()
    size.add_argument("--smoke", action="store_true", help="tiny sizes, well under a minute (what CI runs)")
    size.add_argument("--full", action="store_true", help="the issue's sizes with more runs (for the README)")
    p.add_argument("--only", action="append", default=[], metavar="NAME",
                   help="run only these workloads or rows: " + ", ".join(w.NAME for w in WORKLOADS)
                   + " or a row key such as history.load_last (repeatable, comma-separated)")
    p.add_argument("--json", metavar="OUT.json", help="also write the results as JSON")
    p.add_argument("--markdown", metavar="OUT.md", help="also write the table as Markdown")
    p.add_argument("--studio-python", metavar="PYTHON", default="",
                   help="run the studio benchmarks with this interpreter (e.g. another Qt version)")
    p.add_argument("--no-langgraph", action="store_true", help="leave the LangGraph columns empty")
    return p.parse_args(argv)


def _selection(only: Sequence[str]) -> list[str]:
    tokens = [t.strip() for item in only for t in item.split(",") if t.strip()]
    names = [w.NAME for w in WORKLOADS]
    for token in tokens:
        if not any(token.split(".")[0].startswith(n) for n in names):
            raise SystemExit(f"--only {token}: no such workload (choose from {', '.join(names)})")
    return tokens


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    profile = PROFILES["smoke" if args.smoke else "full" if args.full else "standard"]
    tokens = _selection(args.only)
    lg = None if args.no_langgraph else langgraph_backend()
    started = time.perf_counter()
    rows: list[Row] = []
    crashed = False
    with tempfile.TemporaryDirectory(prefix="retrograph-bench-") as tmp:
        ctx = Context(profile=profile, langgraph=lg, workdir=Path(tmp), only=tuple(tokens),
                      studio_python=args.studio_python,
                      progress=lambda text: print(f"[{time.perf_counter() - started:6.1f}s] {text}",
                                                  file=sys.stderr, flush=True))
        for workload in WORKLOADS:
            if not ctx.wants(workload.NAME):
                continue
            try:
                found = workload.run(ctx)
            except Exception as exc:  # noqa: BLE001 (reported as a row; the exit code says it crashed)
                crashed = True
                traceback.print_exc()
                found = [Row(key=f"{workload.NAME}.error", workload=f"{workload.NAME}: crashed", unit="",
                             status="error", note=f"{type(exc).__name__}: {exc}".splitlines()[0])]
            rows += [r for r in found if r.status == "error" or ctx.wants(r.key)]
    _print(profile.name, rows, lg is None and not args.no_langgraph, time.perf_counter() - started)
    if args.json:
        write_json(args.json, profile.name, rows)
    if args.markdown:
        Path(args.markdown).write_text(markdown_table(rows) + "\n", encoding="utf-8")
    return 1 if crashed else 0


def _print(profile: str, rows: Sequence[Row], lg_missing: bool, seconds: float) -> None:
    print(f"Retrograph benchmarks, profile `{profile}`"
          + (" (tiny sizes: the verdicts say nothing about the targets)" if profile == "smoke" else ""))
    if lg_missing:
        print(LANGGRAPH_MISSING)
    print()
    print(text_table(rows))
    print()
    for line in notes(rows):
        print(f"  {line}")
    m = machine()
    print()
    print(f"machine: {m['nproc']} CPUs ({m['cpu']}), Python {m['python']}, {m['platform']}; "
          f"langgraph {m['langgraph']}; {m['date']}; suite took {seconds:.0f} s")


if __name__ == "__main__":
    sys.exit(main())

"""Big stores (issue 26): history on PostgreSQL against SQLite, and a LangGraph SQLite file
with a million rows.

- `retrograph history --json --values` over an N-checkpoint thread (N = the profile's
  `history_steps`: 10,000 at standard size) saved by the engine's PostgresSaver, against
  the same thread in its SqliteSaver, in the same run: PostgreSQL within 2× of SQLite
  (values are read a page at a time, two queries a page).
- A LangGraph SQLite file with one thread of 333,334 checkpoints and 666,668 writes
  (1,000,002 rows; tests/langgraph_bulk.py builds it from LangGraph's own records): the
  studio's open (threads, the newest 1,000 headers, the newest values and pending writes)
  and `retrograph history --json` of the whole thread, each in a fresh process that
  reports its time, the rows the reader fetched and its peak memory (VmHWM). Targets: the
  open within 2 s reading at most 5,000 rows; the listing within 200 MB.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, TypedDict

from .harness import Context, Row, Target, alternate, timed

__all__ = ["NAME", "run"]

NAME = "big_stores"
TESTS = Path(__file__).resolve().parents[1]
MILLION = 333_334  # checkpoints; with 2 writes each, 1,000,002 rows


class HistoryState(TypedDict):
    note: str
    n: int


def _postgres_history(ctx: Context, server: Any) -> list[Row]:
    import io

    from engine import END, START, SqliteSaver, StateGraph
    from engine.checkpoint import PostgresSaver
    from studio.cli.commands import parse_args
    from studio.cli.history import cmd_history

    steps = ctx.profile.history_steps
    g = StateGraph(HistoryState)
    g.add_node("step", lambda s: {"note": f"step {s['n']} of the run", "n": s["n"] + 1})
    g.add_edge(START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < steps else END, ["step", END])
    targets = {"sqlite": str(ctx.workdir / "history-values.sqlite"), "postgres": server.url()}
    for kind, target in targets.items():
        ctx.progress(f"big_stores: a {steps:,}-step thread on {kind}")
        saver = SqliteSaver(target) if kind == "sqlite" else PostgresSaver(target)
        g.compile(checkpointer=saver).invoke({"note": "", "n": 0}, {"configurable": {"thread_id": "t"},
                                                                  "recursion_limit": steps + 10})
        saver.close()

    def listing(target: str) -> Any:
        def once() -> float:
            out, err = io.StringIO(), io.StringIO()
            seconds, code = timed(lambda: cmd_history(parse_args(["history", target, "--thread", "t", "--json",
                                                                   "--values"]), out=out, err=err))
            assert code == 0, err.getvalue()
            assert out.getvalue().count("\n") == steps + 2
            return seconds
        return once

    medians = alternate({k: listing(t) for k, t in targets.items()}, runs=ctx.profile.runs, warmup=1)
    return [Row(
        key="big_stores.postgres_history", workload=f"`history --json --values`, {steps + 2:,} checkpoints, "
        "PostgreSQL ÷ SQLite", unit="×", engine=medians["postgres"] / medians["sqlite"], floor=1.0,
        target=Target(kind="max", limit=2.0), comparable=False,
        note=f"PostgreSQL {medians['postgres']:.2f} s, SQLite {medians['sqlite']:.2f} s, the same thread in the "
             "engine's two savers, same run, alternating; values a page of 200 at a time (two queries a page)",
        extra={"postgres_s": medians["postgres"], "sqlite_s": medians["sqlite"]},
    )]


_CHILD = """
import json, resource, sys, time
sys.path.insert(0, {tests!r})
from engine.checkpoint.foreign.langgraph_sqlite import LangGraphSqliteReader
rows = [0]
real = LangGraphSqliteReader._query
def counted(self, sql, params=()):
    out = real(self, sql, params)
    rows[0] += len(out)
    return out
LangGraphSqliteReader._query = counted
path, thread, what = sys.argv[1:4]
started = time.perf_counter()
if what == "open":
    from engine.checkpoint.reading import open_store
    from studio.session.loading import FIRST_PAGE, _read_history
    with open_store(path) as store:
        store.threads()
        _, shown, _ = _read_history(store, thread, FIRST_PAGE)
        store.load(thread, shown[-1].id)
        store.pending_writes(thread, shown[-1].id)
    count = len(shown)
else:
    import io
    from studio.cli.commands import parse_args
    from studio.cli.history import cmd_history
    class Lines(io.TextIOBase):
        n = 0
        def write(self, text):
            self.n += text.count("\\n")
            return len(text)
    out = Lines()
    assert cmd_history(parse_args(["history", path, "--thread", thread, "--json"]), out=out, err=sys.stderr) == 0
    count = out.n
seconds = time.perf_counter() - started
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({{"seconds": seconds, "rows": rows[0], "count": count, "hwm_mb": hwm / 1024}}))
"""


def _child(path: Path, thread: str, what: str) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", _CHILD.format(tests=str(TESTS)), str(path), thread, what],
                          capture_output=True, text=True, timeout=3600, cwd=TESTS.parent)
    if proc.returncode != 0:
        raise RuntimeError(f"the {what} child failed: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _million(ctx: Context) -> list[Row]:
    sys.path.insert(0, str(TESTS))
    from langgraph_bulk import write_long_thread

    n = 3_000 if ctx.profile.is_smoke else MILLION
    path = ctx.workdir / "langgraph-million.sqlite"
    ctx.progress(f"big_stores: writing a LangGraph SQLite file of {3 * n:,} rows")
    seconds, thread = timed(lambda: write_long_thread(path, n))
    total_rows = thread["checkpoints"] + thread["writes"]
    size_mb = path.stat().st_size / 2**20
    runs = max(1, ctx.profile.runs // 2)
    opens = [_child(path, thread["thread_id"], "open") for _ in range(runs)]
    ctx.progress("big_stores: listing every header")
    listing = _child(path, thread["thread_id"], "history")
    assert listing["count"] == n and all(o["count"] == min(n, 1000) for o in opens)
    median_open = sorted(opens, key=lambda o: o["seconds"])[len(opens) // 2]
    where = f"a {n:,}-checkpoint LangGraph thread ({total_rows:,} rows, {size_mb:,.0f} MB SQLite file)"
    return [
        Row(key="big_stores.langgraph_million_open", workload=f"open {where}", unit="s",
            engine=median_open["seconds"], target=Target(kind="max", limit=2.0),
            note=f"as the studio opens it, in a fresh process: threads, the newest 1,000 headers, the newest values "
                 f"and pending writes; {median_open['rows']:,} rows read; peak {median_open['hwm_mb']:.0f} MB "
                 f"(the file was built in {seconds:.0f} s)",
            extra={"rows_read": median_open["rows"], "hwm_mb": median_open["hwm_mb"]}),
        Row(key="big_stores.langgraph_million_rows_read", workload="… rows the reader fetched for that open",
            unit="rows", engine=float(median_open["rows"]), target=Target(kind="max", limit=5000.0),
            note=f"of {total_rows:,}: the newest page of ids, its records and writes, their parents'"),
        Row(key="big_stores.langgraph_million_history", workload="`history --json`, every header of that thread",
            unit="s", engine=listing["seconds"],
            note=f"a page of 1,000 checkpoints at a time; {listing['rows']:,} rows read; peak "
                 f"{listing['hwm_mb']:.0f} MB", extra={"rows_read": listing["rows"], "hwm_mb": listing["hwm_mb"]}),
        Row(key="big_stores.langgraph_million_memory", workload="… peak memory of that listing", unit="MB",
            engine=listing["hwm_mb"], target=Target(kind="max", limit=200.0),
            note="VmHWM of the process (interpreter and imports included)"),
    ]


def run(ctx: Context) -> list[Row]:
    rows: list[Row] = []
    if ctx.wants("big_stores.postgres_history"):
        sys.path.insert(0, str(TESTS))
        from pg_server import start

        try:
            server = start()
        except Exception as exc:  # noqa: BLE001 - no server here: that row is left out
            ctx.progress(f"big_stores: no PostgreSQL server ({str(exc).splitlines()[0]}); its row is left out")
        else:
            try:
                rows += _postgres_history(ctx, server)
            finally:
                server.stop()
    if ctx.langgraph is not None and ctx.wants("big_stores.langgraph_million"):
        rows += _million(ctx)
    return rows

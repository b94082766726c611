"""Studio benchmarks, each run offscreen in a child process (see studio_child.py).

- a graph of N nodes and 2N edges laid out (off the UI thread) and drawn, and the UI thread's
  longest stall meanwhile;
- one node step with a 10,000-message state: the UI thread's longest stall, each step's time
  until Qt repainted what it changed (no forced whole-window repaint), the repaints counted;
- a database whose thread holds 100,000 checkpoints opened: until its timeline is shown,
  until all of it is in the timeline (Home), paging through it, the process's peak memory,
  and the UI thread's longest stall from the open to the whole history;
- a post-mortem of a 300-wide fan-out: each checkpoint selected, the UI thread's longest stall;
  then zoomed in to 100%, dragged and zoomed a step at a time, the longest stall per step.

A workload that cannot run raises (the row says "error" and the suite exits non-zero). A child
that measured and then died on its way out keeps its figures, with the exit in the note.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .graphs import ENGINE, note_graph
from .harness import Context, Row, Target

__all__ = ["NAME", "run"]

NAME = "studio"

ROOT = Path(__file__).resolve().parents[2]

_CHAT_GRAPH = '''\
"""Benchmark graph: a chat node that appends one reply per step to {messages} messages."""
from engine import END, START, AIMessage, HumanMessage, MessagesState, StateGraph

FILLER = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor"


def chat(state):
    return {{"messages": [AIMessage(content=f"reply {{len(state['messages'])}}: " + FILLER)]}}


def again(state):
    return "chat" if len(state["messages"]) < 10**9 else END


builder = StateGraph(MessagesState)
builder.add_node("chat", chat)
builder.add_edge(START, "chat")
builder.add_conditional_edges("chat", again, ["chat", END])
graph = builder.compile()

example_input = {{"messages": [HumanMessage(content=f"message {{i}}: " + FILLER) for i in range({messages})]}}
'''


def _child(ctx: Context, workload: str, args: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    # from compiled bytecode, as an installed copy runs (pip compiles at install): a bytecode cache
    # of the bench's own, filled by the first child, with PYTHONDONTWRITEBYTECODE dropped (as the
    # import row does); without it a machine that sets that variable times the compiler at start-up
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(QT_QPA_PLATFORM="offscreen", PYTHONPYCACHEPREFIX=str(ctx.workdir / "pycache"))
    proc = subprocess.run(
        [ctx.studio_python or sys.executable, "-m", "tests.bench.studio_child", workload, json.dumps(args)],
        check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout_s,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-12:]
        raise RuntimeError(f"studio child `{workload}` failed (exit {proc.returncode}):\n" + "\n".join(tail))
    result = json.loads(lines[-1])
    if proc.returncode != 0:  # measured, then died on the way out: say so next to the figure
        fatal = [ln for ln in proc.stderr.splitlines() if "Fatal" in ln or "Error" in ln][:1]
        result["exit_problem"] = f"the studio process exited with {proc.returncode} after measuring" + (
            f" ({fatal[0].strip()})" if fatal else "")
    return result


def _with_exit_problem(row: Row, result: dict[str, Any]) -> None:
    if result.get("exit_problem"):
        row.note = f"{row.note}; {result['exit_problem']}" if row.note else result["exit_problem"]


def _startup_row(ctx: Context) -> Row:
    """`retrograph resources/examples/react_agent.py`: from the process's spawn to the window
    on screen, and to the graph drawn (the window must come first, saying what it waits for)."""
    ctx.progress("studio: start-up of the window")
    row = Row(key="studio.startup", workload="studio: `retrograph react_agent.py` until the window is shown",
              unit="s", target=Target(kind="max", limit=2.0))
    example = ROOT / "resources" / "examples" / "react_agent.py"
    runs = []
    for _ in range(1 + (1 if ctx.profile.is_smoke else 3)):  # the first fills the bytecode cache: not counted
        spawned = time.time()
        result = _child(ctx, "startup", {"graph_file": str(example), "db": ctx.new_db("studio-startup")}, 300)
        runs.append((result["shown_at"] - spawned, result["drawn_at"] - spawned, result))
    shown, drawn, result = sorted(runs[1:], key=lambda r: r[0])[(len(runs) - 2) // 2]  # the median start
    row.engine = shown
    row.note = (f"median of {len(runs) - 1} starts from compiled bytecode (first, compiling: {runs[0][0]:.2f} s); "
                f"the graph drawn at {drawn:.2f} s; while it imported the window said \"{result['waiting_text']}\"")
    _with_exit_problem(row, result)
    return row


def _graph_rows(ctx: Context) -> list[Row]:
    """A graph of N nodes laid out and drawn in fresh panels: the time until drawn, and the
    UI thread's longest stall meanwhile (layout on a worker, the items made in slices)."""
    p = ctx.profile
    ctx.progress(f"studio: drawing a {p.studio_nodes}-node graph")
    row = Row(key="studio.graph", workload=f"studio: {p.studio_nodes}-node, {p.studio_edges}-edge graph laid out "
              "and drawn", unit="s", target=Target(kind="max", limit=1.5))
    stall = Row(key="studio.graph_stall", workload=f"studio: {p.studio_nodes}-node, {p.studio_edges}-edge graph "
                "laid out and drawn, longest UI-thread stall", unit="ms", target=Target(kind="max", limit=50.0))
    result = _child(ctx, "graph", {"nodes": p.studio_nodes, "edges": p.studio_edges, "repeats": p.studio_repeats},
                    600)
    row.engine = result["seconds"]
    row.note = (f"median of {p.studio_repeats} fresh panels ({result['nodes']} nodes, {result['edges']} "
                f"edges); first (cold) {result['cold_seconds']:.2f} s; its stall is the next row")
    stall.engine = result["worst_cpu_ms"]
    stall.note = (f"UI-thread CPU between two ticks of a 5 ms timer (the stall on an idle machine), worst of "
                  f"{p.studio_repeats} fresh panels (the cold first not counted: {result['cold_cpu_ms']:.0f} ms); "
                  f"wall-clock stall {result['worst_stall_ms']:.0f} ms on this machine; items made in "
                  f"{result['slices']} slices of at most {result['largest_slice']}")
    for r in (row, stall):
        _with_exit_problem(r, result)
    return [r for r in (row, stall) if ctx.wants(r.key)]


def _step_row(ctx: Context) -> Row:
    """F10 on a chat graph whose state holds 10,000 messages: the UI thread's longest stall
    per step (the issue's target), with each step's time until Qt repainted what it changed."""
    p = ctx.profile
    ctx.progress(f"studio: stepping with {p.studio_messages:,} messages")
    row = Row(key="studio.step", workload=f"studio: one node step, {p.studio_messages:,}-message state, "
              "longest UI-thread stall", unit="ms", target=Target(kind="max", limit=50.0))
    graph_file = ctx.workdir / "chat_graph.py"
    graph_file.write_text(_CHAT_GRAPH.format(messages=p.studio_messages), encoding="utf-8")
    result = _child(ctx, "step", {"graph_file": str(graph_file), "db": ctx.new_db("studio-step"),
                                  "messages": p.studio_messages, "repeats": p.studio_repeats}, 600)
    row.engine = result["step_cpu_ms"]
    paints = ", ".join(f"{name} {n}" for name, n in sorted(result.get("paints", {}).items()))
    row.note = (f"UI-thread CPU between two ticks of a 5 ms timer (the stall on an idle machine), worst of "
                f"{p.studio_repeats} steps (F10), median {result['median_cpu_ms']:.0f} ms; wall-clock stall "
                f"{result['step_stall_ms']:.0f} ms on this machine; each step shown in {result['median_ms']:.0f} ms "
                f"(median; slowest {result['max_ms']:.0f} ms), repaints counted ({paints}); opening the graph with "
                f"its {p.studio_messages:,}-message input: stall {result['open_stall_ms']:.0f} ms "
                f"({result['open_cpu_ms']:.0f} ms CPU)")
    _with_exit_problem(row, result)
    return row


def _timeline_rows(ctx: Context) -> list[Row]:
    p = ctx.profile
    n = p.studio_checkpoints
    rows = [
        Row(key="studio.timeline", workload=f"studio: {n:,}-checkpoint thread opened, timeline shown", unit="s",
            target=Target(kind="max", limit=2.0)),
        Row(key="studio.timeline_full", workload=f"studio: … Home: all {n:,} checkpoints read into the timeline",
            unit="s", target=Target(kind="max", limit=2.0)),
        Row(key="studio.timeline_scroll", workload=f"studio: paging through {n:,} timeline rows (median)",
            unit="ms", target=Target(kind="max", limit=16.7)),
        Row(key="studio.timeline_rss", workload=f"studio: peak process memory with {n:,} checkpoints open",
            unit="MB", target=Target(kind="max", limit=500.0)),
        Row(key="studio.timeline_stall", workload=f"studio: {n:,}-checkpoint thread opened and all of it read "
            "(Home), longest UI-thread stall", unit="ms", target=Target(kind="max", limit=50.0)),
    ]
    _child(ctx, "probe", {}, 300)
    ctx.progress(f"studio: writing a {n:,}-checkpoint thread")
    db = ctx.new_db("studio-timeline")
    saver = ENGINE.sqlite_saver(db)
    try:
        note_graph(ENGINE, saver).invoke(
            {"n": 0, "note": "", "stop": n - 2}, {"recursion_limit": n + 10, "configurable": {"thread_id": "long"}})
    finally:
        saver.close()
    ctx.progress("studio: opening it")
    result = _child(ctx, "timeline", {"db": db, "checkpoints": n}, 600)
    shown, full, scroll, rss, stall = rows
    shown.engine = result["seconds"]
    shown.note = (f"from open_database() to Qt's first paint of the timeline's rows ({result['first_rows']:,} "
                  "newest checkpoints read; older pages are read as the timeline scrolls back)")
    full.engine = result["full_seconds"]
    full.note = (f"from Home in the timeline to Qt's paint of all {result['rows']:,} rows listed "
                 f"({result['older_reads']} read)")
    stall.engine = result["stall_cpu_ms"]
    stall.note = (f"UI-thread CPU between two ticks of a 5 ms timer (the stall on an idle machine), worst from "
                  f"open_database() to the whole history painted: opening {result['open_cpu_ms']:.0f} ms, Home to "
                  f"all rows {result['load_cpu_ms']:.0f} ms; wall-clock stall {result['worst_stall_ms']:.0f} ms on "
                  "this machine (opening "
                  f"{result['open_stall_ms']:.0f} ms, Home {result['load_stall_ms']:.0f} ms)")
    scroll.engine = result["scroll_median_ms"]
    scroll.note = (f"one page of the timeline scrolled and redrawn; slowest {result['scroll_max_ms']:.1f} ms;"
                   " target: a 60 Hz frame")
    rss.engine = result["peak_rss_mb"]
    rss.note = "VmHWM of the studio process (Qt, engine and the open thread)"
    _with_exit_problem(shown, result)
    _with_exit_problem(stall, result)
    return rows


_WIDE_GRAPH = '''\
"""Benchmark graph: a {width}-wide fan-out, run a few rounds; one of its tasks fails in the last."""
import operator
from typing import Annotated, TypedDict

from engine import END, START, StateGraph


class S(TypedDict, total=False):
    round: int
    out: Annotated[list, operator.add]


def make(i):
    def work(s):
        if s.get("round", 0) >= 3 and i == {width} // 2:
            raise RuntimeError("boom")
        return {{"out": [i]}}
    return work


builder = StateGraph(S)
names = [f"w{{i:03d}}" for i in range({width})]
builder.add_node("plan", lambda s: {{"round": s.get("round", 0) + 1}})
for i, name in enumerate(names):
    builder.add_node(name, make(i))
    builder.add_edge("plan", name)
builder.add_node("join", lambda s: {{}})
builder.add_edge(names, "join")
builder.add_edge(START, "plan")
builder.add_conditional_edges("join", lambda s: "plan" if s["round"] < 9 else END, ["plan", END])
graph = builder.compile()
'''


def _wide_rows(ctx: Context) -> list[Row]:
    """A post-mortem of a 300-wide fan-out whose last superstep failed (299 pending writes):
    every checkpoint selected in turn (the UI thread's longest stall per selection); then,
    zoomed in to 100% on its fan-out, the view dragged sideways and zoomed in and out a
    wheel notch at a time (the longest stall per step)."""
    width = 300 if ctx.profile.studio_nodes >= 200 else 10
    ctx.progress(f"studio: selecting checkpoints of a {width}-wide post-mortem")
    row = Row(key="studio.wide", workload=f"studio: a checkpoint of a {width}-wide post-mortem selected, "
              "longest UI-thread stall", unit="ms", target=Target(kind="max", limit=50.0))
    zoom = Row(key="studio.wide_zoom", workload=f"studio: the {width}-wide post-mortem at 100%, dragged and "
               "zoomed a step at a time, longest UI-thread stall", unit="ms", target=Target(kind="max", limit=50.0))
    wanted = [r for r in (row, zoom) if ctx.wants(r.key)]
    import importlib.util

    source = ctx.workdir / "wide_graph.py"
    source.write_text(_WIDE_GRAPH.format(width=width), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("retrograph_bench_wide", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    db = ctx.new_db("studio-wide")
    saver = ENGINE.sqlite_saver(db)
    try:
        module.graph.with_checkpointer(saver).invoke({"round": 0, "out": []}, {"configurable": {"thread_id": "wide"}})
    except RuntimeError:
        pass  # the failure the post-mortem is about
    finally:
        saver.close()
    repeats = ctx.profile.studio_repeats if width >= 300 else 1
    result = _child(ctx, "wide", {"db": db, "thread_id": "wide", "repeats": repeats if row in wanted else 0,
                                  "zoom_steps": 2 * repeats if zoom in wanted else 0}, 600)
    if row in wanted:
        row.engine = result["worst_cpu_ms"]
        row.note = (f"UI-thread CPU between two ticks of a 5 ms timer (the stall on an idle machine), worst of "
                    f"{repeats} round{'s' if repeats != 1 else ''} over its {result['checkpoints']} checkpoints; "
                    f"median {result['median_cpu_ms']:.0f} ms; wall-clock stall {result['worst_stall_ms']:.0f} ms "
                    f"on this machine; each selection shown in {result['median_ms']:.0f} ms (median)")
    if zoom in wanted:
        z = result["zoom"]
        zoom.engine = z["worst_cpu_ms"]
        zoom.note = (f"UI-thread CPU between two ticks of a 5 ms timer, worst of {z['drags']} drags of "
                     f"{z['drag_px']} px (worst {z['drag_worst_cpu_ms']:.0f} ms, median {z['drag_median_cpu_ms']:.0f}) "
                     f"and {z['zooms']} wheel-notch zooms in and out (worst {z['zoom_worst_cpu_ms']:.0f} ms, median "
                     f"{z['zoom_median_cpu_ms']:.0f}); each step repainted (counted), until its picture was whole; "
                     f"wall-clock stall {z['worst_stall_ms']:.0f} ms on this machine")
    for r in wanted:
        _with_exit_problem(r, result)
    return wanted


def run(ctx: Context) -> list[Row]:
    rows: list[Row] = []
    if ctx.wants("studio.startup"):
        rows.append(_startup_row(ctx))
    if ctx.wants("studio.graph"):
        rows += _graph_rows(ctx)
    if ctx.wants("studio.step"):
        rows.append(_step_row(ctx))
    if ctx.wants("studio.timeline"):
        rows += _timeline_rows(ctx)
    if ctx.wants("studio.wide"):
        rows += _wide_rows(ctx)
    return rows

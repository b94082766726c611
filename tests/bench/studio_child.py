"""One studio benchmark in a process of its own (offscreen Qt), reporting JSON.

`python -m tests.bench.studio_child WORKLOAD '{"arg": ...}'` prints one JSON line: the
figures. A workload that cannot run fails the process loudly (a traceback and a non-zero
exit), so the suite's row says "error" and its smoke test fails: no row is ever left "pending".
A process of its own keeps Qt out of the engine benchmarks and makes its peak RSS the
studio's own.
"""
from __future__ import annotations

import asyncio
import itertools
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[2]
_PANELS = ("GraphPanel", "StatePanel", "DiffPanel", "TimelinePanel", "EventsPanel", "InspectorPanel",
           "InterruptPanel")

__all__ = ["main"]


def _graph_panel() -> Any:
    """The graph panel class (studio/panels/graph/panel.py)."""
    from studio.panels.graph.panel import GraphPanel

    return GraphPanel


def _require_window() -> None:
    """The window's panels are the real ones: a panel that `studio.panels` lost is an error."""
    _graph_panel()
    from studio import panels

    missing = [n for n in _PANELS if not hasattr(panels, n)]
    if missing:
        raise RuntimeError(f"studio.panels does not export {', '.join(missing)}: the benchmark cannot run")


def _peak_rss_mb() -> float:
    """The process's peak resident memory (VmHWM), in MB."""
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class _StallMeter:
    """The longest gap between ticks of a 5 ms timer: how long the UI thread was blocked.
    Also the most CPU time the UI thread spent between two ticks (`worst_cpu`, from
    `time.thread_time()`): what the stall would be on an idle machine, since other
    processes sharing the cores do not count in it."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.worst = 0.0
        self.worst_cpu = 0.0
        self._last = time.perf_counter()
        self._last_cpu = time.thread_time()
        self._timer = QTimer()
        self._timer.setInterval(5)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        self.worst = max(self.worst, now - self._last)
        self.worst_cpu = max(self.worst_cpu, cpu - self._last_cpu)
        self._last, self._last_cpu = now, cpu

    def stop(self) -> float:
        self._timer.stop()
        self._tick()
        return self.worst


def big_graph(nodes: int, edges: int) -> Any:
    """A compiled engine graph of `nodes` nodes and `edges` plain edges (START/END included):
    a chain, then skips of growing length until the edge count is reached."""
    from engine import END, START, StateGraph

    names = [f"n{i:03d}" for i in range(nodes)]
    builder = StateGraph(dict)
    for name in names:
        builder.add_node(name, lambda state: {})
    pairs = [(START, names[0]), (names[-1], END)] + list(itertools.pairwise(names))
    skip = 2
    while len(pairs) < edges and skip < nodes:
        pairs += [(names[i], names[i + skip]) for i in range(0, nodes - skip, skip - 1)][: edges - len(pairs)]
        skip += 1
    for source, target in pairs:
        builder.add_edge(source, target)
    return builder.compile()


async def _until(check: Any, timeout_s: float = 120.0) -> None:
    deadline = time.perf_counter() + timeout_s
    while not check():
        if time.perf_counter() > deadline:
            raise TimeoutError("the studio did not settle in time")
        await asyncio.sleep(0.001)


# -- workloads ------------------------------------------------------------------------------------
async def startup_workload(app: Any, graph_file: str, db: str) -> dict[str, Any]:
    """`retrograph FILE` in this fresh process, in run_window's order: the studio's modules
    imported, the window made and shown, then the graph imported (off the UI thread) and
    drawn. Reports wall-clock instants (time.time()); the parent subtracts its spawn time."""
    from studio.session.session import Session
    from studio.window.main_window import MainWindow

    window = MainWindow(Session(Path(db)), remember_layout=False)
    window.resize(1280, 720)
    window.open_graph(graph_file)
    window.show()
    await asyncio.sleep(0)  # one turn of the loop: the window's first paint
    shown_at = time.time()
    waiting = window.panels.graph.status.text()
    graph = window.panels.graph
    await _until(lambda: window.session.graph is not None and bool(graph.node_ids()) and not graph.is_layout_pending())
    drawn_at = time.time()
    window.close()
    return {"shown_at": shown_at, "drawn_at": drawn_at, "waiting_text": waiting}


async def graph_workload(app: Any, nodes: int, edges: int, repeats: int) -> dict[str, Any]:
    """Lay out and draw the graph in a fresh GraphPanel, `repeats` times (plus a cold run)."""
    GraphPanel = _graph_panel()
    from studio.core import convert

    compiled = big_graph(nodes, edges)
    counts = compiled.get_graph().nx
    times, stalls, cpus, slices = [], [], [], []
    for _ in range(repeats + 1):
        panel = GraphPanel()
        panel.resize(1400, 900)
        panel.show()
        app.processEvents()
        meter = _StallMeter()
        start = time.perf_counter()
        panel.set_graph(convert.graph_view(compiled))
        pending = getattr(panel, "is_layout_pending", lambda: False)
        await _until(lambda pending=pending: not pending())
        app.processEvents()
        panel.repaint()
        times.append(time.perf_counter() - start)
        stalls.append(meter.stop())
        cpus.append(meter.worst_cpu)
        getattr(panel, "shutdown", lambda: None)()
        panel.close()
        panel.deleteLater()
        app.processEvents()
        drawing = getattr(panel, "last_drawing", None)
        slices.append((getattr(drawing, "slices", 1), getattr(drawing, "largest", 0)))
    return {"seconds": statistics.median(times[1:]), "cold_seconds": times[0],
            "worst_stall_ms": max(stalls[1:]) * 1e3, "worst_cpu_ms": max(cpus[1:]) * 1e3,
            "cold_cpu_ms": cpus[0] * 1e3, "slices": max(n for n, _ in slices),
            "largest_slice": max(m for _, m in slices),
            "nodes": counts.number_of_nodes(),
            "edges": counts.number_of_edges()}


def _window(db: str) -> tuple[Any, Any]:
    from PySide6.QtCore import QSettings

    from studio.window.main_window import MainWindow
    from studio.session.session import Session

    settings = QSettings(str(Path(db).with_suffix(".ini")), QSettings.Format.IniFormat)
    window = MainWindow(Session(db), settings=settings, watch=False)
    window.resize(1600, 1000)
    window.show()
    return window, window.session


_STEP_PANELS = ("graph", "state", "timeline", "events")
"""The panels a node step changes, each repainted by Qt after every step (counted)."""


class _PaintCounter:
    """Counts the paint events of the panels' drawing surfaces (what Qt repainted)."""

    def __init__(self, window: Any) -> None:
        from PySide6.QtCore import QEvent, QObject
        from PySide6.QtWidgets import QWidget

        self.counts: dict[str, int] = {}
        panels = window.panels
        surfaces = {"graph": panels.graph.canvas.viewport(), "state": panels.state,
                    "timeline": getattr(panels.timeline, "table", panels.timeline).viewport(),
                    "events": panels.events}
        counts, paint = self.counts, QEvent.Type.Paint

        class Filter(QObject):
            def eventFilter(self, watched: Any, event: Any) -> bool:  # noqa: N802 (Qt's name)
                if event.type() == paint:
                    name = self.names.get(id(watched))
                    if name is not None:
                        counts[name] = counts.get(name, 0) + 1
                return False

        self._filter = Filter()
        self._filter.names = {}
        for name, widget in surfaces.items():
            for w in (widget, *widget.findChildren(QWidget)):
                self._filter.names[id(w)] = name
                w.installEventFilter(self._filter)


def _settled(window: Any) -> bool:
    return window.session.settled and not window.session.busy and window.panels.ready()


async def step_workload(app: Any, graph_file: str, db: str, messages: int, repeats: int) -> dict[str, Any]:
    """One node step (F10) with a `messages`-message state, until Qt has repainted what it changed
    (each step: the UI thread's longest stall; the panels' repaints counted, each must repaint)."""
    _require_window()
    from studio.cli.script import wait_signal

    window, session = _window(db)
    app.processEvents()
    meter = _StallMeter()  # the UI thread while the graph with its 10k-message input opens
    if not window.open_graph(graph_file):
        raise RuntimeError(f"the studio could not open {graph_file}")
    await _until(lambda: _settled(window))
    app.processEvents()
    open_stall = meter.stop()
    open_cpu = meter.worst_cpu

    painted = _PaintCounter(window)

    async def step() -> float:
        start = time.perf_counter()
        if not session.step():
            raise RuntimeError("the session refused to step")
        _, outcome = await wait_signal(session.commandFinished, 120.0)
        if isinstance(outcome, Exception):
            raise outcome
        await _until(lambda: _settled(window))
        await asyncio.sleep(0.02)  # the repaints the step asked for, as Qt schedules them (the loop runs Qt's)
        return time.perf_counter() - start

    for _ in range(3):  # the input superstep, then warm-up steps of the node
        await step()
    meter = _StallMeter()
    painted.counts.clear()
    times, stalls, cpus = [], [], []
    for _ in range(repeats):
        step_meter = _StallMeter()
        times.append(await step())
        stalls.append(step_meter.stop())
        cpus.append(step_meter.worst_cpu)
    step_stall = meter.stop()
    missing = [name for name in _STEP_PANELS if painted.counts.get(name, 0) < repeats]
    if missing:
        raise RuntimeError(f"a step did not repaint {', '.join(missing)}: {painted.counts}")
    shown = len((window.panels.values or {}).get("messages", ()))
    if shown < messages:
        raise RuntimeError(f"the state panel shows {shown} messages, expected {messages}+")
    window.close()
    return {"median_ms": statistics.median(times) * 1e3, "max_ms": max(times) * 1e3, "messages": shown,
            "open_stall_ms": open_stall * 1e3, "open_cpu_ms": open_cpu * 1e3,
            "step_stall_ms": step_stall * 1e3, "step_cpu_ms": meter.worst_cpu * 1e3,
            "median_cpu_ms": statistics.median(cpus) * 1e3, "paints": dict(painted.counts)}


class _TimelinePaints:
    """When Qt painted the timeline's rows, and how many rows its model held then: the
    timeline is "shown" at its first paint with rows, not at a repaint the benchmark forces."""

    def __init__(self, timeline: Any) -> None:
        from PySide6.QtCore import QEvent, QObject

        self.times: list[tuple[float, int]] = []
        model, times, paint = timeline.model, self.times, QEvent.Type.Paint

        class Filter(QObject):
            def eventFilter(self, watched: Any, event: Any) -> bool:  # noqa: N802 (Qt's name)
                if event.type() == paint:
                    times.append((time.perf_counter(), model.rowCount()))
                return False

        self._filter = Filter()
        self._viewport = getattr(timeline, "table", timeline).viewport()
        self._viewport.installEventFilter(self._filter)

    def first_with(self, rows: int, since: float) -> float | None:
        """The first paint since `since` with at least `rows` rows in the model."""
        return next((t for t, n in self.times if t >= since and n >= rows), None)


async def timeline_workload(app: Any, db: str, checkpoints: int) -> dict[str, Any]:
    """Open a database whose thread holds `checkpoints` checkpoints: time until the
    timeline is shown (Qt painted its newest page); then Home in the timeline, until the
    whole history is in it and painted; then page through it. The UI thread's longest
    stall is measured over the open and over Home (a 5 ms timer)."""
    _require_window()
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication

    window, session = _window(db)
    app.processEvents()
    timeline = window.panels.timeline
    painted = _TimelinePaints(timeline)
    meter = _StallMeter()
    start = time.perf_counter()
    if not window.open_database(db):
        raise RuntimeError(f"the studio could not open {db}")
    await _until(lambda: _settled(window) and len(session.history) > 0
                 and painted.first_with(1, start) is not None)
    await asyncio.sleep(0.02)  # the repaints the open asked for, as Qt schedules them
    shown = (painted.first_with(1, start) or start) - start
    open_stall, open_cpu = meter.stop(), meter.worst_cpu
    meter = _StallMeter()
    first_rows = len(session.history)
    table = getattr(timeline, "table", timeline)
    table.setFocus()
    started = time.perf_counter()
    for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):  # the user asks for the oldest: the rest is read
        QApplication.postEvent(table, QKeyEvent(kind, Qt.Key.Key_Home, Qt.KeyboardModifier.NoModifier))

    since = started if first_rows < checkpoints else start  # all listed at the open: no new paint to wait for

    def loaded() -> bool:
        return (_settled(window) and len(session.history) >= checkpoints and timeline.model.rowCount() >= checkpoints
                and painted.first_with(checkpoints, since) is not None)

    await _until(loaded)
    await asyncio.sleep(0.02)
    full = max((painted.first_with(checkpoints, since) or started) - started, 0.0)
    load_stall = meter.stop()
    scroll_ms: list[float] = []
    bar = table.verticalScrollBar()
    for _ in range(50):
        t = time.perf_counter()
        bar.setValue(bar.value() + max(bar.pageStep(), 1))
        table.viewport().repaint()
        app.processEvents()
        scroll_ms.append((time.perf_counter() - t) * 1e3)
    peak = _peak_rss_mb()
    pages = getattr(getattr(session, "pages", None), "pages_read", None)
    window.close()
    return {"seconds": shown, "full_seconds": full, "peak_rss_mb": peak, "rows": len(session.history),
            "first_rows": first_rows, "older_reads": pages, "worst_stall_ms": max(open_stall, load_stall) * 1e3,
            "load_stall_ms": load_stall * 1e3, "load_cpu_ms": meter.worst_cpu * 1e3,
            "open_stall_ms": open_stall * 1e3, "open_cpu_ms": open_cpu * 1e3,
            "stall_cpu_ms": max(open_cpu, meter.worst_cpu) * 1e3,
            "scroll_median_ms": statistics.median(scroll_ms), "scroll_max_ms": max(scroll_ms)}


async def wide_workload(app: Any, db: str, thread_id: str, repeats: int, zoom_steps: int = 0) -> dict[str, Any]:
    """A post-mortem of a wide fan-out (its file, no code): each of its checkpoints selected
    in turn, `repeats` rounds, until every panel shows it. Per selection: the UI thread's
    longest stall and most CPU between two ticks of the meter. Then (`zoom_steps`) the graph
    at 100% on its fan-out, dragged and zoomed a step at a time (see `_zoomed_steps`)."""
    _require_window()
    window, session = _window(db)
    if not window.open_database(db, thread_id=thread_id):
        raise RuntimeError(f"the studio could not open {db}")
    graph = window.panels.graph
    await _until(lambda: _settled(window) and len(session.history) > 0 and bool(graph.node_ids())
                 and not graph.is_layout_pending())
    app.processEvents()
    ids = [r.id for r in session.history.rows()]
    times, stalls, cpus = [], [], []
    for _ in range(repeats + 1 if repeats else 0):
        for cid in ids:
            meter = _StallMeter()
            start = time.perf_counter()
            session.select_checkpoint(cid)
            await _until(lambda cid=cid: _settled(window) and session.viewed_id in (cid, None))
            app.processEvents()
            await asyncio.sleep(0.02)  # the repaints it asked for
            app.processEvents()
            times.append(time.perf_counter() - start)
            stalls.append(meter.stop())
            cpus.append(meter.worst_cpu)
    warm = len(ids)  # the first round draws every badge for the first time
    result: dict[str, Any] = {"checkpoints": len(ids), "nodes": len(graph.node_ids())}
    if repeats:
        result.update(median_ms=statistics.median(times[warm:]) * 1e3, worst_stall_ms=max(stalls[warm:]) * 1e3,
                      worst_cpu_ms=max(cpus[warm:]) * 1e3, median_cpu_ms=statistics.median(cpus[warm:]) * 1e3)
    if zoom_steps:
        result["zoom"] = await _zoomed_steps(window, zoom_steps)
    window.close()
    return result


_DRAG_PX = 40
"""One mouse move of a drag across the canvas (the view follows the hand)."""
_NOTCH = 1.0015 ** 120
"""One wheel notch of zoom (the canvas's wheelEvent)."""


async def _zoomed_steps(window: Any, steps: int) -> dict[str, Any]:
    """The graph at 100% around `plan` (the fan-out's root, where all its edges cross the
    view), then `steps` drags right and as many back, then `steps` wheel notches in, each
    followed by one out. Per step: until the canvas has repainted (counted; a step with no
    repaint is an error) and its picture is whole; the UI thread's longest stall and CPU."""
    from PySide6.QtCore import QEvent, QObject

    graph = window.panels.graph
    canvas = graph.canvas
    paints = [0]

    class Painted(QObject):
        def eventFilter(self, watched: Any, event: Any) -> bool:  # noqa: N802 (Qt's name)
            if event.type() == QEvent.Type.Paint:
                paints[0] += 1
            return False

    painted = Painted()
    canvas.viewport().installEventFilter(painted)
    whole = getattr(graph, "picture_whole", lambda: True)

    async def step(act: Any) -> tuple[float, float]:
        meter = _StallMeter()
        before = paints[0]
        if act() is not False:  # False: nothing moved (a graph narrower than the view)
            await _until(lambda: paints[0] > before and whole(), 60.0)
        await asyncio.sleep(0.02)
        return meter.stop(), meter.worst_cpu

    graph.set_zoom(1.0)
    canvas.centerOn(graph.node_item("plan"))
    await _until(whole, 60.0)
    await asyncio.sleep(0.2)
    bar = canvas.horizontalScrollBar()
    def drag(dx: int) -> bool:
        was = bar.value()
        bar.setValue(was + dx)
        return bar.value() != was

    drags = [await step(lambda d=d: drag(d)) for d in [_DRAG_PX] * steps + [-_DRAG_PX] * steps]
    zooms = []
    for _ in range(steps):
        zooms.append(await step(lambda: graph.zoom_by(_NOTCH)))
        zooms.append(await step(lambda: graph.zoom_by(1 / _NOTCH)))
    canvas.viewport().removeEventFilter(painted)
    every = drags + zooms
    return {"drags": len(drags), "zooms": len(zooms), "drag_px": _DRAG_PX,
            "worst_cpu_ms": max(c for _, c in every) * 1e3, "worst_stall_ms": max(s for s, _ in every) * 1e3,
            "drag_worst_cpu_ms": max(c for _, c in drags) * 1e3,
            "drag_median_cpu_ms": statistics.median(c for _, c in drags) * 1e3,
            "zoom_worst_cpu_ms": max(c for _, c in zooms) * 1e3,
            "zoom_median_cpu_ms": statistics.median(c for _, c in zooms) * 1e3}


async def probe_workload(app: Any) -> dict[str, Any]:
    """Whether every panel is written (so the caller knows to build a big database)."""
    _require_window()
    return {"status": "ready"}


def main(argv: list[str]) -> int:
    name, args = argv[0], json.loads(argv[1]) if len(argv) > 1 else {}
    sys.path.insert(0, str(ROOT))
    from studio.cli.launch import make_app, make_loop

    app = make_app()
    app.setQuitOnLastWindowClosed(False)  # closing one panel must not stop the loop
    loop = make_loop(app)
    workload = {"probe": probe_workload, "graph": graph_workload, "step": step_workload, "timeline": timeline_workload,
                "startup": startup_workload, "wide": wide_workload}[name]
    with loop:
        result = loop.run_until_complete(workload(app, **args))
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

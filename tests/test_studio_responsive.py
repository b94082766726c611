"""The window stays responsive while a node (or a graph file's import) blocks, and such a node can be stopped.

No clock decides these tests. The blocking code waits on a gate, a file that only the UI
thread opens: a 10 ms QTimer on it counts its ticks and creates the file after TICKS of
them. Code that ran on the UI thread would block that timer and could never see the gate
(it gives up after GIVE_UP_S and says so); code that ran elsewhere sees it open once the
UI thread has gone on handling events while it waited. A stopped node waits on a gate
that opens only when the test ends, so a stop that returns proves it did not wait for it.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from test_studio_support import (  # noqa: F401 (fixtures)
    act,
    open_window,
    panel_text,
    settings,
    studio_loop,
    wait_ready,
    write_graph,
)

TICKS = 20
GIVE_UP_S = 30

GATE = """
    from pathlib import Path
    GATE = Path({gate!r})

    def wait_for_gate():
        deadline = time.monotonic() + {give_up}
        while not GATE.exists():
            if time.monotonic() > deadline:
                raise TimeoutError("the UI thread never ticked while this code waited")
            time.sleep(0.005)

    async def await_gate():
        deadline = time.monotonic() + {give_up}
        while not GATE.exists():
            if time.monotonic() > deadline:
                raise TimeoutError("the event loop never ticked while this node waited")
            await asyncio.sleep(0.005)
"""

SLEEPY = """
    class S(TypedDict):
        log: Annotated[list, operator.add]

    def sync_sleeper(s):
        wait_for_gate()
        return {{"log": ["sync done"]}}

    async def async_sleeper(s):
        await await_gate()
        return {{"log": ["async done"]}}

    builder = StateGraph(S)
    builder.add_node("sleeper", {kind}_sleeper)
    builder.add_edge(START, "sleeper")
    graph = builder.compile()
    example_input = {{"log": []}}
"""

SLOW_IMPORT = """
    wait_for_gate()  # a slow import: a model download, a big library

    class S(TypedDict):
        log: Annotated[list, operator.add]

    builder = StateGraph(S)
    builder.add_node("only", lambda s: {"log": ["ran"]})
    builder.add_edge(START, "only")
    graph = builder.compile()
    example_input = {"log": []}
"""
SLOW_IMPORT_HALF_SECOND = SLOW_IMPORT.replace("wait_for_gate()  #", "time.sleep(0.5)  #")


def _gated(tmp_path: Path, name: str, body: str, gate: Path) -> Path:
    return write_graph(tmp_path, name, GATE.format(gate=str(gate), give_up=GIVE_UP_S) + body)


class UiTicks:
    """A 10 ms timer on the UI thread that opens `gate` after TICKS ticks."""

    def __init__(self, gate: Path) -> None:
        from PySide6.QtCore import QTimer

        self.gate = gate
        self.count = 0
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        self.count += 1
        if self.count == TICKS:
            self.gate.touch()

    def start(self) -> None:
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()


@pytest.fixture
def gate(tmp_path: Path) -> Iterator[Path]:
    """The gate's path; opened at the end of the test so nothing is left waiting on it."""
    path = tmp_path / "gate"
    yield path
    path.touch()


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_event_loop_keeps_ticking_while_a_node_waits(open_window, qtbot, tmp_path: Path, gate: Path, kind: str) -> None:
    window = open_window(_gated(tmp_path, f"sleepy_{kind}", SLEEPY.format(kind=kind), gate))
    act(qtbot, window, "step")  # __start__
    ticks = UiTicks(gate)
    ticks.start()
    outcome = act(qtbot, window, "step", timeout=(GIVE_UP_S + 15) * 1000)
    ticks.stop()
    assert outcome.reason == "done", panel_text(window.panels.events)
    assert window.session.state.values["log"] == [f"{kind} done"]
    assert ticks.count >= TICKS


QUICK_THEN_LOOPING = """
    import threading

    class S(TypedDict):
        threads: Annotated[list, operator.add]

    def quick(s):  # microseconds: the async API would call it on the loop's thread next time
        return {"threads": [threading.current_thread().name]}

    builder = StateGraph(S)
    builder.add_node("quick", quick)
    builder.add_edge(START, "quick")
    builder.add_conditional_edges("quick", lambda s: "quick" if len(s["threads"]) < 4 else END)
    graph = builder.compile()
    example_input = {"threads": []}
"""

QUICK_FAN_OUT = """
    import threading

    class S(TypedDict):
        threads: Annotated[list, operator.add]

    def quick(s):
        return {"threads": [threading.current_thread().name]}

    builder = StateGraph(S)
    for name in ("a", "b", "c"):
        builder.add_node(name, quick)
        builder.add_edge(START, name)
        builder.add_edge(name, "join")
    builder.add_node("join", lambda s: {})
    builder.add_conditional_edges("join", lambda s: ["a", "b", "c"] if len(s["threads"]) < 9 else END)
    graph = builder.compile()
    example_input = {"threads": []}
"""


QUICK_IN_A_SUBGRAPH = """
    import threading

    class S(TypedDict):
        threads: Annotated[list, operator.add]

    def quick(s):
        return {"threads": [threading.current_thread().name]}

    inner = StateGraph(S)
    inner.add_node("quick", quick)
    inner.add_edge(START, "quick")
    inner.add_conditional_edges("quick", lambda s: "quick" if len(s["threads"]) < 4 else END)

    builder = StateGraph(S)
    builder.add_node("sub", inner.compile())
    builder.add_edge(START, "sub")
    graph = builder.compile()
    example_input = {"threads": []}
"""


@pytest.mark.parametrize("body", [QUICK_THEN_LOOPING, QUICK_FAN_OUT, QUICK_IN_A_SUBGRAPH],
                         ids=["lone", "fan_out", "subgraph"])
def test_a_node_seen_quick_still_never_runs_on_the_ui_thread(open_window, qtbot, tmp_path: Path, body: str) -> None:
    """The async API calls a plain sync node it has seen to be quick on the loop's thread;
    in the studio that thread is the UI's, so a node that blocks on a later call would freeze
    the window and Stop could not reach it. The studio's runs keep every node off it."""
    window = open_window(write_graph(tmp_path, "quick_nodes", body))
    outcome = act(qtbot, window, "continue_", timeout=30000)
    assert outcome.reason == "done", panel_text(window.panels.events)
    threads = window.session.state.values["threads"]
    assert len(threads) >= 4
    assert threading.main_thread().name not in threads, threads


def test_stop_a_sync_node_discards_its_result(open_window, qtbot, tmp_path: Path, gate: Path) -> None:
    window = open_window(_gated(tmp_path, "sleepy_sync", SLEEPY.format(kind="sync"), gate))
    s = window.session
    act(qtbot, window, "step")  # __start__
    head = s.head_id
    with qtbot.waitSignal(s.commandFinished, timeout=5000):
        window.actions.step.trigger()
        qtbot.waitUntil(lambda: "sleeper" in s.marks().running, timeout=3000)
        assert window.actions.stop.isEnabled()
        window.actions.stop.trigger()  # Shift+F5
    assert not gate.exists(), "the node could not have finished: its gate is shut"
    worker = [t for t in threading.enumerate() if t.name.startswith("engine-worker")]
    assert any(t.is_alive() for t in worker), "the sync node's thread should still be waiting"
    assert "keeps running in its worker thread" in panel_text(window.panels.events)
    assert s.status_view().status == "stopped"
    assert s.head_id == head and len(s.history) == 2  # nothing committed, history intact
    assert window.actions.step.isEnabled()


def test_stop_an_async_node_cancels_it(open_window, qtbot, tmp_path: Path, gate: Path) -> None:
    window = open_window(_gated(tmp_path, "sleepy_async", SLEEPY.format(kind="async"), gate))
    s = window.session
    act(qtbot, window, "step")
    with qtbot.waitSignal(s.commandFinished, timeout=5000):
        window.actions.step.trigger()
        qtbot.waitUntil(lambda: "sleeper" in s.marks().running, timeout=3000)
        window.actions.stop.trigger()
    assert s.status_view().status == "stopped"
    gate.touch()
    outcome = act(qtbot, window, "step")  # F10 runs it again
    assert outcome.reason == "done" and s.state.values["log"] == ["async done"]


def test_a_slow_import_never_freezes_the_window(qtbot, studio_loop, settings, tmp_path: Path, gate: Path) -> None:
    """Opening a graph file runs its code off the UI thread."""
    from studio.window.main_window import MainWindow
    from studio.session.session import Session

    path = _gated(tmp_path, "slow_import", SLOW_IMPORT, gate)
    window = MainWindow(Session(tmp_path / "runs.sqlite"), settings=settings, watch=False)
    qtbot.addWidget(window)
    window.show()
    ticks = UiTicks(gate)
    ticks.start()
    with qtbot.waitSignal(window.session.graphOpened, timeout=(GIVE_UP_S + 15) * 1000) as blocker:
        assert window.open_graph(str(path)) is True  # returns while the import waits on its gate
        assert not gate.exists() and window.session.status_view().status == "loading"
    assert blocker.args == [path, True], panel_text(window.panels.events)
    wait_ready(qtbot, window)
    ticks.stop()
    assert ticks.count >= TICKS
    assert window.windowTitle().startswith("slow_import.py")
    assert act(qtbot, window, "step").reason == "stepped"  # __start__
    window.close()


def test_a_step_asked_for_during_a_reload_waits_for_it(open_window, qtbot, tmp_path: Path) -> None:
    path = write_graph(tmp_path, "slow_reload", SLOW_IMPORT_HALF_SECOND)
    window = open_window(path, watch=False)
    s = window.session
    old = s.graph
    assert window.session.reload() is True
    assert s.status_view().status == "loading"
    outcome = act(qtbot, window, "step")  # runs once the file is imported again
    assert s.graph is not old and outcome.reason == "stepped"

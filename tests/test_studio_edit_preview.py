"""The edit dialog's previews (dry runs of the graph's routers and reducers) never block the
UI thread: a router that hangs leaves the window responsive, the dialog says the preview is
unavailable, only one dry run is ever in flight, and OK still forks."""
from __future__ import annotations

import json
import threading
from pathlib import Path

from test_state_edits_in_the_window import _with_editor
from test_studio_support import (  # noqa: F401 (fixtures)
    act,
    open_window,
    settings,
    studio_loop,
    wait_ready,
    write_graph,
)

HANGING = """
    import os

    GATE = {gate!r}
    LOG = {log!r}

    class S(TypedDict):
        log: Annotated[list, operator.add]
        route: str

    def prepare(s):
        return {{"log": ["prepared"]}}
    def router(s):  # hangs while the gate file exists (bounded, so a failing test ends)
        with open(LOG, "a") as f:
            f.write("in\\n")
        deadline = time.monotonic() + 60
        while os.path.exists(GATE) and time.monotonic() < deadline:
            time.sleep(0.02)
        return s.get("route") or "review"
    def review(s):
        return {{"log": ["reviewed"]}}
    def refund(s):
        return {{"log": ["refunded"]}}
    def close(s):
        return {{"log": ["closed"]}}

    builder = StateGraph(S)
    for name, fn in (("prepare", prepare), ("review", review), ("refund", refund), ("close", close)):
        builder.add_node(name, fn)
    builder.add_edge(START, "prepare")
    builder.add_conditional_edges("prepare", router, {{"needs review": "review", "refund": "refund"}})
    builder.add_edge("review", "close")
    builder.add_edge("refund", "close")
    builder.add_edge("close", END)
    graph = builder.compile()
    example_input = {{"log": [], "route": "needs review"}}
"""


def _preview_threads() -> int:
    return sum(t.name == "retrograph-edit-preview" and t.is_alive() for t in threading.enumerate())


def test_a_hanging_router_leaves_the_dialog_responsive_and_ok_still_forks(open_window, qtbot,
                                                                          tmp_path: Path) -> None:
    from PySide6.QtCore import QTimer

    gate, log = tmp_path / "gate", tmp_path / "router.log"
    window = open_window(write_graph(tmp_path, "hanging", HANGING.format(gate=str(gate), log=str(log))))
    s = window.session
    act(qtbot, window, "continue_")  # to the end (the router ran once, at full speed)
    head = s.head_id
    gate.write_text("closed")  # from now on the router hangs
    log.write_text("")
    seen: dict = {}

    def edit(dialog) -> None:
        ticks: list[int] = []
        beat = QTimer(dialog)
        beat.timeout.connect(lambda: ticks.append(1))
        beat.start(10)
        data = json.loads(dialog.editor.toPlainText())
        data["route"] = "refund"
        dialog.editor.setPlainText(json.dumps(data))
        dialog.refresh_plan()  # returns at once: the dry run is on a worker thread
        assert "Previewing" in dialog.next_label.text()
        qtbot.waitUntil(lambda: "Preview unavailable" in dialog.next_label.text(), timeout=15000)
        assert ticks, "the UI thread's timers did not fire while the preview ran"
        assert "`prepare`'s write" in dialog.next_label.text()  # names the code that hangs
        for route in ("x", "y", "refund"):  # more keystrokes: they wait, no thread per keystroke
            data["route"] = route
            dialog.editor.setPlainText(json.dumps(data))
            dialog.refresh_plan()
        qtbot.waitUntil(lambda: "Preview unavailable" in dialog.next_label.text(), timeout=15000)
        seen["in_flight"] = (_preview_threads(), log.read_text().count("in"))
        seen["ok"] = dialog.ok_button.isEnabled()
        beat.stop()

    _with_editor(qtbot, window, head, edit)  # presses OK while the preview still hangs
    assert seen == {"in_flight": (1, 1), "ok": True}
    assert window.panels.editor is None  # the dialog closed: the fork waits for the router, not the UI
    gate.unlink()
    qtbot.waitUntil(lambda: s.head_id != head, timeout=15000)
    wait_ready(qtbot, window)
    assert s.history.get(s.head_id).source == "update"
    assert s.state.values["route"] == "refund" and s.history.get(s.head_id).next == ("refund",)
    qtbot.waitUntil(lambda: _preview_threads() == 0, timeout=15000)  # the hung dry run ended, none queued


def test_the_fast_preview_still_shows_before_confirming(open_window, qtbot, tmp_path: Path) -> None:
    gate, log = tmp_path / "gate", tmp_path / "router.log"
    window = open_window(write_graph(tmp_path, "fast", HANGING.format(gate=str(gate), log=str(log))))
    s = window.session
    act(qtbot, window, "continue_")
    head = s.head_id

    def edit(dialog):
        data = json.loads(dialog.editor.toPlainText())
        data["route"] = "x"  # a route the router's map lacks
        dialog.editor.setPlainText(json.dumps(data))
        qtbot.waitUntil(dialog.preview_ready, timeout=10000)  # after the typing pause, and the dry run
        shown = dialog.as_node_box.currentText(), dialog.next_label.text()
        data["route"] = "refund"
        dialog.editor.setPlainText(json.dumps(data))
        qtbot.waitUntil(dialog.preview_ready, timeout=10000)
        return shown, dialog.as_node_box.currentText(), dialog.next_label.text(), dialog.ok_button.isEnabled()

    shown, as_node, text, ok = _with_editor(qtbot, window, head, edit)
    assert shown == ("review", "Next: close (F10 runs it).")  # prepare's router refuses "x": skipped
    assert (as_node, text, ok) == ("prepare", "Next: refund (F10 runs it).", True), shown
    qtbot.waitUntil(lambda: s.head_id != head, timeout=15000)
    wait_ready(qtbot, window)
    assert s.history.get(s.head_id).next == ("refund",)

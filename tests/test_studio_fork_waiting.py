"""Edit-and-fork with a router that does not return: the fork is a command under the
one-command guard, the banner says which router it waits for and since when, and Abandon
gives the fork up at once (the guard is released; the router's late result is dropped)."""
from __future__ import annotations

import threading
from pathlib import Path

from test_studio_edit_preview import HANGING
from test_studio_support import (  # noqa: F401 (fixtures)
    act,
    open_window,
    settings,
    studio_loop,
    wait_ready,
    write_graph,
)


def _dry_run_threads() -> int:
    return sum(t.name == "retrograph-edit-preview" and t.is_alive() for t in threading.enumerate())


def test_a_fork_waiting_on_a_router_says_so_and_can_be_abandoned(open_window, qtbot, tmp_path: Path,
                                                                   monkeypatch) -> None:
    from PySide6.QtCore import Qt, QTimer

    from studio.core import dryrun

    monkeypatch.setattr(dryrun, "TIMEOUT_S", 0.3)  # say it sooner than in use (2 s)
    gate, log = tmp_path / "gate", tmp_path / "router.log"
    window = open_window(write_graph(tmp_path, "hanging", HANGING.format(gate=str(gate), log=str(log))))
    s = window.session
    act(qtbot, window, "continue_")
    head, count = s.head_id, len(s.history)
    gate.write_text("closed")  # from now on the router hangs
    ticks: list[int] = []
    beat = QTimer(window)
    beat.timeout.connect(lambda: ticks.append(1))
    beat.start(10)
    s.edit_and_fork(head, {"route": "refund"})
    assert s.busy  # the fork holds the one-command guard: no step meanwhile
    assert not s.step()
    banner = window.banner
    qtbot.waitUntil(lambda: banner.isVisible() and banner.error is not None and banner.error.kind == "waiting",
                    timeout=10000)
    assert banner.text.text().startswith(
        "fork waiting: router `router` (after `prepare`'s write) has not returned after "), banner.text.text()
    assert banner.abandon.isVisible() and ticks, "the window must stay responsive"
    qtbot.mouseClick(banner.abandon, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not s.busy, timeout=5000)  # released at once: the router still hangs
    assert _dry_run_threads() == 1
    assert not banner.isVisible()
    assert s.head_id == head and len(s.history) == count
    # the router returns later: its result is dropped, nothing is written
    gate.unlink()
    qtbot.waitUntil(lambda: _dry_run_threads() == 0, timeout=15000)
    qtbot.wait(100)  # a late result would show within a poll or two (nothing asserted on time)
    assert s.head_id == head and len(s.history) == count and not s.busy
    beat.stop()
    # and the studio forks again normally
    s.edit_and_fork(head, {"route": "refund"})
    qtbot.waitUntil(lambda: s.head_id != head, timeout=15000)
    wait_ready(qtbot, window)
    qtbot.waitUntil(lambda: not s.busy, timeout=5000)
    assert s.history.get(s.head_id).next == ("refund",)

"""Issue 25 re-checks, through real keys and clicks: F5 inside a subgraph runs to the end of
the subgraph (not of the whole parent run); the Redact dialog's Cancel exports nothing.
(Ctrl+N's example input: test_studio_new_run_context.py; a read-only post-mortem offers no
Rewind: test_studio_postmortem.py.)"""
from __future__ import annotations

from pathlib import Path

from test_studio_support import EXAMPLES, open_window, settings, studio_loop, wait_ready  # noqa: F401 (fixtures)


def _press(qtbot, window, key):
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    with qtbot.waitSignal(window.session.commandFinished, timeout=20000) as blocker:
        QTest.keyClick(QApplication.focusWidget() or window, key)
    wait_ready(qtbot, window)
    return blocker.args[1]  # (command, outcome)


def test_f5_inside_a_subgraph_stops_at_the_subgraphs_end(open_window, qtbot) -> None:
    from PySide6.QtCore import Qt

    window = open_window(EXAMPLES / "subgraph.py")
    s = window.session
    for _ in range(4):  # START, plan: `research` (the subgraph) is next
        if "next: research" in window.status_state.text():
            break
        _press(qtbot, window, Qt.Key.Key_F10)
    assert "research" in window.status_state.text(), window.status_state.text()
    outcome = _press(qtbot, window, Qt.Key.Key_F11)  # step into research
    assert s.inside_subgraph == "research", (outcome, s.inside_subgraph)
    outcome = _press(qtbot, window, Qt.Key.Key_F5)  # runs fetch and extract, then stops in the parent
    assert s.inside_subgraph is None, outcome
    assert outcome.reason != "done", f"F5 ran the whole parent run to its end: {outcome}"
    assert "write" in window.status_state.text(), window.status_state.text()  # the parent's next node
    assert s.state.values.get("facts"), "the subgraph's result is in the parent's state"
    assert _press(qtbot, window, Qt.Key.Key_F5).reason == "done"  # F5 again: the parent to its end


def test_cancel_in_the_redact_dialog_exports_nothing(open_window, qtbot, tmp_path: Path) -> None:
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QDialogButtonBox, QFileDialog

    window = open_window(EXAMPLES / "subgraph.py")
    _press(qtbot, window, Qt.Key.Key_F10)
    target = tmp_path / "exported.sqlite"
    seen: list[str] = []

    def drive() -> None:  # runs inside each modal dialog's own event loop
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, QFileDialog):
            seen.append("file")
            dialog.selectFile(str(target))
            dialog.accept()
            QTimer.singleShot(300, drive)
        elif dialog is not None and dialog.objectName() == "redactDialog":
            seen.append("redact")
            cancel = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Cancel)
            assert cancel is not None and cancel.isVisible()
            QTest.mouseClick(cancel, Qt.MouseButton.LeftButton)
        elif len(seen) < 20:
            seen.append("wait")
            QTimer.singleShot(200, drive)

    QTimer.singleShot(300, drive)
    window.debug_dock.export_action.trigger()  # Debug ▸ Export thread…
    assert seen[-1] == "redact" and "file" in seen, seen
    qtbot.wait(500)
    assert not target.exists(), "Cancel exported the thread anyway"

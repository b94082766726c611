"""A widget made before its panel's layout and shown on its own becomes a top-level window
for a moment: under a window manager it flashes on screen and takes the keyboard from the
studio (after the interrupt below, F10 and F5 did nothing until a click). Driven by keys."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from test_studio_support import open_window, settings, studio_loop, wait_ready, write_graph  # noqa: F401

pytest.importorskip("PySide6")

ASKING = """
    class S(TypedDict):
        items: Annotated[list, operator.add]

    def review(s):
        answer = interrupt({"question": "Ship the draft?", "draft": s["items"]})
        return {"items": [f"answer: {answer}"]}

    def boom(s):
        raise ValueError("no")

    b = StateGraph(S)
    b.add_node("draft", lambda s: {"items": ["draft"]})
    b.add_node("review", review)
    b.add_node("boom", boom)
    b.add_edge(START, "draft")
    b.add_edge("draft", "review")
    b.add_edge("review", "boom")
    graph = b.compile()
    example_input = {"items": []}
"""


def _watch_windows(qapp: Any, main: Any) -> list[str]:
    """The names of widgets other than `main` shown as plain top-level windows (popups,
    tooltips and dialogs are windows by design)."""
    from PySide6.QtCore import QEvent, QObject, Qt
    from PySide6.QtWidgets import QWidget

    seen: list[str] = []
    plain = (Qt.WindowType.Window, Qt.WindowType.Widget)

    class Watch(QObject):
        def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
            if event.type() == QEvent.Type.Show and isinstance(obj, QWidget) and obj.isWindow() \
                    and obj is not main and obj.windowType() in plain:
                seen.append(f"{type(obj).__name__} {obj.objectName()!r}")
            return False

    watch = Watch(main)
    qapp.installEventFilter(watch)
    return seen


def _key(qtbot: Any, window: Any, key: Any, modifier: Any = None) -> Any:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    with qtbot.waitSignal(window.session.commandFinished, timeout=20000) as blocker:
        QTest.keyClick(window, key, modifier or Qt.KeyboardModifier.NoModifier)
    wait_ready(qtbot, window)
    return blocker.args[1]


def test_an_interrupt_and_an_error_flash_no_window_and_the_keys_still_work(open_window, qtbot, qapp,
                                                                           tmp_path: Path) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    window = open_window(write_graph(tmp_path, "asking", ASKING))
    seen = _watch_windows(qapp, window)
    for _ in range(3):  # __start__, draft, review: it asks
        _key(qtbot, window, Qt.Key.Key_F10)
    assert window.session.status == "interrupted"
    qtbot.wait(200)  # the platform's focus change, if a window flashed, arrives after the event
    assert seen == [], f"shown as windows of their own: {seen}"
    assert window.isActiveWindow(), "the studio lost the keyboard at the interrupt"
    result = _key(qtbot, window, Qt.Key.Key_F10)  # reaches the window: refused, with its reason
    assert "waiting at an interrupt" in str(result)
    window.actions.answer.trigger()  # Ctrl+I
    editor = window.panels.interrupts.first_editor()
    QTest.keyClicks(editor, '"ship it"')
    with qtbot.waitSignal(window.session.commandFinished, timeout=20000):
        QTest.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)  # Resume
    wait_ready(qtbot, window)
    outcome = _key(qtbot, window, Qt.Key.Key_F5)  # boom fails
    assert outcome.reason == "failed", outcome
    qtbot.wait(200)
    assert seen == [], f"shown as windows of their own: {seen}"
    assert window.isActiveWindow()

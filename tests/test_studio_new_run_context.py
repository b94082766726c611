"""The new-run dialog (Ctrl+N) in a real window: Input, Context and Config pre-filled from the
file's examples and schemas, checked on Start, and the context kept with the thread so a
restart and a window opened later on the same thread (another process) run with it."""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from engine import SqliteSaver
from test_studio_support import (  # noqa: F401
    ROOT,
    act,
    open_window,
    run_command,
    settings,
    studio_loop,
    wait_ready,
    write_graph,
)

APP = ROOT / "resources" / "examples" / "user_memory.py"


def with_new_run_dialog(qtbot: Any, window: Any, fn: Callable[[Any], Any], *, start: bool = True) -> Any:
    """Press Ctrl+N, let `fn` work in the dialog, then press Start (Enter is a newline in
    the boxes, so the button is clicked) or Escape."""
    from studio.window.new_run import NewRunDialog

    seen: dict[str, Any] = {}

    def poll() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, NewRunDialog):
            QTimer.singleShot(20, poll)
            return
        try:
            seen["result"] = fn(dialog)
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            seen["error"] = exc
            dialog.reject()
            return
        if start:
            qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
            if dialog.isVisible():
                seen["still_open"] = dialog.problem.text()
                dialog.reject()
        else:
            QTest.keyClick(dialog, Qt.Key.Key_Escape)

    QTimer.singleShot(0, poll)
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: "result" in seen or "error" in seen, timeout=15000)
    if "error" in seen:
        raise seen["error"]
    return seen


def type_into(editor: Any, text: str) -> None:
    """Select the box's text and type over it, key by key."""
    editor.setFocus()
    QTest.keyClick(editor, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(editor, text)


def test_ctrl_n_starts_from_the_files_example_input_and_context(open_window, qtbot) -> None:
    window = open_window(APP)

    def look(dialog):
        return json.loads(dialog.editor.toPlainText()), json.loads(dialog.context_editor.toPlainText())

    seen = with_new_run_dialog(qtbot, window, look, start=False)
    assert seen["result"] == ({"question": "what do you know about me?"}, {"user_id": "ada", "tone": "friendly"})


def test_a_typed_context_reaches_the_nodes_and_stays_with_the_thread(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(APP)
    seen = with_new_run_dialog(qtbot, window, lambda d: type_into(d.context_editor,
                                                                  '{"user_id": "bob", "tone": "formal"}'))
    assert "still_open" not in seen
    wait_ready(qtbot, window)
    thread = window.session.thread_id
    assert act(qtbot, window, "continue_").reason == "interrupted"
    [pending] = window.session.state.driver.interrupts
    assert pending.interrupt.value == {"question": "What should I remember about bob?"}
    metas = [t.metadata for t in SqliteSaver(str(tmp_path / "runs.sqlite")).list(
        {"configurable": {"thread_id": thread}})]
    assert metas and all(m.get("run_context") == {"user_id": "bob", "tone": "formal"} for m in metas)
    window.close()

    later = open_window(APP, thread_id=thread)  # another window, as a new process would open it
    outcome = run_command(qtbot, later, lambda: later.session.resume("likes tea", pending.interrupt.id))
    assert outcome.reason in ("stepped", "committed", "done")
    act(qtbot, later, "continue_")
    assert later.session.state.values["answer"].startswith("Good day, bob. About you I know: likes tea.")


def test_a_context_that_does_not_fit_the_schema_keeps_the_dialog_open_and_says_why(open_window, qtbot) -> None:
    window = open_window(APP)
    before = window.session.thread_id
    seen = with_new_run_dialog(qtbot, window, lambda d: type_into(d.context_editor, '{"tone": "formal"}'))
    assert "Context does not fit UserContext" in seen["still_open"] and "user_id" in seen["still_open"]
    assert window.session.thread_id == before  # nothing was started


def test_a_bad_config_names_the_config_box(open_window, qtbot) -> None:
    window = open_window(APP)
    seen = with_new_run_dialog(qtbot, window, lambda d: type_into(d.config_editor, '{"recursion_limit": -1}'))
    assert seen["still_open"].startswith("Config: recursion_limit must be a whole number")


SCHEMAS_ONLY = """
    from dataclasses import dataclass
    @dataclass
    class Who:
        name: str
        level: int = 2
    class S(TypedDict, total=False):
        question: str
        count: int
        said: str
    def hello(s, runtime):
        return {"said": f"{runtime.context.name}/{runtime.context.level}: {s.get('question')}"}
    b = StateGraph(S, context_schema=Who)
    b.add_node("hello", hello)
    b.add_edge(START, "hello")
    graph = b.compile()
"""


def test_without_examples_the_boxes_start_from_the_schemas_fields(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "schemas_only", SCHEMAS_ONLY))

    def fill(dialog):
        shown = json.loads(dialog.editor.toPlainText()), json.loads(dialog.context_editor.toPlainText())
        type_into(dialog.editor, '{"question": "hi"}')
        type_into(dialog.context_editor, '{"name": "cy"}')
        return shown

    seen = with_new_run_dialog(qtbot, window, fill)
    assert seen["result"] == ({"question": "", "count": 0, "said": ""}, {"name": "", "level": 2})
    wait_ready(qtbot, window)
    assert act(qtbot, window, "continue_").reason == "done"
    assert window.session.state.values["said"] == "cy/2: hi"
    first = window.session.thread_id
    window.actions.restart.trigger()  # a new thread with the same input and context
    qtbot.waitUntil(lambda: window.session.thread_id != first)
    wait_ready(qtbot, window)
    assert act(qtbot, window, "continue_").reason == "done"
    assert window.session.state.values["said"] == "cy/2: hi"

"""An @entrypoint in the studio: its task calls show as events, an interrupt inside it
is answered in the window, and the resume does not run finished tasks again."""
from __future__ import annotations

from pathlib import Path

from test_studio_support import act, answer, event_lines, open_window, settings, studio_loop  # noqa: F401

FLOW = '''
from engine import interrupt
from engine.func import entrypoint, task

@task
def double(x):
    return x * 2

@entrypoint()
def flow(x):
    y = double(x).result()
    ok = interrupt({"double": y})
    return {"result": double(y).result() if ok == "yes" else None}

example_input = 3
'''


def test_entrypoint_tasks_are_events_and_an_interrupt_is_answered(open_window, qtbot, tmp_path: Path) -> None:
    path = tmp_path / "flow.py"
    path.write_text(FLOW, encoding="utf-8")
    window = open_window(path)
    s = window.session
    outcome = act(qtbot, window, "continue_")
    assert outcome.reason == "interrupted"
    assert "double: wrote __return__" in event_lines(window)
    [pending] = s.state.driver.interrupts
    assert pending.interrupt.value == {"double": 6}
    answer(qtbot, window, pending.interrupt.id, '"yes"')
    assert s.status_view().status == "done"
    assert s.state.values == {"result": 12}  # the entrypoint's return value, as get_state().values gives it
    # the first call was saved: the resumed entrypoint got it back, only the second one ran
    assert event_lines(window).count("double: wrote __return__") == 2

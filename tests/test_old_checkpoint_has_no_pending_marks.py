"""Issue 25 item 13: "✓ pending" marks a task whose writes wait for its superstep to commit.
Viewing an older checkpoint whose superstep has since committed (the next checkpoint holds
those writes) shows no such mark, though the writes stay stored with the old checkpoint."""
from __future__ import annotations

from typing import Any

from test_studio_support import EXAMPLES, act, open_window, settings, studio_loop, wait_ready  # noqa: F401


def _pending(window: Any) -> set[str]:
    badges = window.panels.graph.why.badges
    return {name for name, items in badges.items() if "✓ pending" in [b.text for b in items]}


def test_a_committed_superstep_shows_no_pending_marks_when_viewed_later(open_window: Any, qtbot: Any) -> None:
    window = open_window(EXAMPLES / "parallel_search.py")
    s = window.session
    act(qtbot, window, "step")  # START writes the input: search_web and search_db planned
    planned = s.head_id
    act(qtbot, window, "step")  # one of the two: its writes are pending
    assert len(_pending(window)) == 1
    act(qtbot, window, "step")  # the other, and the superstep commits
    act(qtbot, window, "step")  # one more step, so the planned checkpoint is well behind
    assert s.history.get(planned) is not None
    window.actions.back.trigger()
    wait_ready(qtbot, window)
    while s.state.viewed_id != planned:
        window.actions.back.trigger()
        wait_ready(qtbot, window)
    qtbot.waitUntil(lambda: set(window.teaching.why.together) == {"search_web", "search_db"}, timeout=5000)
    assert _pending(window) == set()

"""Issue 12 item 14, the graph's marks: task counts on Send fan-outs, tasks that finished
in the superstep under way, END lit when the run ends."""
from __future__ import annotations

from pathlib import Path

from test_studio_support import (  # noqa: F401 (fixtures)
    EXAMPLES,
    act,
    open_window,
    settings,
    studio_loop,
    wait_ready,
)


def _marks(window, node: str):
    return window.panels.graph._nodes[node].marks


def test_send_counts_finished_tasks_and_end_lit(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(EXAMPLES / "map_reduce.py")
    s = window.session
    end = next(n for n, item in window.panels.graph._nodes.items() if item.box.kind == "end")
    act(qtbot, window, "step_superstep")  # the input
    act(qtbot, window, "step_superstep")  # split: its router sends three documents to summarize
    assert s.history.get(s.head_id).next.count("summarize") == 3
    marks = _marks(window, "summarize")
    assert marks.count == "×3" and marks.next and not marks.done
    window.panels.graph.grab().save(str(tmp_path / "graph-fanout.png"))
    act(qtbot, window, "step")  # F10: one of the three tasks
    marks = _marks(window, "summarize")
    assert marks.count == "1/3 ✓" and not marks.done
    window.panels.graph.grab().save(str(tmp_path / "graph-one-done.png"))
    act(qtbot, window, "step")
    act(qtbot, window, "step")  # the third: the superstep commits
    assert _marks(window, "summarize").count == ""
    assert not _marks(window, end).ended
    act(qtbot, window, "continue_")  # to the end
    assert s.history.get(s.head_id).next == ()
    assert _marks(window, end).ended
    window.panels.graph.grab().save(str(tmp_path / "graph-ended.png"))
    window.actions.back.trigger()  # an older checkpoint: the run had not ended there
    wait_ready(qtbot, window)
    assert not _marks(window, end).ended
    window.panels.graph.grab().save(str(tmp_path / "graph.png"))


def test_a_finished_task_is_marked_until_its_superstep_commits(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(EXAMPLES / "parallel_search.py")
    s = window.session
    while len(set(s.state.next_nodes())) < 2:
        act(qtbot, window, "step_superstep")
    first, *rest = s.state.next_nodes()
    act(qtbot, window, "step")  # one of the parallel tasks
    ran = next(n for n in (first, *rest) if n not in s.state.next_nodes())
    assert _marks(window, ran).done and not _marks(window, ran).next
    still = next(n for n in s.state.next_nodes())
    assert not _marks(window, still).done and _marks(window, still).next

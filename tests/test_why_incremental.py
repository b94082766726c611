"""A step inside a wide superstep redraws only the "why" marks that change (counted as
graphics items added to / removed from the graph's scene, not timed): the QA case of a
300-task fan-out, where each F10 used to clear and redraw all ~600 marks."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from test_studio_support import act, open_window, settings, studio_loop, write_graph  # noqa: F401 (fixtures)

WIDE = 300

FAN_OUT = f"""
    class S(TypedDict, total=False):
        done: Annotated[list, operator.add]

    b = StateGraph(S)
    for i in range({WIDE}):
        b.add_node(f"w{{i}}", lambda s, i=i: {{"done": [i]}})
        b.add_edge(START, f"w{{i}}")
        b.add_edge(f"w{{i}}", END)
    graph = b.compile()
    example_input = {{"done": []}}
"""


def _scene_items(window: Any) -> set[int]:
    return {id(item) for item in window.panels.graph.scene.items()}


def test_a_step_in_a_300_wide_superstep_touches_only_the_marks_that_change(
        open_window: Any, qtbot: Any, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "fan", FAN_OUT))
    graph = window.panels.graph
    act(qtbot, window, "step", timeout=60000)  # START writes the input: 300 tasks planned
    assert len(graph.why.triggered) == WIDE
    assert graph.why.frame is not None
    marks = {id(item) for item in graph.why.items}
    assert len(marks) > WIDE  # a glow per triggering edge, the frame, its caption
    for n in range(1, 4):  # run one task at a time (F10)
        before_items = _scene_items(window)
        added, removed = getattr(graph.why, "added", 0), getattr(graph.why, "removed", 0)
        act(qtbot, window, "step", timeout=60000)
        finished = [name for name, badges in graph.why.badges.items() if [b.text for b in badges] == ["✓ pending"]]
        assert len(finished) == n  # the one more finished task got its badge
        now = _scene_items(window)
        assert len(now - before_items) == 1, "only the new ✓ badge is created"
        assert not (before_items - now), "no item is removed"
        assert (graph.why.added - added, graph.why.removed - removed) == (1, 0)
        assert marks <= {id(item) for item in graph.why.items}  # the 300 glows are the same items

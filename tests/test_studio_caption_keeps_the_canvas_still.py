"""Issue 24: selecting checkpoints whose "why" captions differ in length (none, one line, two
or more) never resizes the graph canvas below the caption, so Qt never repaints all of it
(the worst selections of a 300-wide post-mortem: 25-30 ms of whole-canvas repaint). The
caption keeps two lines of its font; a longer text is cut with "…" and is whole in its
tooltip. Counted (resize events, whole-viewport paints, heights), never timed."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from test_studio_support import act, open_window, settings, studio_loop, wait_ready, write_graph  # noqa: F401

pytest.importorskip("PySide6")

from PySide6.QtCore import QEvent, QObject  # noqa: E402

WIDE = 14

FAN_OUT = f"""
    class S(TypedDict, total=False):
        done: Annotated[list, operator.add]

    b = StateGraph(S)
    b.add_node("plan", lambda s: {{"done": ["plan"]}})
    b.add_node("join_everything", lambda s: {{"done": ["join"]}})
    b.add_edge(START, "plan")
    for i in range({WIDE}):
        name = f"worker_with_a_long_name_{{i}}"
        b.add_node(name, lambda s, i=i: {{"done": [i]}})
        b.add_edge("plan", name)
        b.add_edge(name, "join_everything")
    b.add_edge("join_everything", END)
    graph = b.compile()
    example_input = {{"done": []}}
"""


class _Counter(QObject):
    """Counts the resizes of a widget and the paints that cover its whole rectangle."""

    def __init__(self, widget: Any) -> None:
        super().__init__()
        self.widget, self.resizes, self.whole_paints, self.paints = widget, 0, 0, 0
        widget.installEventFilter(self)

    def eventFilter(self, watched: Any, event: Any) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Resize:
            self.resizes += 1
        elif event.type() == QEvent.Type.Paint:
            self.paints += 1
            if event.rect().contains(self.widget.rect()):
                self.whole_paints += 1
        return False


def _lines(caption: Any, text: str) -> int:
    from PySide6.QtCore import QRect, Qt

    metrics = caption.fontMetrics()
    box = metrics.boundingRect(QRect(0, 0, caption.contentsRect().width(), 1 << 20),
                               int(Qt.TextFlag.TextWordWrap), text)
    return round(box.height() / metrics.lineSpacing()) if text else 0


def test_selecting_checkpoints_with_captions_of_any_length_never_resizes_the_canvas(
        open_window: Any, qtbot: Any, tmp_path: Path) -> None:
    live = open_window(write_graph(tmp_path, "fan", FAN_OUT))
    assert act(qtbot, live, "continue_", timeout=60000).reason == "done"
    live.close()
    window = open_window(database=tmp_path / "runs.sqlite")  # a post-mortem, as the benchmark's
    window.resize(1600, 1000)  # the benchmark's size
    session, graph = window.session, window.panels.graph
    qtbot.waitUntil(lambda: bool(graph.node_ids()) and len(session.history) > 0, timeout=20000)
    wait_ready(qtbot, window)
    qtbot.wait(30)
    ids = [row.id for row in session.history.rows()]
    assert len(ids) >= 4
    caption, canvas = graph.caption, graph.canvas
    assert caption.isVisible(), "the post-mortem opens with a caption"
    height, canvas_size = caption.height(), canvas.size()
    resized = _Counter(canvas)
    seen: dict[int, str] = {}
    for _ in range(2):
        painted = _Counter(canvas.viewport())  # the second round's: every badge drawn once already
        for cid in ids:
            session.select_checkpoint(cid)
            qtbot.waitUntil(lambda cid=cid: session.settled and session.viewed_id in (cid, None), timeout=10000)
            wait_ready(qtbot, window)
            qtbot.wait(30)  # the layout and the repaints the selection asked for
            full = caption.full_text()
            seen.setdefault(min(_lines(caption, full), 3), full)
            assert caption.height() == height, (full, caption.height(), height)
            shown = caption.text()
            assert _lines(caption, shown) <= 2, f"the caption shows at most two lines: {shown!r}"
            if shown != full:
                assert shown.endswith("…") and caption.toolTip() == full, "cut, and whole in its tooltip"
        painted.widget.removeEventFilter(painted)
    assert 1 in seen and max(seen) >= 2, f"captions of one line and of more: {seen}"
    assert painted.paints > 0, "the selections repainted the marks that changed"
    assert (resized.resizes, canvas.size()) == (0, canvas_size), "a selection resized the canvas"
    assert painted.whole_paints == 0, f"{painted.whole_paints} selections repainted the whole canvas"


def test_a_caption_longer_than_two_lines_is_cut_at_a_word_and_whole_in_its_tooltip(qtbot) -> None:
    from studio.panels.graph.caption import Caption

    caption = Caption()
    qtbot.addWidget(caption)
    caption.resize(300, caption.reserved_height())
    caption.show()
    words = " ".join(f"task_{i}" for i in range(80))
    caption.show_text(words)
    shown = caption.text()
    assert shown.endswith("…") and len(shown) < len(words)
    assert words.startswith(shown[:-1]) and shown[-2] != " " and words[len(shown) - 1] == " ", shown
    assert _lines(caption, shown) == 2
    assert caption.toolTip() == words
    caption.show_text("1 task (plan) runs")
    assert caption.text() == "1 task (plan) runs" and caption.toolTip() == ""
    assert caption.heightForWidth(100) == caption.heightForWidth(2000) == caption.reserved_height()
    one_line = caption.reserved_height()
    font = caption.font()
    font.setPointSizeF(font.pointSizeF() * 3)  # a 300% zoom: two lines of the bigger font
    caption.setFont(font)
    assert caption.height() == caption.reserved_height() > 2 * one_line

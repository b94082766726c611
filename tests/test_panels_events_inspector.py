"""The events panel (durations, errors with tracebacks) and the node inspector."""
from __future__ import annotations

import pytest
from panel_support import shot
from PySide6.QtCore import Qt

from studio.panels import EventsPanel, InspectorPanel
from studio.panels._common import BadgeRole
from studio.core.records import EventRow, NodeDetails

TRACE = ('Traceback (most recent call last):\n  File "graph.py", line 12, in tools\n    1 / 0\n'
         "ZeroDivisionError: division by zero\n")


@pytest.fixture
def events(qtbot):
    p = EventsPanel()
    qtbot.addWidget(p)
    p.resize(700, 380)
    p.show()
    p.append([
        EventRow(kind="run", step=-1, node="", text="run started (new) on thread t1", checkpoint_id="cp0"),
        EventRow(kind="start", step=0, node="agent", text="agent started (START)"),
        EventRow(kind="finish", step=0, node="agent", text="agent wrote messages", duration_s=0.0123),
        EventRow(kind="commit", step=0, node="agent", text="step 0 committed (loop)", checkpoint_id="cp1"),
        EventRow(kind="error", step=1, node="tools", text="tools raised ZeroDivisionError: division by zero",
                 duration_s=1.5, traceback=TRACE),
    ])
    return p


def test_events_list_kind_step_node_text_and_duration(events):
    m = events.model
    assert [m.headerData(c, Qt.Orientation.Horizontal) for c in range(m.columnCount())] == \
        ["Step", "Node", "What happened", "Took", "Time"]
    assert [m.index(r, 2).data(BadgeRole)[0] for r in range(m.rowCount())] == \
        ["run", "start", "finish", "commit", "error"]
    # the node has its own column, so the text does not repeat it
    assert [m.index(2, c).data() for c in range(4)] == ["0", "agent", "wrote messages", "12.3 ms"]
    assert m.index(4, 3).data() == "1.50 s"
    assert m.index(4, 2).data(Qt.ItemDataRole.ForegroundRole).name() == "#b91c1c"
    assert events.errors.text() == "1 error"
    shot(events, "events")


def test_event_columns_are_readable_in_a_narrow_dock(qtbot, events):
    """Headers are never cut off; step and duration stay narrow, the text takes the rest;
    in a narrow dock the time column gives way to the text (its time stays in the tooltip)."""
    from studio.panels.event_log import MIN_TEXT

    table, header = events.table, events.table.horizontalHeader()
    fm = header.fontMetrics()

    def check() -> None:
        for col in range(events.model.columnCount()):
            if not table.isColumnHidden(col):
                title = events.model.headerData(col, Qt.Orientation.Horizontal)
                assert header.sectionSize(col) >= fm.horizontalAdvance(title) + 8, title
        widths = [header.sectionSize(c) for c in range(5)]
        assert widths[2] == max(widths) and widths[2] >= MIN_TEXT
        assert widths[0] < 60

    check()
    assert not table.isColumnHidden(4)  # 700 px: room for the time
    events.resize(430, 300)
    qtbot.waitUntil(lambda: table.isColumnHidden(4))
    check()
    events.resize(700, 300)
    qtbot.waitUntil(lambda: not table.isColumnHidden(4))
    align = events.model.index(2, 3).data(Qt.ItemDataRole.TextAlignmentRole)
    assert align & int(Qt.AlignmentFlag.AlignRight)


def test_an_error_shows_its_traceback(qtbot, events):
    qtbot.mouseClick(events.table.viewport(), Qt.MouseButton.LeftButton,
                     pos=events.table.visualRect(events.model.index(4, 2)).center())
    assert "ZeroDivisionError: division by zero" in events.detail.toPlainText()
    assert 'File "graph.py", line 12, in tools' in events.detail.toPlainText()


def test_clicking_an_event_with_a_checkpoint_selects_it(qtbot, events):
    with qtbot.waitSignal(events.checkpoint_selected, timeout=1_000) as blocker:
        qtbot.mouseClick(events.table.viewport(), Qt.MouseButton.LeftButton,
                         pos=events.table.visualRect(events.model.index(3, 2)).center())
    assert blocker.args == ["cp1"]
    with qtbot.assertNotEmitted(events.checkpoint_selected):
        qtbot.mouseClick(events.table.viewport(), Qt.MouseButton.LeftButton,
                         pos=events.table.visualRect(events.model.index(1, 2)).center())


def test_clear_forgets_everything(events):
    events.clear()
    assert events.model.rowCount() == 0 and events.errors.text() == ""


SOURCE = '''def tools(state: State) -> dict:
    """Run the tool the model asked for."""
    call = state["messages"][-1].tool_calls[0]  # the last AI message
    return {"messages": [ToolMessage(f"{call['name']}: 42", tool_call_id=call["id"])], "count": 1}
'''


@pytest.fixture
def inspector(qtbot):
    p = InspectorPanel()
    qtbot.addWidget(p)
    p.resize(520, 560)
    p.show()
    return p


def test_inspector_shows_source_edges_and_last_io(inspector):
    inspector.set_node(NodeDetails(name="tools", source=SOURCE, file="/work/app/graph.py", line=30,
                                   incoming=("agent",), outgoing=("agent", "__end__"),
                                   last_input={"messages": ["hi"], "count": 0}, last_output={"count": 1},
                                   extra={"retry": "3 attempts"}))
    assert inspector.title.text() == "tools"
    assert inspector.source.toPlainText() == SOURCE
    assert "graph.py:30" in inspector.location.text()
    edges = inspector.edges.text()
    assert "<b>agent</b>" in edges and "<b>__end__</b>" in edges and "3 attempts" in edges
    assert '"count": 0' in inspector.last_input.toPlainText()
    assert inspector.last_output.toPlainText() == '{\n  "count": 1\n}'
    block = inspector.source.document().firstBlock()
    formats = block.layout().formats()
    assert any(f.format.fontWeight() > 500 for f in formats)  # "def" is highlighted
    shot(inspector, "inspector")


def test_inspector_link_opens_the_editor(qtbot, inspector):
    inspector.set_node(NodeDetails(name="tools", source=SOURCE, file="/work/app/graph.py", line=30))
    with qtbot.waitSignal(inspector.open_in_editor, timeout=1_000) as blocker:
        inspector.location.linkActivated.emit("open")
    assert blocker.args == ["/work/app/graph.py", 30]


def test_inspector_without_a_node_says_what_to_do(inspector):
    inspector.set_node(NodeDetails(name="x", source="pass"))
    inspector.set_node(None)
    assert "Click a node" in inspector.location.text() and inspector.source.toPlainText() == ""

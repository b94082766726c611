"""Issue 12 item 12 (last part): the timeline's node lists and branch headers wrap onto
taller rows instead of ending in "…", at 1280x720; only rows that need it are taller, and
on a 100,000-checkpoint thread only the rows on screen are ever measured."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QStyleOptionViewItem

from studio.core.records import TimelineRow
from studio.panels import TimelinePanel
from studio.panels._common import BadgeDelegate, BadgeRole, line_height
from test_studio_support import (  # noqa: F401 (fixtures)
    EXAMPLES,
    act,
    open_window,
    settings,
    studio_loop,
    wait_ready,
)


def drawn(table, row: int, col: int) -> tuple[str, tuple[str, ...], QStyleOptionViewItem]:
    """(full text, the lines the delegate draws it in, the cell's option) of a shown cell."""
    index = table.model().index(row, col)
    delegate = table.itemDelegateForColumn(col)
    option = QStyleOptionViewItem()
    option.initFrom(table)
    option.widget = table
    option.font = table.font()
    option.rect = table.visualRect(index)
    delegate.initStyleOption(option, index)
    return option.text, delegate.lines(option, index, index.data(BadgeRole)), option


def assert_whole(table, row: int, col: int) -> int:
    """Every character of the cell is drawn, none cut, each line inside the cell's width
    and all lines inside its height; returns its line count."""
    text, lines, option = drawn(table, row, col)
    metrics = QFontMetrics(option.font)
    assert "…" not in "".join(lines), (row, text, lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", ""), (row, text, lines)
    assert all(metrics.horizontalAdvance(line) <= option.rect.width() for line in lines), (row, lines)
    assert option.rect.height() >= len(lines) * line_height(option.font), (row, lines, option.rect.height())
    return len(lines)


def visible_rows(table) -> range:
    first = table.rowAt(0)
    last = table.rowAt(table.viewport().height() - 1)
    return range(max(first, 0), (last if last >= 0 else table.model().rowCount() - 1) + 1)


def test_node_lists_wrap_at_1280x720_and_only_their_rows_grow(open_window, qtbot, tmp_path: Path) -> None:
    from studio.window.docks import apply_default_sizes

    window = open_window(EXAMPLES / "parallel_search.py")
    window.resize(1280, 720)
    apply_default_sizes(window, window.docks)
    qtbot.waitUntil(lambda: window.width() == 1280, timeout=5000)
    for _ in range(5):
        act(qtbot, window, "step")
    panel = window.panels.timeline
    table = panel.table
    qtbot.waitUntil(lambda: not panel.heights.pending(), timeout=5000)
    model = panel.model
    parallel = next(r for r in range(model.rowCount()) if model.index(r, 2).data() == "search_db, search_web")
    table.scrollTo(model.index(parallel, 0))
    qtbot.waitUntil(lambda: not panel.heights.pending(), timeout=5000)
    # the column is narrower than the list: the case this is about
    assert table.fontMetrics().horizontalAdvance("search_db, search_web") > table.columnWidth(2)
    lines = {row: assert_whole(table, row, 2) for row in visible_rows(table)}
    assert lines[parallel] >= 2
    default = table.verticalHeader().defaultSectionSize()
    assert table.rowHeight(parallel) > default
    assert all(table.rowHeight(r) == default for r, n in lines.items() if n == 1)
    window.grab().save(str(tmp_path / "timeline-1280x720.png"))


def rows_of(n: int, nodes=("search_db", "search_docs", "search_web", "rank_results")) -> list[TimelineRow]:
    rows, parent = [], None
    for i in range(n):
        cid = f"c{i:06d}"
        rows.append(TimelineRow(id=cid, parent_id=parent, step=i, source="loop", nodes=nodes if i % 2 else ("merge",),
                                next=(), created_at=f"2025-11-29T12:{i // 60 % 60:02d}:{i % 60:02d}+00:00"))
        parent = cid
    return rows


@pytest.fixture
def panel(qtbot):
    p = TimelinePanel()
    qtbot.addWidget(p)
    # 342: the least width the panel had when its header's buttons could not wrap (the nodes
    # column is then 135 px); a narrower panel now wraps the buttons under the title
    p.resize(342, 240)
    p.show()
    qtbot.waitExposed(p)
    return p


def test_resizing_and_folding_measure_again(panel, qtbot) -> None:
    rows = rows_of(12)
    rows.append(TimelineRow(id="fork", parent_id="c000003", step=4, source="fork", nodes=(), next=(),
                            created_at="2025-11-29T13:00:00+00:00"))
    panel.set_rows(rows)
    table, heights = panel.table, panel.heights
    table.scrollToTop()
    heights.fit()
    default = table.verticalHeader().defaultSectionSize()
    assert table.rowHeight(1) > default and table.rowHeight(0) == default
    for row in visible_rows(table):
        assert_whole(table, row, 2)
    panel.resize(900, 240)  # wide enough for one line: back to the default height
    qtbot.waitUntil(lambda: table.columnWidth(2) > 400 and not heights.pending(), timeout=5000)
    assert table.rowHeight(1) == default
    panel.resize(342, 240)
    qtbot.waitUntil(lambda: table.columnWidth(2) < 200 and not heights.pending(), timeout=5000)
    assert table.rowHeight(1) > default
    # fold the branch: the rows that move up into view are measured
    header = next(r for r in range(panel.model.rowCount()) if panel.model.is_header(r))
    panel.model.toggle(header)
    qtbot.waitUntil(lambda: not heights.pending(), timeout=5000)
    for row in visible_rows(table):
        assert_whole(table, row, 2)


def test_a_new_checkpoint_on_a_100000_row_thread_measures_only_what_is_on_screen(panel, qtbot, monkeypatch) -> None:
    calls: list[int] = []
    original = BadgeDelegate.sizeHint

    def counting(self, option, index):
        calls.append(index.row())
        return original(self, option, index)

    monkeypatch.setattr(BadgeDelegate, "sizeHint", counting)
    rows = rows_of(100_002)  # the last (appended) lists four nodes
    panel.set_rows(rows[:-1])
    panel.set_head(rows[-2].id)
    panel.table.scrollToBottom()
    qtbot.waitUntil(lambda: not panel.heights.pending(), timeout=5000)
    on_screen = len(visible_rows(panel.table))
    assert 0 < len(calls) <= 4 * on_screen, len(calls)  # the rows in view, not 100,000
    calls.clear()
    panel.add_row(rows[-1])
    panel.set_head(rows[-1].id)
    qtbot.waitUntil(lambda: not panel.heights.pending(), timeout=5000)
    assert 0 < len(calls) <= 8, calls  # the new row, and the old and new head (their badge moved)
    assert panel.table.rowHeight(100_001) > panel.table.verticalHeader().defaultSectionSize()  # it wrapped
    for row in visible_rows(panel.table):
        assert_whole(panel.table, row, 2)
    # scrolling far away measures the rows that come into view, once
    calls.clear()
    panel.table.verticalScrollBar().setValue(50_000)
    qtbot.waitUntil(lambda: not panel.heights.pending(), timeout=5000)
    assert 0 < len(calls) <= 2 * on_screen
    assert panel.table.rowHeight(50_001) > panel.table.verticalHeader().defaultSectionSize()


def test_a_300_node_superstep_row_stays_shorter_than_the_screen(panel, qtbot) -> None:
    wide = tuple(f"worker_number_{i:03d}" for i in range(300)) + ("x" * 5000,)
    panel.set_rows(rows_of(3, nodes=wide))
    qtbot.waitUntil(lambda: not panel.heights.pending(), timeout=5000)
    panel.heights.fit()
    table = panel.table
    text, lines, option = drawn(table, 1, 2)
    assert len(lines) == 5 and lines[-1].endswith("…")  # the tooltip lists them all
    assert table.rowHeight(1) <= 5 * line_height(option.font) + 24
    assert "worker_number_299" in panel.model.index(1, 2).data(Qt.ItemDataRole.ToolTipRole)


def test_a_clicked_timeline_cell_is_not_drawn_as_an_editor(open_window, qtbot) -> None:
    """Issue 25 item 13: clicking (or double-clicking, or F2 on) a cell selects its row; the
    cell gets no editor and no focus box that looks like one."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtWidgets import QAbstractItemView, QLineEdit, QStyle, QStyleOptionViewItem

    from test_studio_support import EXAMPLES, act

    window = open_window(EXAMPLES / "router.py")
    for _ in range(2):
        act(qtbot, window, "step")
    timeline = window.panels.timeline
    table = timeline.table
    for column in range(4):
        cell = table.visualRect(timeline.model.index(1, column)).center()
        qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=cell)
        qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=cell)
        QTest.keyClick(table, Qt.Key.Key_F2)
        assert table.state() != QAbstractItemView.State.EditingState
        assert not [e for e in table.findChildren(QLineEdit) if e.isVisible()]
        # the current cell is drawn the same with the focus flag as without: no focus box
        delegate = table.itemDelegateForColumn(column)
        option = QStyleOptionViewItem()
        option.initFrom(table)
        option.rect = table.visualRect(table.currentIndex())
        option.state |= QStyle.StateFlag.State_HasFocus | QStyle.StateFlag.State_Selected
        image = QImage(option.rect.size(), QImage.Format.Format_ARGB32)
        image.fill(0)
        painter = QPainter(image)
        option.rect.moveTo(0, 0)
        delegate.paint(painter, option, table.currentIndex())
        painter.end()
        focused = image.copy()
        option.state &= ~QStyle.StateFlag.State_HasFocus
        image.fill(0)
        painter = QPainter(image)
        delegate.paint(painter, option, table.currentIndex())
        painter.end()
        assert focused == image, f"column {column} draws a focus box"

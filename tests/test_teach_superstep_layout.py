"""The teaching Superstep panel beside Events at 1280x720: each row is a paragraph wrapped
to the panel's width (nothing ends in "…"), and it asks for no more width than the Events panel it shares the dock area with."""
from __future__ import annotations

from PySide6.QtWidgets import QTreeWidgetItem, QTreeWidgetItemIterator

from test_studio_support import (  # noqa: F401 (fixtures)
    EXAMPLES,
    act,
    open_window,
    settings,
    studio_loop,
    wait_ready,
)


def items(tree) -> list[QTreeWidgetItem]:
    found, it = [], QTreeWidgetItemIterator(tree)
    while it.value() is not None:
        found.append(it.value())
        it += 1
    return found


def test_superstep_rows_wrap_whole_at_1280x720_and_take_no_more_width(open_window, qtbot) -> None:
    from studio.window.docks import apply_default_sizes

    window = open_window(EXAMPLES / "parallel_search.py")
    window.resize(1280, 720)
    apply_default_sizes(window, window.docks)
    qtbot.waitUntil(lambda: window.width() == 1280, timeout=5000)
    window.teaching.show_superstep()
    act(qtbot, window, "step")
    act(qtbot, window, "step")  # search_db done: its write pending; search_web still to run
    panel = window.teaching.superstep
    tree = panel.tree
    qtbot.waitUntil(lambda: tree.isVisible() and tree.topLevelItemCount() >= 2, timeout=5000)
    delegate = tree.itemDelegateForColumn(0)
    assert not tree.horizontalScrollBar().isVisible()
    long_rows = 0
    for item in items(tree):
        index = tree.indexFromItem(item, 0)
        rect = tree.visualRect(index)
        doc = delegate._document(index, rect.width() - 4)
        shown = doc.toPlainText()
        above = item.parent().text(1) if item.parent() is not None else ""
        for col in range(3):  # every part of the row, whole (a reducer its group names: once)
            assert item.text(col).replace("`", "") in shown or (col == 2 and item.text(col) in above), \
                (item.text(col), shown)
        assert "…" not in shown
        assert doc.idealWidth() <= rect.width(), (shown, doc.idealWidth(), rect.width())
        assert doc.size().height() <= rect.height() + 1, (shown, doc.size().height(), rect.height())
        long_rows += doc.firstBlock().layout().lineCount() > 1
    assert long_rows, "the case this is about: rows longer than the panel is wide"
    # the title and the summary share one wrapped label
    assert panel.title.wordWrap() and "Superstep 1" in panel.title.text()
    # the panel asks for no more width than Events beside it: it never widens the window
    # (an 800-px screen; the window's minimum is set by the other docks and the tab bar)
    assert panel.minimumSizeHint().width() <= window.panels.events.minimumSizeHint().width()
    # a narrower panel wraps again
    before = tree.visualRect(tree.indexFromItem(items(tree)[1], 0)).height()
    tree.setFixedWidth(tree.width() - 120)
    qtbot.waitUntil(lambda: tree.visualRect(tree.indexFromItem(items(tree)[1], 0)).height() > before, timeout=5000)

"""A long thread's timeline reads its checkpoints a page at a time, as the user goes back
in it: a real window on a real SQLite file of 100,000 checkpoints. Counted (the headers
the store hands out), not timed: opening reads the newest page only, scrolling to the top
reads the next one, Home reads the rest once, and every checkpoint is then listed.
Going back past the oldest listed checkpoint, and a search hit older than it, read the
pages down to it."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSlider

from long_thread_file import HeaderCount, long_thread_file
from studio.session.paging import FIRST_PAGE
from test_studio_support import (  # noqa: F401 (fixtures)
    open_window,
    settings,
    studio_loop,
    wait_ready,
)

N = 100_000


@pytest.fixture(scope="module")
def long_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return long_thread_file(tmp_path_factory.mktemp("long") / "long.sqlite", N)


def _open(open_window, path: Path, thread: str = "long"):
    window = open_window(database=path, thread_id=thread)
    window.session.loading.poll.stop()  # no other process writes the file: no polls for new checkpoints
    timeline = window.panels.timeline
    timeline.table.setFocus()
    return window, timeline


def test_opening_reads_the_newest_page_and_scrolling_up_reads_the_next(open_window, qtbot, long_file, monkeypatch):
    read = HeaderCount(monkeypatch)
    window, timeline = _open(open_window, long_file)
    s, model = window.session, timeline.model
    # the newest page only: one more header says older ones are left; a header per thread
    # (whose graph is it) is all the rest
    assert read.total <= FIRST_PAGE + 1 + 2, read.calls
    assert model.rowCount() == FIRST_PAGE and len(s.history) == FIRST_PAGE
    assert model.checkpoint_at(FIRST_PAGE - 1).step == N - 2  # the head, at the bottom
    assert f"{N - FIRST_PAGE:,} older not listed" in timeline.count.text()

    before = read.total
    top = model.checkpoint_at(0)
    bar = timeline.table.verticalScrollBar()
    bar.triggerAction(QAbstractSlider.SliderAction.SliderToMinimum)  # as dragging the bar to its top does
    qtbot.waitUntil(lambda: model.rowCount() == 2 * FIRST_PAGE, timeout=20_000)
    wait_ready(qtbot, window)
    assert read.total - before <= FIRST_PAGE + 1, read.calls  # the next page, each header once
    assert s.pages.pages_read == 1
    shown = timeline.table.rowAt(0)
    assert model.checkpoint_at(shown).id == top.id  # the rows on screen stayed where they were
    assert model.checkpoint_at(0).step == N - 2 - (2 * FIRST_PAGE - 1)


def test_home_lists_the_whole_history_reading_each_checkpoint_once(open_window, qtbot, long_file, monkeypatch):
    read = HeaderCount(monkeypatch)
    window, timeline = _open(open_window, long_file)
    s, model = window.session, timeline.model
    qtbot.keyClick(timeline.table, Qt.Key.Key_Home)
    qtbot.waitUntil(lambda: model.rowCount() == N, timeout=60_000)
    wait_ready(qtbot, window)
    assert read.total <= N + 2, read.calls  # no header read twice
    assert s.pages.pages_read == 1 and not s.history.more_before
    first = model.checkpoint_at(0)
    assert first.step == -1 and first.source == "input"  # the thread's very first checkpoint
    assert timeline.table.currentIndex().row() == 0 and timeline.table.rowAt(0) == 0
    assert timeline.count.text() == f"{N:,} checkpoints"
    assert not s.load_older()  # nothing left to read
    qtbot.keyClick(timeline.table, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)  # and back to the newest
    assert model.checkpoint_at(timeline.table.currentIndex().row()).step == N - 2


def test_back_past_the_oldest_listed_checkpoint_reads_the_page_before_it(open_window, qtbot, long_file, monkeypatch):
    window, timeline = _open(open_window, long_file)
    s, model = window.session, timeline.model
    oldest = model.checkpoint_at(0)
    s.select_checkpoint(oldest.id)
    wait_ready(qtbot, window)
    read = HeaderCount(monkeypatch)
    window.actions.back.trigger()  # Ctrl+[
    qtbot.waitUntil(lambda: s.viewed_id == oldest.parent_id, timeout=20_000)
    wait_ready(qtbot, window)
    assert 0 < read.total <= FIRST_PAGE + 1, read.calls
    row = model.row_of(oldest.parent_id)
    assert row >= 0 and timeline.table.currentIndex().row() == row  # listed, and selected there


def test_a_search_hit_older_than_the_listed_pages_is_listed_and_selected(open_window, qtbot, long_file):
    window, timeline = _open(open_window, long_file)
    s, model = window.session, timeline.model
    far = list(s.state.saver.list_headers("long", before=model.checkpoint_at(0).id, limit=3 * FIRST_PAGE))[-1]
    s.select_checkpoint(far.id)  # what picking a search hit does
    qtbot.waitUntil(lambda: model.row_of(far.id) >= 0 and s.viewed_id == far.id, timeout=30_000)
    wait_ready(qtbot, window)
    assert model.checkpoint_at(timeline.table.currentIndex().row()).id == far.id
    assert s.history.more_before  # only the pages down to it were read

"""Reading a long history in bulk runs no cyclic garbage collection (counted with
`gc.callbacks` and the collector's generations, not timed): as the heap grew by a million
objects, the collector made full passes over it again and again on the reader's thread,
holding the lock the UI thread needs. Afterwards the collector is on again, as it was, and
no later pass walks the history (it is frozen) until the thread is let go of."""
from __future__ import annotations

import gc
import threading
from pathlib import Path

import pytest

from long_thread_file import long_thread_file
from studio.core.collector import bulk_allocation, let_go
from studio.session.paging import _joined, read_history


@pytest.fixture
def passes():
    seen: list[int] = []

    def count(phase: str, info: dict) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(count)
    yield seen
    gc.callbacks.remove(count)


def test_reading_and_joining_a_long_history_collects_nothing(tmp_path: Path, passes: list[int]) -> None:
    from engine import SqliteSaver

    saver = SqliteSaver(str(long_thread_file(tmp_path / "long.sqlite", 60_000)))
    try:
        first, _, _ = read_history(saver, "long", 1000)
        gc.collect()
        passes.clear()
        page, _, _ = read_history(saver, "long", None, first.cursor)
        joined, planned = _joined(page, first.all_rows(), None)
        assert passes == []  # ~700,000 objects made, no pass of the collector
        assert len(joined) == len(planned) == 60_000
        assert gc.isenabled()
        young = sum(len(gc.get_objects(g)) for g in (0, 1, 2))
        assert young < 100_000  # the history's objects are set aside: no pass walks them
        assert gc.get_freeze_count() > 200_000  # (60,000 rows: their dicts, tuples, tree)
        let_go()
        assert gc.get_freeze_count() == 0
        gc.collect()
        assert passes  # the collector runs again
        assert len(joined) == 60_000
    finally:
        saver.close()


def test_bulk_allocation_nests_across_threads_and_restores_what_was(passes: list[int]) -> None:
    started, release = threading.Event(), threading.Event()

    def other() -> None:
        with bulk_allocation():
            started.set()
            release.wait(10)

    worker = threading.Thread(target=other)
    worker.start()
    started.wait(10)
    with pytest.raises(RuntimeError), bulk_allocation():
        assert not gc.isenabled()
        raise RuntimeError("a read that failed")
    assert not gc.isenabled()  # the other thread's read still runs
    release.set()
    worker.join()
    assert gc.isenabled()
    gc.disable()
    try:
        with bulk_allocation():
            pass
        assert not gc.isenabled()  # disabled before: left disabled
    finally:
        gc.enable()
        let_go()

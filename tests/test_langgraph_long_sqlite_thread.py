"""A LangGraph SQLite file with a long thread (tests/langgraph_bulk.py: LangGraph's own
tables and records, 30,000 checkpoints and 60,000 writes here; a million rows in the
bench row `big_stores.langgraph_million`): `retrograph history` reads it a page at a
time with bounded memory, and the studio's open reads the newest page, not the thread.

Counted, not timed: the rows each query of the reader returns (its `_query`), and the
peak of Python's allocations (tracemalloc) while the history is listed."""
from __future__ import annotations

import io
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from engine.checkpoint.foreign import langgraph_base
from engine.checkpoint.foreign.langgraph_sqlite import LangGraphSqliteReader
from langgraph_bulk import write_long_thread

CHECKPOINTS = 30_000


@pytest.fixture(scope="module")
def long_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    path = tmp_path_factory.mktemp("long") / "langgraph.sqlite"
    return path, write_long_thread(path, CHECKPOINTS)


class _Rows:
    """The rows each query of a LangGraph SQLite reader returned."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.per_query: list[int] = []
        real = LangGraphSqliteReader._query

        def counted(reader: Any, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
            rows = real(reader, sql, params)
            self.per_query.append(len(rows))
            return rows

        monkeypatch.setattr(LangGraphSqliteReader, "_query", counted)

    @property
    def total(self) -> int:
        return sum(self.per_query)


class _Lines(io.TextIOBase):
    """stdout that counts lines and keeps none."""

    def __init__(self) -> None:
        self.lines = 0

    def write(self, text: str) -> int:
        self.lines += text.count("\n")
        return len(text)


def test_history_lists_a_long_thread_a_page_at_a_time(long_file, monkeypatch) -> None:
    from studio.cli.commands import parse_args
    from studio.cli.history import cmd_history

    path, thread = long_file
    rows = _Rows(monkeypatch)
    out, err = _Lines(), io.StringIO()
    tracemalloc.start()
    try:
        code = cmd_history(parse_args(["history", str(path), "--thread", thread["thread_id"], "--json"]),
                           out=out, err=err)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 0, err.getvalue()
    assert out.lines == CHECKPOINTS
    page = langgraph_base.PAGE
    assert max(rows.per_query) <= 2 * (page + 1), "one query read more than a page of checkpoints and their writes"
    assert rows.total <= 5 * CHECKPOINTS  # each row a few times at most: ids, records, writes, parents
    assert peak < 40 * 2**20, f"listing held {peak / 2**20:.0f} MB at its peak"


def test_the_studio_opens_a_long_thread_reading_its_newest_page(long_file, monkeypatch) -> None:
    from engine.checkpoint.reading import open_store
    from studio.session.loading import FIRST_PAGE, _read_history

    path, thread = long_file
    rows = _Rows(monkeypatch)
    with open_store(str(path)) as store:  # what Loading.load_thread reads before the window shows it
        assert {t.thread_id: t.checkpoints for t in store.threads()}[thread["thread_id"]] == CHECKPOINTS
        history, shown, unreadable = _read_history(store, thread["thread_id"], FIRST_PAGE)
        newest = store.load(thread["thread_id"], shown[-1].id)
        store.pending_writes(thread["thread_id"], shown[-1].id)
    assert len(shown) == FIRST_PAGE and unreadable == []
    assert shown[-1].id == thread["newest_id"] and newest is not None and newest.values == {"n": CHECKPOINTS - 1}
    assert shown[0].step == CHECKPOINTS - FIRST_PAGE and shown[0].parent_id is not None
    assert rows.total <= 5 * FIRST_PAGE, f"the open read {rows.total:,} rows of {3 * CHECKPOINTS:,}"


def test_a_page_older_than_a_checkpoint_starts_right_after_it(long_file) -> None:
    from engine.checkpoint.reading import open_store

    path, thread = long_file
    with open_store(str(path)) as store:
        first = list(store.list_headers(thread["thread_id"], limit=3))
        after = list(store.list_headers(thread["thread_id"], before=first[1].id, limit=2))
    assert [h.step for h in first] == [CHECKPOINTS - 1, CHECKPOINTS - 2, CHECKPOINTS - 3]
    assert [h.id for h in after] == [first[2].id, first[2].parent_id]
    assert all(h.nodes_ran == ("step",) for h in first + after)

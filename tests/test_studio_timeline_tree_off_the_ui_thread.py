"""A long history's timeline tree is built off the UI thread (`plan_rows`): the model on the
UI thread takes it as it is and builds nothing. Counted (calls of `build_tree`), not timed."""
from __future__ import annotations

import threading

import pytest

from studio.core import timeline_tree
from studio.core.records import TimelineRow
from studio.panels.timeline.panel import TimelinePanel


def _rows(n: int, fork_at: int | None = None) -> list[TimelineRow]:
    rows = [TimelineRow(id=f"{i:08d}", parent_id=f"{i - 1:08d}" if i else None, step=i, source="loop",
                        nodes=("a",), next=("a",), created_at=f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}")
            for i in range(n)]
    if fork_at is not None:  # a second child of `fork_at`: a branch
        rows.append(TimelineRow(id=f"{n:08d}", parent_id=f"{fork_at:08d}", step=fork_at, source="fork",
                                nodes=(), next=("a",), created_at="2026-01-01T01:00:00"))
    return rows


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the threads `build_tree` ran on."""
    seen: list[str] = []
    real = timeline_tree.build_tree

    def build(rows):  # type: ignore[no-untyped-def]
        seen.append(threading.current_thread().name)
        return real(rows)

    monkeypatch.setattr(timeline_tree, "build_tree", build)
    return seen


def test_planned_rows_are_shown_without_building_on_the_ui_thread(qtbot, counted: list[str]) -> None:
    rows = _rows(3000, fork_at=1000)
    planned: list[object] = []
    worker = threading.Thread(target=lambda: planned.append(timeline_tree.plan_rows(rows)), name="planner")
    worker.start()
    worker.join()
    assert counted == ["planner"]
    panel = TimelinePanel()
    qtbot.addWidget(panel)
    panel.set_rows(planned[0])  # type: ignore[arg-type]
    assert counted == ["planner"]  # nothing built again on the UI thread
    assert panel.model.rowCount() == 3000 + 2  # every checkpoint, the fork and its branch header
    assert panel.model.is_header(1001) and panel.model.checkpoint_at(1002).id == f"{3000:08d}"
    assert tuple(planned[0]) == tuple(rows)  # still the rows, for every other listener


def test_a_planned_tree_is_taken_once_and_the_same_rows_again_are_built_afresh(qtbot, counted: list[str]) -> None:
    planned = timeline_tree.plan_rows(_rows(50))
    first, second = TimelinePanel(), TimelinePanel()
    qtbot.addWidget(first)
    qtbot.addWidget(second)
    first.set_rows(planned)
    first.add_row(TimelineRow(id=f"{50:08d}", parent_id=f"{49:08d}", step=50, source="loop", nodes=("a",),
                              next=(), created_at="2026-01-01T00:01:00"))
    second.set_rows(planned)  # the first model extended its tree: the second gets its own
    assert len(counted) == 2
    assert first.model.rowCount() == 51 and second.model.rowCount() == 50


def test_the_tree_built_off_thread_equals_the_one_built_on_it() -> None:
    rows = _rows(500, fork_at=100) + [
        TimelineRow(id="zz-cycle-a", parent_id="zz-cycle-b", step=1, source="loop", nodes=(), next=(),
                    created_at="2026-01-02"),
        TimelineRow(id="zz-cycle-b", parent_id="zz-cycle-a", step=2, source="loop", nodes=(), next=(),
                    created_at="2026-01-03")]
    a, b = timeline_tree.build_tree(rows), timeline_tree.tree_of(timeline_tree.plan_rows(rows))
    assert a.visible == b.visible and a.chain_of == b.chain_of
    assert sorted(i for i in a.visible if i >= 0) == list(range(len(rows)))  # every row shown once, cycles too

"""The timeline panel: checkpoints as a tree of branches, lazy enough for 100,000 rows."""
from __future__ import annotations

import time

import pytest
from panel_support import shot
from PySide6.QtCore import QItemSelectionModel, Qt

from studio.panels import TimelinePanel
from studio.panels._common import BadgeRole
from studio.panels.timeline.model import DepthRole
from studio.core.records import TimelineRow


def chain(n: int, prefix: str = "c", parent: str | None = None, step: int = 0, source: str = "loop",
          minute: int = 0) -> list[TimelineRow]:
    rows = []
    for i in range(n):
        cid = f"{prefix}{i:06d}"
        rows.append(TimelineRow(id=cid, parent_id=parent, step=step + i,
                                source="input" if parent is None and i == 0 else source,
                                nodes=("agent",) if i % 2 else ("tools",), next=("agent",),
                                created_at=f"2025-11-29T12:{minute + i // 60:02d}:{i % 60:02d}+00:00"))
        parent = cid
    return rows


def forked() -> list[TimelineRow]:
    """c0 … c5 on the main line; a branch f1 → f1_* from c2; a second branch f2 from c2."""
    rows = chain(6)
    rows.append(TimelineRow(id="f1", parent_id="c000002", step=3, source="update", nodes=("__input__",),
                            next=("agent",), created_at="2025-11-29T13:00:00+00:00"))
    rows += chain(2, prefix="f1_", parent="f1", step=4, minute=30)
    rows.append(TimelineRow(id="f2", parent_id="c000002", step=3, source="fork", nodes=(), next=("agent",),
                            created_at="2025-11-29T13:05:00+00:00"))
    return list(reversed(rows))  # order must not matter


@pytest.fixture
def panel(qtbot):
    p = TimelinePanel()
    qtbot.addWidget(p)
    p.resize(720, 420)
    p.show()
    return p


def table(panel: TimelinePanel) -> list[tuple[str, int, str]]:
    m = panel.model
    return [(m.index(r, 0).data(), m.index(r, 0).data(DepthRole), m.index(r, 2).data()) for r in range(m.rowCount())]


def test_a_linear_run_is_flat_and_forks_are_indented_branches(panel):
    panel.set_rows(forked())
    assert table(panel) == [
        ("0", 0, "tools"), ("1", 0, "agent"), ("2", 0, "tools"),
        ("", 1, "↳ branch from step 2 · 3 checkpoints"), ("3", 1, "__input__"), ("4", 1, "tools"), ("5", 1, "agent"),
        ("", 1, "↳ branch from step 2 · 1 checkpoint"), ("3", 1, "—"),
        ("3", 0, "agent"), ("4", 0, "tools"), ("5", 0, "agent"),
    ]
    assert panel.model.index(4, 1).data(BadgeRole) == ("update", "update")
    assert panel.model.index(8, 1).data(BadgeRole) == ("fork", "fork")
    assert panel.count.text() == "10 checkpoints"


def test_branches_fold_and_unfold(qtbot, panel):
    panel.set_rows(forked())
    header = panel.model.index(3, 2)
    qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=panel.table.visualRect(header).center())
    assert panel.model.rowCount() == 9 and table(panel)[4][2] == "↳ branch from step 2 · 1 checkpoint"
    panel.model.toggle(3)
    assert panel.model.rowCount() == 12


def test_head_is_bold_and_the_viewed_checkpoint_tinted(panel):
    panel.set_rows(forked())
    panel.set_head("f1_000001")
    panel.set_current("c000001")
    head_row = panel.model.row_of("f1_000001")
    assert panel.model.index(head_row, 0).data(Qt.ItemDataRole.FontRole).bold()
    assert panel.model.index(head_row, 2).data(BadgeRole) == ("head", "commit")
    assert panel.model.index(1, 0).data(Qt.ItemDataRole.BackgroundRole) is not None
    shot(panel, "timeline-branches")


def test_appending_continues_a_line_or_opens_a_branch(panel):
    panel.set_rows(chain(3))
    panel.append_rows([TimelineRow(id="c000003", parent_id="c000002", step=3, source="loop", nodes=("agent",),
                                   next=(), created_at="2025-11-29T12:00:03+00:00")])
    assert [r[0] for r in table(panel)] == ["0", "1", "2", "3"]
    panel.add_row(TimelineRow(id="new", parent_id="c000001", step=2, source="fork", nodes=("tools",), next=(),
                              created_at="2025-11-29T14:00:00+00:00"))
    assert table(panel)[2:4] == [("", 1, "↳ branch from step 1 · 1 checkpoint"), ("2", 1, "tools")]
    assert [r[0] for r in table(panel)][4:] == ["2", "3"]


def test_clicks_and_buttons_emit_intents(qtbot, panel):
    panel.set_rows(forked())
    with qtbot.waitSignal(panel.checkpoint_selected, timeout=1_000) as blocker:
        qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton,
                         pos=panel.table.visualRect(panel.model.index(1, 2)).center())
    assert blocker.args == ["c000001"]
    with qtbot.waitSignal(panel.rewind_requested, timeout=1_000) as blocker:
        qtbot.mouseClick(panel.rewind_button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["c000001"]
    with qtbot.waitSignal(panel.fork_edit_requested, timeout=1_000) as blocker:
        qtbot.mouseClick(panel.fork_button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["c000001"]
    assert not panel.compare_button.isEnabled()
    panel.table.selectionModel().select(panel.model.index(4, 0), QItemSelectionModel.SelectionFlag.Select
                                        | QItemSelectionModel.SelectionFlag.Rows)
    assert panel.selected_ids() == ("c000001", "f1") and panel.compare_button.isEnabled()
    with qtbot.waitSignal(panel.compare_requested, timeout=1_000) as blocker:
        qtbot.mouseClick(panel.compare_button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["c000001", "f1"]


def test_select_reveals_a_folded_checkpoint_without_emitting(qtbot, panel):
    panel.set_rows(forked())
    panel.model.toggle(3)
    with qtbot.assertNotEmitted(panel.checkpoint_selected):
        panel.select("f1_000000")
    assert panel.model.checkpoint_at(panel.table.currentIndex().row()).id == "f1_000000"


def test_100000_checkpoints_open_quickly(panel):
    rows = chain(100_000)
    started = time.perf_counter()
    panel.set_rows(rows)
    panel.set_head(rows[-1].id)
    panel.table.viewport().repaint()
    opened = time.perf_counter() - started
    started = time.perf_counter()
    bar = panel.table.verticalScrollBar()
    for k in range(20):
        bar.setValue(k * bar.maximum() // 20)
        panel.table.viewport().repaint()
    scroll = (time.perf_counter() - started) / 20
    print(f"\ntimeline: 100,000 checkpoints open in {opened:.2f} s; one scroll repaint {scroll * 1000:.1f} ms")
    assert panel.model.rowCount() == 100_000  # a linear run: siblings, not 100,000 levels deep
    assert panel.model.index(99_999, 0).data(DepthRole) == 0

"""The timeline's delegates paint a row from its `Look` (every role at once) instead of
asking the model a role at a time: the same pixels, a fraction of the model calls.

Real Qt (pytest-qt, offscreen): the panel is painted twice into images, through the Look
and through Qt's own initStyleOption (the model's `look` hidden), and compared pixel for
pixel; the model's `data()` calls per repaint are counted, never timed.
"""
from __future__ import annotations

import pytest
from PySide6.QtCore import QItemSelectionModel
from PySide6.QtGui import QImage

from studio.core.records import TimelineRow
from studio.panels import TimelinePanel
from studio.panels.timeline.model import TimelineModel


def _chain(n: int, prefix: str, parent: str | None, step: int, minute: int = 0) -> list[TimelineRow]:
    rows = []
    for i in range(n):
        cid = f"{prefix}{i:04d}"
        rows.append(TimelineRow(
            id=cid, parent_id=parent, step=step + i, source="input" if parent is None and i == 0 else "loop",
            nodes=("search_db, search_docs, search_web",) if i == 3 else ("agent",) if i % 2 else ("tools",),
            next=("agent",), created_at=f"2025-11-29T12:{minute + i // 60:02d}:{i % 60:02d}+00:00"))
        parent = cid
    return rows


def _thread() -> list[TimelineRow]:
    """A main line with a long (wrapped) nodes text, an update branch and a fork from step 2,
    and a subgraph's two checkpoints under step 4."""
    rows = _chain(8, "c", None, 0)
    rows.append(TimelineRow(id="u", parent_id="c0002", step=3, source="update", nodes=("__input__",),
                            next=("agent",), created_at="2025-11-29T13:00:00+00:00"))
    rows += _chain(2, "u_", "u", 4, minute=30)
    rows.append(TimelineRow(id="f", parent_id="c0002", step=3, source="fork", nodes=(), next=("agent",),
                            created_at="2025-11-29T13:05:00+00:00"))
    for k in range(2):
        rows.append(TimelineRow(id=f"s{k}", parent_id=f"s{k - 1}" if k else None, step=k, source="loop",
                                nodes=("write",), next=(), created_at=f"2025-11-29T12:00:0{4 + k}+00:00",
                                namespace="team:c0004/0"))
    return rows


@pytest.fixture
def panel(qtbot):
    p = TimelinePanel()
    qtbot.addWidget(p)
    p.resize(760, 520)
    p.show()
    p.set_rows(_thread())
    p.set_head("u_0001")
    p.set_current("c0001")
    p.mark_recorded({"c0005": ["agent"]})
    table = p.table
    table.selectionModel().setCurrentIndex(p.model.index(p.model.row_of("c0003"), 0),
                                           QItemSelectionModel.SelectionFlag.ClearAndSelect
                                           | QItemSelectionModel.SelectionFlag.Rows)
    table.scrollToTop()
    p.heights.fit()
    qtbot.waitUntil(lambda: not p.heights.pending())
    return p


def _picture(panel: TimelinePanel) -> QImage:
    viewport = panel.table.viewport()
    image = QImage(viewport.size(), QImage.Format.Format_ARGB32)
    image.fill(0)
    viewport.render(image)
    return image


def test_the_look_paints_what_the_roles_paint(panel):
    through_look = _picture(panel)
    panel.model.look = None  # the delegates fall back on Qt's own initStyleOption, role by role
    try:
        through_roles = _picture(panel)
    finally:
        del panel.model.look
    assert through_look.size() == through_roles.size() and not through_look.isNull()
    assert through_look == through_roles, "a row painted from its Look differs from the one Qt's roles paint"
    # and the picture is not empty: the rows, badges and the branch lines are drawn
    colours = {through_look.pixel(x, y) for x in range(0, through_look.width(), 3)
               for y in range(0, through_look.height(), 3)}
    assert len(colours) > 20


def test_a_repaint_asks_the_model_a_few_roles_per_row(qtbot, monkeypatch):
    calls = [0]
    real = TimelineModel.data

    def counted(self, index, role=0):  # noqa: ANN001 (Qt's signature)
        calls[0] += 1
        return real(self, index, role)

    monkeypatch.setattr(TimelineModel, "data", counted)
    panel = TimelinePanel()
    qtbot.addWidget(panel)
    panel.resize(760, 520)
    panel.show()
    panel.set_rows(_chain(400, "c", None, 0))
    panel.set_head("c0399")
    qtbot.waitUntil(lambda: not panel.heights.pending())
    model = panel.model
    first, last = panel.table.rowAt(0), panel.table.rowAt(panel.table.viewport().height() - 1)
    shown = (last if last >= 0 else model.rowCount() - 1) - first + 1
    assert shown > 5
    _picture(panel)  # the looks of the rows in view are made
    calls[0] = 0
    _picture(panel)
    through_look = calls[0]
    model.look = None  # Qt's own way: ~10 roles a cell
    calls[0] = 0
    _picture(panel)
    through_roles = calls[0]
    assert through_roles / shown > 20, "the count sees Qt's role-by-role questions"
    assert through_look / shown <= 4, f"{through_look} data() calls for {shown} rows"


def test_a_row_is_looked_at_once_and_the_looks_kept_are_bounded(qtbot, monkeypatch):
    from studio.panels.timeline import model as model_module

    made = [0]
    real = model_module.make_look

    def counted(answer, columns):  # noqa: ANN001, ANN202
        made[0] += 1
        return real(answer, columns)

    monkeypatch.setattr(model_module, "make_look", counted)
    model = TimelineModel()
    model.set_rows(_chain(3000, "c", None, 0))
    assert model.rowCount() == 3000 > model_module.LOOKS_KEPT
    for _ in range(3):  # a screen of rows painted again and again: each made once
        for row in range(40):
            model.look(row)
    assert made[0] == 40
    model.set_marker("head", "c0005")  # what a row shows changed: that row is made again
    model.look(5)
    assert made[0] == 41
    for row in range(model.rowCount()):  # scrolled through all of it...
        model.look(row)
    made[0] = 0
    for row in range(model.rowCount()):  # ... and again: its looks were not all kept
        model.look(row)
    assert made[0] >= 3000 - model_module.LOOKS_KEPT

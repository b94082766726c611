"""The timeline's step column: indentation, the branch lines and the fold arrows.

A branched thread is drawn as a tree of lines, as `git log --graph` draws one: every
checkpoint sits on a dot in its branch's lane, a line joins it to the checkpoints before
and after it on its branch, a branch header bends off its fork point's line into its own
lane, and the fork point's line goes on past the branch while the old branch has more
checkpoints below. So the old branch's rows after a branch read as the fork point's
line, never as the branch's continuation (the model says where lines go: `Lanes`).
"""
from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPointF, QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

from studio.core.safe import total
from studio.panels._common import BadgeDelegate, KindRole
from .cells import LookOptions, unfocused
from .model import Lanes
from .roles import DepthRole, ExpandedRole, LanesRole

__all__ = ["StepDelegate", "INDENT", "lane_x", "unfocused"]

INDENT = 16
_INDENT = INDENT
_GUIDE = QPen(QColor("#cbd2d9"), 1)
_FOLD = QColor("#7e22ce")
_LANE_COLOURS = (QColor("#52606d"), QColor("#7e22ce"), QColor("#0f766e"), QColor("#b45309"))
"""A branch's line, by its level: the main line slate, branches purple, teal, amber, again."""


class StepDelegate(LookOptions, BadgeDelegate):
    """The step column: the branch lines (see `Lanes`), a fold arrow on branch headers, the step.

    Each checkpoint of a branched thread sits on a dot in its branch's lane; a line joins
    it to the checkpoints before and after it on its branch. A branch header bends off its
    fork point's line into its own lane, and the fork point's line goes on past the branch
    when the old branch has more checkpoints below: the old branch's rows after a branch
    are visibly the fork point's line, not the branch's continuation."""

    @total(None)
    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        look_of = getattr(index.model(), "look", None)
        if look_of is not None:
            look = look_of(index.row())
            depth, kind, lanes, expanded = look.depth, look.kind, look.lanes, look.expanded
        else:  # another model: its roles one at a time
            depth, kind = int(index.data(DepthRole) or 0), index.data(KindRole)
            lanes, expanded = index.data(LanesRole), bool(index.data(ExpandedRole))
        header = kind == "branch"
        opt = unfocused(option)
        self.initStyleOption(opt, index)
        rect = opt.rect
        if isinstance(lanes, Lanes):
            offset = lane_x(lanes.level) + 9
            _draw_lanes(painter, rect, lanes, header, expanded)
        else:
            offset = depth * _INDENT + (14 if depth or header else 4)
            if depth or header:
                _draw_guides(painter, rect, depth, header, expanded)
        opt.rect = rect.adjusted(offset, 0, 0, 0)
        style = opt.widget.style() if opt.widget else None
        if style is not None:  # the step has no badge: draw the cell as Qt would, in one go
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)


def lane_x(level: int) -> int:
    """The x of a lane's line, from the cell's left edge."""
    return 9 + level * _INDENT


def _fold_arrow(painter: QPainter, cx: float, cy: float, expanded: bool) -> None:
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(_FOLD)
    if expanded:
        tri = [QPointF(cx - 4, cy - 2), QPointF(cx + 4, cy - 2), QPointF(cx, cy + 3)]
    else:
        tri = [QPointF(cx - 2, cy - 4), QPointF(cx + 3, cy), QPointF(cx - 2, cy + 4)]
    painter.drawPolygon(QPolygonF(tri))


def _draw_guides(painter: QPainter, rect: QRect, depth: int, header: bool, expanded: bool) -> None:
    """Without branches: plain indentation guides (subgraph rows) and a header's arrow."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(_GUIDE)
    for level in range(1, depth + 1):
        x = rect.left() + level * _INDENT - 2
        painter.drawLine(x, rect.top(), x, rect.bottom())
    if header:
        _fold_arrow(painter, rect.left() + depth * _INDENT + 6, rect.center().y(), expanded)
    painter.restore()


def _lane_pen(level: int) -> QPen:
    return QPen(_LANE_COLOURS[level % len(_LANE_COLOURS)], 2)


def _draw_lanes(painter: QPainter, rect: QRect, lanes: Lanes, header: bool, expanded: bool) -> None:
    left, top, bottom, cy = rect.left(), rect.top(), rect.bottom() + 1, rect.center().y()
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    for level, on in enumerate(lanes.through):
        if on:  # a line from above going on below this row
            painter.setPen(_lane_pen(level))
            x = left + lane_x(level)
            painter.drawLine(x, top, x, bottom)
    x = left + lane_x(lanes.level)
    if header and lanes.elbow:
        fork_x = left + lane_x(lanes.level - 1)
        painter.setPen(_lane_pen(lanes.level - 1))
        painter.drawLine(fork_x, top, fork_x, cy if not lanes.down else bottom)
        painter.setPen(_lane_pen(lanes.level))
        painter.drawLine(fork_x, cy, x - 4, cy)  # the bend off the fork point's line
    if header:
        if lanes.into:
            painter.setPen(_lane_pen(lanes.level))
            painter.drawLine(x, cy + 3, x, bottom)
        _fold_arrow(painter, x, cy, expanded)
        painter.restore()
        return
    pen = _lane_pen(lanes.level)
    painter.setPen(pen)
    if lanes.up:
        painter.drawLine(x, top, x, cy)
    if lanes.down:
        painter.drawLine(x, cy, x, bottom)
    painter.setBrush(pen.color())
    painter.drawEllipse(QPointF(x, cy), 3.0, 3.0)
    painter.restore()

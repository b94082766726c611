"""The "why" marks on the graph: the edges that triggered the next tasks (with the router's
answer, `goto` or `Send ×N`), badges on nodes (a join waiting, `Send ×3`, a goto, a deferred
node, a task whose writes are pending), a frame around the tasks of one superstep (they run
together on the same snapshot), and a one-sentence tooltip on every node.

Drawn as extra scene items over the panel's own. `apply` is incremental: each mark has a
key saying what it shows and where, and only the marks whose key appears or disappears
are added to or removed from the scene (a step inside a 300-task superstep adds one
badge instead of redrawing 600 items); tooltips are set only when their text changes.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QGraphicsScene, QStyleOptionGraphicsItem, QWidget

from studio.core.records import WhyMarks
from studio.core.safe import total
from .items import LEGIBLE_PX, ClusterItem, EdgeItem, NodeItem, label_font
from .long_paths import path_item
from .placement import GAP, FreeSpace, candidates

__all__ = ["WhyOverlay", "Badge", "BADGE_COLOURS", "TRIGGER_COLOUR", "text_rects"]

HELP = "Click: inspect · dots at left/right: break before/after · right-click: more"
TRIGGER_COLOUR = QColor(245, 158, 11, 150)  # amber glow under a triggering edge
GROUP_COLOUR = QColor("#2563eb")
BADGE_COLOURS: dict[str, tuple[str, str]] = {
    # kind -> (fill, text)
    "send": ("#7c3aed", "#ffffff"),
    "wait": ("#b45309", "#ffffff"),
    "goto": ("#4338ca", "#ffffff"),
    "deferred": ("#52606d", "#ffffff"),
    "pending": ("#047857", "#ffffff"),
    "conflict": ("#b91c1c", "#ffffff"),
    "label": ("#fff7e6", "#92400e"),
    "group": ("#dbeafe", "#1e3a8a"),
}


def _kind(text: str) -> str:
    if text.startswith("Send"):
        return "send"
    if text.startswith("waits"):
        return "wait"
    if text == "goto":
        return "goto"
    if text == "deferred":
        return "deferred"
    if text.startswith("✓"):
        return "pending"
    if text.startswith("✗"):
        return "conflict"
    return "label"


class Badge(QGraphicsItem):
    """A small rounded plate of text (a pill) at a scene position."""

    def __init__(self, text: str, kind: str, at: QPointF, *, anchor: str = "center") -> None:
        super().__init__()
        self.text = text
        self.kind = kind
        self.font, w, h = _pill_size(text)
        x = at.x() - w / 2 if anchor == "center" else at.x()
        self._rect = QRectF(x, at.y() - h / 2, w, h)
        self._bounds = self._rect.adjusted(-1, -1, 1, 1)
        self.setZValue(30)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)  # a repaint blits it (see NodeItem)
        self.setToolTip(text)

    def boundingRect(self) -> QRectF:
        return self._bounds  # never changed in place (shape() and Qt copy it)

    def plate(self) -> QRectF:
        """The pill, in item coordinates (where it is before the placement moves it)."""
        return QRectF(self._rect)

    @total(None)
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        fill, ink = BADGE_COLOURS.get(self.kind, BADGE_COLOURS["label"])
        if option.levelOfDetailFromTransform(painter.worldTransform()) * self._rect.height() < LEGIBLE_PX:
            painter.fillRect(self._rect, QColor(fill))  # too small to read (a 300-wide graph fitted): its colour
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(QColor(ink if self.kind in ("label", "group") else fill).darker(110), 1.0))
        painter.setBrush(QColor(fill))
        painter.drawRoundedRect(self._rect, self._rect.height() / 2, self._rect.height() / 2)
        painter.setFont(self.font)
        painter.setPen(QColor(ink))
        painter.drawText(self._rect, Qt.AlignmentFlag.AlignCenter, self.text)


class _Frame(QGraphicsItem):
    """The dashed frame around the tasks of one superstep."""

    def __init__(self, rect: QRectF) -> None:
        super().__init__()
        self._rect = rect
        self.setZValue(-5)

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-3, -3, 3, 3)

    @total(None)
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(GROUP_COLOUR, 1.6)
        pen.setDashPattern([6.0, 4.0])
        painter.setPen(pen)
        painter.setBrush(QBrush(QColor(37, 99, 235, 18)))
        painter.drawRoundedRect(self._rect, 12, 12)


class WhyOverlay:
    """Owns the "why" items of one scene."""

    def __init__(self, scene: QGraphicsScene) -> None:
        self.scene = scene
        self.items: list[QGraphicsItem] = []
        self.badges: dict[str, list[Badge]] = {}
        """Node -> its badges (what tests read)."""
        self.triggered: list[tuple[str, str]] = []
        """(source, target) of the edges drawn as triggers."""
        self.glows: list[QGraphicsPathItem] = []
        """The glow items under those edges: they paint nothing, the panel's `Highlights`
        draws them (highlights.py); they keep their tooltips and hit areas."""
        self.frame: QRectF | None = None
        self._keyed: dict[Hashable, QGraphicsItem] = {}
        """The items on the scene, by what they show and where (see `_add`)."""
        self._wanted: dict[Hashable, QGraphicsItem] = {}
        self._tips: dict[str, tuple[int, str]] = {}
        """Node -> (its item, the tooltip last set on it)."""
        self._text_space: FreeSpace | None = None
        """The layout's text rectangles (nodes, edge labels, subgraph titles), made once."""
        self._spare: dict[Hashable, QGraphicsItem] = {}
        """Items of marks no longer shown, hidden on the scene to be shown again when their
        mark is (the checkpoints of a post-mortem selected in turn show the same 300 glows
        and badges): showing a hidden item neither makes it nor re-indexes the scene, where
        adding and removing 600 items rebuilt the scene's index on the next paint."""
        self._placed: dict[frozenset[Hashable], dict[Hashable, QPointF]] = {}
        """The badges' places for a set of badges placed before (placing is deterministic)."""
        self.added = 0
        self.removed = 0
        """Items shown on / taken off the scene so far (how much a step redraws)."""
        self.made = 0
        """Items made so far (an item shown again from `_spare` is added, not made)."""
        self.placings = 0
        """Times the badges were placed afresh (not from `_placed`)."""

    def clear(self) -> None:
        for item in self.items:
            if item.scene() is self.scene:
                self.scene.removeItem(item)
                self.removed += 1
        self._drop_spare()
        self.forget()

    def _drop_spare(self) -> None:
        for item in self._spare.values():
            if item.scene() is self.scene:
                self.scene.removeItem(item)
        self._spare = {}

    def forget(self) -> None:
        """The scene was cleared (a new layout): the items are gone already."""
        self.items, self.badges, self.triggered, self.frame, self.glows = [], {}, [], None, []
        self._keyed, self._tips, self._spare, self._placed = {}, {}, {}, {}
        self._text_space = None

    def _add(self, key: Hashable, make: Callable[[], QGraphicsItem]) -> QGraphicsItem:
        """The item for `key`: the one already on the scene, else `make()` added to it."""
        item = self._keyed.get(key)
        if item is None or item.scene() is not self.scene:
            item = self._spare.pop(key, None)
            if item is not None and item.scene() is self.scene:
                item.show()
            else:
                item = make()
                self.made += 1
                self.scene.addItem(item)
            self.added += 1
        self._wanted[key] = item
        return item

    def apply(self, why: WhyMarks, nodes: Mapping[str, NodeItem], edges: Sequence[EdgeItem],
              clusters: Sequence[ClusterItem] = ()) -> None:
        self.badges, self.triggered, self.frame, self.glows = {}, [], None, []
        self._wanted = {}
        added = self.added
        for name, item in nodes.items():
            sentence = why.hover.get(name, name)
            tip = f"{sentence}\n{HELP}" if item.breakable() else sentence
            if self._tips.get(name) != (id(item), tip):
                item.setToolTip(tip)
                self._tips[name] = (id(item), tip)
        self._draw_triggers(why, nodes, edges)
        self._draw_group(why, nodes, clusters)
        for name, texts in why.badges.items():
            self._badges_on(name, list(texts), nodes)
        for name in why.finished:
            self._badges_on(name, ["✓ pending"], nodes)
        if len(self._spare) > SPARE_MAX:
            self._drop_spare()
        for key, item in self._keyed.items():
            if self._wanted.get(key) is not item and item.scene() is self.scene:
                item.hide()
                self.removed += 1
                self._spare[key] = item
        self._keyed, self._wanted = self._wanted, {}
        self.items = list(self._keyed.values())
        if self.added != added:  # a badge kept stays where it was placed; one removed frees its spot only
            self._place(nodes, edges, clusters)

    def _place(self, nodes: Mapping[str, NodeItem], edges: Sequence[EdgeItem],
               clusters: Sequence[ClusterItem]) -> None:
        """Move every badge off the text it would cover: node badges first (nearest their
        node), then the router's answers on edges, then the superstep's pill."""
        pills = [(key, item) for key, item in self._keyed.items()
                 if isinstance(item, Badge) and isinstance(key, tuple) and key and key[0] in _ORDER]
        if not pills:
            return
        which = frozenset(key for key, _ in pills)
        known = self._placed.get(which)
        if known is not None:  # these very badges were placed before: the same places again
            for key, badge in pills:
                if badge.pos() != known[key]:
                    badge.setPos(known[key])
            return
        if self._text_space is None:  # the layout's text: the same until the next layout
            self._text_space = FreeSpace(text_rects(nodes, edges, clusters))
        space = FreeSpace(base=self._text_space)
        bounds = self.scene.sceneRect()
        self.placings += 1
        places: dict[Hashable, QPointF] = {}
        avoided = False
        for key, badge in sorted(pills, key=lambda pair: _ORDER[pair[0][0]]):
            kind = key[0]
            rect = badge.plate()
            if kind == "group" and not avoided and self.frame is not None:
                avoided = True  # the superstep's pill (placed last) stays off the clusters not in its frame
                for cluster in clusters:
                    area = cluster.mapRectToScene(cluster.frame_rect())
                    if not self.frame.contains(area):
                        space.take(area)
            prefer = self._group_spots(rect) if kind == "group" else ()
            offset = space.place(rect, candidates(rect, prefer=prefer), bounds)
            places[key] = offset
            if badge.pos() != offset:
                badge.setPos(offset)
        if len(self._placed) >= PLACED_MAX:
            self._placed.clear()
        self._placed[which] = places

    def _group_spots(self, pill: QRectF) -> list[QPointF]:
        """The superstep's pill: under its frame at the left (where it is made), at the
        right, beside the frame (right, then left), or above it; never far from its frame
        (it had gone inside a subgraph's cluster above, by that cluster's END)."""
        frame = self.frame
        if frame is None:
            return []
        right = frame.width() - pill.width() - 12
        above = -(frame.height() + pill.height() + 4)
        middle = -(10 + frame.height() / 2 + pill.height() / 2)
        beside_right, beside_left = frame.width() - 6 + GAP * 2, -(6 + GAP * 2 + pill.width())
        return [QPointF(), QPointF(right, 0), QPointF(beside_right, middle), QPointF(beside_left, middle),
                QPointF(0, above), QPointF(right, above)]

    def _badges_on(self, name: str, texts: list[str], nodes: Mapping[str, NodeItem]) -> None:
        item = nodes.get(name)
        if item is None:
            return
        box = item.box
        step = _pill_height() + GAP * 2
        y = box.y - box.h / 2 - step / 2 - step * len(self.badges.get(name, []))
        for text in texts:
            at = QPointF(box.x, y)
            badge = self._add(("badge", id(item), text, box.x, y), lambda t=text, at=at: Badge(t, _kind(t), at))
            self.badges.setdefault(name, []).append(badge)  # type: ignore[arg-type]
            y -= step

    def _draw_triggers(self, why: WhyMarks, nodes: Mapping[str, NodeItem], edges: Sequence[EdgeItem]) -> None:
        wanted = {(s, t): label for s, t, label in why.triggers}
        if not wanted:
            return
        join_out = {e.edge.source: e.edge.target for e in edges
                    if e.edge.source in nodes and nodes[e.edge.source].box.kind == "join"}
        into: dict[str, tuple[str, str]] = {}  # target -> the first wanted pair into it (one pass, not per edge)
        for pair in wanted:
            into.setdefault(pair[1], pair)
        labelled: set[tuple[str, str]] = set()
        for edge in edges:
            s, t = edge.edge.source, edge.edge.target
            pair = (s, t)
            if pair not in wanted and t in join_out and (s, join_out[t]) in wanted:
                pair = (s, join_out[t])
            elif pair not in wanted and s in join_out:
                pair = into.get(t, pair)
            if pair not in wanted:
                continue
            glow = self._add(("glow", id(edge), pair), lambda edge=edge, pair=pair: _glow(edge, pair))
            self.glows.append(glow)  # type: ignore[arg-type]
            self.triggered.append((s, t))
            label = wanted[pair]
            if label and pair not in labelled and not edge.edge.label:
                labelled.add(pair)
                self._add(("edge label", id(edge), label),
                          lambda edge=edge, label=label: Badge(label, _kind(label), edge.path().pointAtPercent(0.5)))
        self.triggered = list(dict.fromkeys(self.triggered))

    def _draw_group(self, why: WhyMarks, nodes: Mapping[str, NodeItem], clusters: Sequence[ClusterItem]) -> None:
        """The frame around the superstep's tasks: their node boxes, and the whole cluster of
        a task that is a subgraph drawn open (its frame and name inside this one)."""
        open_subgraphs = {c.node_id: c for c in clusters}
        names = [n for n in dict.fromkeys(why.together) if n in nodes or n in open_subgraphs]
        if not names or why.step is None:
            return
        rect = QRectF()
        for name in names:
            if name in nodes:
                b = nodes[name].box
                rect = rect.united(QRectF(b.x - b.w / 2, b.y - b.h / 2, b.w, b.h))
            else:
                rect = rect.united(open_subgraphs[name].mapRectToScene(open_subgraphs[name].frame_rect()))
        stacked = max((len(why.badges.get(n, ())) for n in names), default=0)
        rect = rect.adjusted(-14, -14 - (_pill_height() + GAP * 2) * stacked, 14, 14)
        self.frame = rect
        box = (rect.x(), rect.y(), rect.width(), rect.height())
        self._add(("frame", box), lambda: _Frame(QRectF(rect)))
        n = len(why.together)
        text = (f"superstep {why.step} · {n} tasks, same snapshot" if n > 1
                else f"superstep {why.step}")
        at = QPointF(rect.left() + 6, rect.bottom() + 10)
        self._add(("group", text, at.x(), at.y()), lambda: Badge(text, "group", at, anchor="left"))


SPARE_MAX = 5000
"""Hidden items kept for reuse, at most (a graph's marks: a few per node and edge)."""
PLACED_MAX = 64
"""Sets of badges whose places are remembered, at most."""

_ORDER = {"badge": 0, "edge label": 1, "group": 2}
"""The order badges are placed in (the first ones get their preferred spot)."""


_SIZES: dict[tuple[str, str], tuple[QFont, float, float]] = {}


def _pill_size(text: str) -> tuple[QFont, float, float]:
    """A pill's font and size for `text` (measured once per text and default font: a
    300-task superstep makes 300 "✓ pending" pills)."""
    key = (text, QFont().key())
    got = _SIZES.get(key)
    if got is None:
        font = label_font(-1.0)
        font.setBold(True)
        metrics = QFontMetricsF(font)
        if len(_SIZES) > 2048:
            _SIZES.clear()
        got = _SIZES[key] = (font, metrics.horizontalAdvance(text) + 12.0, metrics.height() + 4.0)
    return got


_HEIGHTS: dict[str, float] = {}


def _pill_height() -> float:
    """A pill's height in the default font (measured once per default font)."""
    key = QFont().key()
    got = _HEIGHTS.get(key)
    if got is None:
        font = label_font(-1.0)
        font.setBold(True)
        got = _HEIGHTS[key] = QFontMetricsF(font).height() + 4.0
    return got


def text_rects(nodes: Mapping[str, NodeItem], edges: Sequence[EdgeItem],
               clusters: Sequence[ClusterItem]) -> list[QRectF]:
    """The scene rectangles a badge must not cover: node boxes, edge labels, subgraph titles."""
    rects = [item.mapRectToScene(item.box_rect()) for item in nodes.values()]
    rects += [edge.label_rect() for edge in edges if edge.edge.label and edge.edge.label_pos]
    rects += [cluster.title_rect() for cluster in clusters]
    return rects


def _glow(edge: EdgeItem, pair: tuple[str, str]) -> QGraphicsPathItem:
    """The amber glow under an edge that triggered `pair[1]`."""
    glow = path_item(edge.path(), edge.edge.points)  # a long one strokes only what is shown
    pen = QPen(TRIGGER_COLOUR, 7.0)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    glow.setPen(pen)
    glow.setZValue(-1)
    glow.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, True)  # drawn by highlights.py
    glow.setToolTip(f"{pair[0]} → {pair[1]}: this triggered {pair[1]}")
    return glow

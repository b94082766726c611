"""The graph panel: the compiled graph drawn as interactive items, with live marks.

Layout runs graphviz `dot` on a worker thread (`layout_job.py`); the result comes back
through a queued signal and is dropped if a newer graph was set meanwhile. Its items are made
a slice per turn of the event loop (`drawing.py`); the canvas repaints once they are all in.
"""
from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, Qt, QThreadPool, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QFontMetricsF,
    QResizeEvent,
    QShowEvent,
    QTransform,
)
from PySide6.QtWidgets import (
    QGraphicsScene,
    QHBoxLayout,
    QLabel,
    QMenu,
    QVBoxLayout,
    QWidget,
)

from studio.core.collector import bulk_allocation
from studio.core.layout import GraphLayout, estimate_size
from studio.core.records import WhyMarks
from studio.core.records import GraphMarks, GraphShape
from studio.panels._common import MUTED, title_label, tool_button
from .canvas import GraphCanvas
from .caption import Caption
from .focus import NodeFocus
from .highlights import Highlights
from .legend import GraphLegend
from .drawing import Drawing
from .layout_job import PREIMPORT_MS, LayoutJob, LayoutSignals, graphviz_ready, preimport_graphviz
from .items import ClusterItem, EdgeItem, NodeItem, NodeMarks, edge_label_sizes, label_font, straight_edge
from .why import WhyOverlay

__all__ = ["GraphPanel"]

_MAX_FIT_SCALE = 1.25
_MIN_SCALE, _MAX_SCALE = 0.05, 6.0


CAPTION_HIDE_MS = 1500
"""An empty caption is hidden after this long (a text within it keeps the canvas still)."""


class GraphPanel(QWidget):
    """The graph laid out by graphviz dot, drawn as items you can click, zoom and pan.

    Methods:
        set_graph(view: GraphShape): draw a graph (layout runs on a worker thread; the old
            drawing stays until the new one is ready; a result for an older graph is dropped).
        set_why(why: WhyMarks): the "why" marks (see `why.py`): triggering edges, badges (join
            waiting, Send ×N, goto, pending writes), the superstep's frame, node tooltips.
        set_marks(marks: GraphMarks): running (amber, pulsing), next (blue outline), trail
            (fading teal), breakpoints (red dots left = before / right = after), failed (red),
            interrupted (purple), selected (dark halo), taken routes (solid teal edges).
        fit(), zoom_by(factor), set_zoom(scale), zoom() -> float.
        is_layout_pending() -> bool; shutdown(): wait for the layout worker (on close).
        node_ids() -> list[str]; node_item(id) / edge_items(): the drawn items (tests).
    Signals:
        node_clicked(str): a node (or a subgraph's frame) was clicked.
        breakpoint_toggled(str, str): (node, "before" | "after") from a dot or the menu.
        run_to_requested(str): "Run to here" from the node's context menu.
        layout_ready(float): a layout was drawn; seconds from set_graph to drawn.
        layout_failed(str): graphviz failed (the message is also shown in the panel).
        legend_toggled(bool): the legend was shown or hidden (its "?" button or its ×).
    Also: set_legend_visible(on), legend_visible() -> bool.
    Keys: F fit, +/- zoom, 0 actual size; wheel zooms, drag pans; arrows, Tab / Shift+Tab,
    Home / End move the focus ring among the nodes (and select the node under it), Enter
    inspects it, the Menu key opens its menu (see `focus.py`).
    """

    node_clicked = Signal(str)
    legend_toggled = Signal(bool)
    breakpoint_toggled = Signal(str, str)
    run_to_requested = Signal(str)
    layout_ready = Signal(float)
    layout_failed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._view: GraphShape | None = None
        self._layout: GraphLayout | None = None
        self._marks = GraphMarks()
        self._generation = 0
        self._pending = 0
        self._started = 0.0
        self.last_layout_seconds = 0.0
        self.last_graphviz_seconds = 0.0
        self._auto_fit = True
        self.max_fit_scale = _MAX_FIT_SCALE
        """Fit never magnifies past this (presentation mode raises it with the window's zoom)."""
        self._nodes: dict[str, NodeItem] = {}
        self._clusters: dict[str, ClusterItem] = {}
        self._edges: list[EdgeItem] = []
        self._taken: list[EdgeItem] = []
        self._drawing: Drawing | None = None
        """The layout being drawn, a slice per turn of the loop (None: none)."""
        self.highlights: Highlights | None = None
        """The glows and highlighted strokes of the layout drawn (highlights.py; None: none)."""
        self.last_drawing: Drawing | None = None
        """The last layout drawn, with its slices counted (tests read it)."""
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._signals = LayoutSignals()
        self._signals.done.connect(self._on_layout_done)
        self._pulse = QTimer(self, interval=70)
        self._pulse.timeout.connect(self._on_pulse)
        QTimer.singleShot(PREIMPORT_MS, self, preimport_graphviz)  # while the graph file imports

        self.scene = QGraphicsScene(self)
        self.why = WhyOverlay(self.scene)
        self._why = WhyMarks()
        self.focus = NodeFocus(self)
        self.canvas = GraphCanvas(self)
        self.canvas.setScene(self.scene)
        self.title = title_label("Graph")
        self.status = QLabel("")
        self.status.setStyleSheet(f"color: {MUTED}")
        self.zoom_label = QLabel("")
        self.zoom_label.setStyleSheet(f"color: {MUTED}")
        self.zoom_label.setMinimumWidth(self.zoom_label.fontMetrics().horizontalAdvance("0000%"))
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.legend = GraphLegend(self.canvas)
        self.legend.hide()
        self.legend.closed.connect(self._on_legend_closed)
        self.legend_button = tool_button("?", "Legend: what the edge styles and node marks mean")
        self.legend_button.setObjectName("legendButton")
        self.legend_button.setCheckable(True)
        self.legend_button.toggled.connect(self.set_legend_visible)
        fit = tool_button("Fit", "Fit the graph in view (F)")
        fit.clicked.connect(self.fit)
        out = tool_button("−", "Zoom out (-)")
        out.clicked.connect(lambda: self.zoom_by(0.8))
        zin = tool_button("+", "Zoom in (+)")
        zin.clicked.connect(lambda: self.zoom_by(1.25))
        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 0)
        # the title takes the free width (a long one, "lg2 (from the history: no code
        # loaded)", wrapped a word per line when the status had it); the status follows it
        bar.addWidget(self.title, 3)
        bar.addWidget(self.status, 1)
        bar.addWidget(self.zoom_label)
        self._header_buttons = (out, zin, fit, self.legend_button)
        for button in self._header_buttons:
            bar.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(bar)
        self.caption = Caption()  # two lines reserved: a selection never resizes the canvas
        self.caption.hide()  # shown with a "why" text, hidden when it stays empty (see show_hover)
        self._caption_hide = QTimer(self, singleShot=True, interval=CAPTION_HIDE_MS)
        self._caption_hide.timeout.connect(self._hide_empty_caption)
        self._hovered: str | None = None
        layout.addWidget(self.caption)
        layout.addWidget(self.canvas, 1)

    # -- graph ---------------------------------------------------------------------------
    def set_graph(self, view: GraphShape) -> None:
        if view == self._view and (self._layout is not None or self._pending):
            return
        self._view = view
        if not graphviz_ready(self.status, self.layout_failed):
            return
        self._generation += 1
        self._pending = self._generation
        self._started = time.perf_counter()
        self.title.setText(view.name or "Graph")
        self.status.setText(f"laying out {len(view.nodes)} nodes…")
        self._fit_header()
        self._show_waiting_text(f"laying out {len(view.nodes)} nodes…")
        self._pool.start(LayoutJob(self._generation, view, self._sizes(view), self._signals,
                                    label_sizes=edge_label_sizes(view)))

    def show_waiting(self, text: str) -> None:
        """Say what the panel waits for ("importing react_agent.py…") until a graph is drawn."""
        self.status.setText(text)
        self._fit_header()
        self._show_waiting_text(text)

    def _show_waiting_text(self, text: str) -> None:
        if self._nodes or self._clusters or self._drawing is not None:
            return  # a graph is on screen (a reload) or being drawn: the status line says it
        self._clear_scene()
        item = self.scene.addSimpleText(text)
        item.setBrush(QColor(MUTED))
        font = item.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        item.setFont(font)
        self.scene.setSceneRect(item.boundingRect().adjusted(-40, -40, 40, 40))
        self.canvas.resetTransform()
        self.canvas.centerOn(item)

    def is_layout_pending(self) -> bool:
        return bool(self._pending)

    def picture_whole(self) -> bool:
        """No part of the canvas waits for its full-quality repaint (see refine.py)."""
        return self.canvas.refiner.whole()

    def shutdown(self) -> None:
        self._pulse.stop()
        self._pool.clear()
        self._pool.waitForDone()

    def node_ids(self) -> list[str]:
        return list(self._nodes)

    def node_item(self, node_id: str) -> NodeItem | ClusterItem | None:
        return self._nodes.get(node_id) or self._clusters.get(node_id)

    def cluster_items(self) -> dict[str, ClusterItem]:
        return dict(self._clusters)

    def selected_node(self) -> str | None:
        return self._marks.selected

    def upcoming_nodes(self) -> frozenset[str]:
        """The nodes that run next (an interrupted one runs again on resume)."""
        return self._marks.next | self._marks.interrupted

    def focused_node(self) -> str | None:
        """The node under the keyboard's focus ring (None before the canvas had the focus)."""
        return self.focus.node

    def focus_canvas(self) -> None:
        """The keyboard's focus on the graph, the ring on a node (the selected one, else the
        next to run, else the first)."""
        self.canvas.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.focus.focus_in(True)

    def set_high_contrast(self, on: bool) -> None:
        """The focus ring in the high-contrast theme's black."""
        self.focus.high_contrast = on
        self.focus.refresh()

    def edge_items(self) -> list[EdgeItem]:
        return self._edges + self._taken

    def _sizes(self, view: GraphShape) -> dict[str, tuple[float, float]]:
        metrics = QFontMetricsF(label_font())
        sizes = {}
        for node in view.nodes:
            if node.kind in ("node", "subgraph"):
                sizes[node.id] = (max(64.0, metrics.horizontalAdvance(node.label) + 36.0), 32.0)
            else:
                sizes[node.id] = estimate_size(node)
        return sizes

    def _on_layout_done(self, generation: int, result: Any) -> None:
        if generation != self._generation:
            return  # a newer graph was set while this one was laid out
        if isinstance(result, Exception):
            self._pending = 0
            if self._drawing is not None:  # an older graph's drawing, left half made: finish it
                self._drawing.finish()
                self._draw(self._drawing)
                self._drawing = None
            self._end_drawing()
            message = f"layout failed: {type(result).__name__}: {result}"
            self.status.setText(message)
            self._fit_header()
            self.layout_failed.emit(message)
            return
        self._start_drawing(generation, result)

    def _start_drawing(self, generation: int, layout: GraphLayout) -> None:
        """Draw `layout` a slice of items per turn of the loop (see drawing.py): the canvas
        does not repaint until it is all in, so the old picture stays until then."""
        self.canvas.viewport().setUpdatesEnabled(False)
        self._layout = layout
        self._clear_scene()
        self.why.forget()
        self._nodes, self._clusters, self._edges, self._taken = {}, {}, [], []
        self._drawing = Drawing(layout, self.scene)
        self._draw_slice(generation)

    def _draw_slice(self, generation: int) -> None:
        drawing = self._drawing
        if generation != self._generation or drawing is None:
            return  # a newer graph: its own drawing replaced this one
        # the items live as long as the layout and form no garbage: no cyclic collection walks
        # the heap mid-slice (a full pass was a 30-50 ms stall of its own), and none walks them later
        with bulk_allocation():
            more = drawing.step()
            if not more:
                self._drawing = None
                self.last_drawing = drawing
                self._pending = 0
                self._draw(drawing)
        if more:
            QTimer.singleShot(0, self, lambda: self._draw_slice(generation))
            return
        self._end_drawing()
        self.last_graphviz_seconds = drawing.layout.seconds
        self.last_layout_seconds = time.perf_counter() - self._started
        n, e = len(self._nodes), len(self._edges)
        self.status.setText(f"{n} nodes · {e} edges" + (" · fast layout" if drawing.layout.fast else ""))
        self._fit_header()
        self.layout_ready.emit(self.last_layout_seconds)

    def _end_drawing(self) -> None:
        if not self.canvas.viewport().updatesEnabled():
            self.canvas.viewport().setUpdatesEnabled(True)  # one repaint of the whole canvas

    def _draw(self, drawing: Drawing) -> None:
        """The items are made: the marks, the why marks and the fit, in one go."""
        layout = drawing.layout
        self._nodes, self._clusters, self._edges = drawing.nodes, drawing.clusters, drawing.edges
        self.canvas.layer.build(self._edges, [c.sceneBoundingRect() for c in self._clusters.values()])
        self.canvas.resetCachedContent()
        margin = 24.0
        self.scene.setSceneRect(QRectF(-margin, -margin, layout.width + 2 * margin, layout.height + 2 * margin))
        self.highlights = Highlights(self.scene.sceneRect().adjusted(-12, -12, 12, 12))
        self.scene.addItem(self.highlights)
        self._apply_marks()
        self.set_why(self._why)
        self.focus.refresh()
        if self._auto_fit or not self.isVisible():
            self.fit(auto=True)

    # -- marks ----------------------------------------------------------------------------
    def set_marks(self, marks: GraphMarks) -> None:
        self._marks = marks
        if self._drawing is None:  # else applied once the drawing is in
            self._apply_marks()

    def _apply_marks(self) -> None:
        m = self._marks
        recent: dict[str, float] = {}
        trail = list(dict.fromkeys(reversed(m.trail)))  # newest first, each node once
        for age, node in enumerate(trail[:8]):
            recent[node] = 1.0 - age / 8
        tasks = {node: (done, total) for node, done, total in m.tasks}
        for node_id, item in (*self._nodes.items(), *self._clusters.items()):
            done, total = tasks.get(node_id, (0, 0))
            item.set_marks(NodeMarks(
                running=node_id in m.running, next=node_id in m.next, trail=recent.get(node_id, 0.0),
                failed=node_id in m.failed, interrupted=node_id in m.interrupted, selected=node_id == m.selected,
                break_before=node_id in m.breakpoints_before, break_after=node_id in m.breakpoints_after,
                count=(f"{done}/{total} ✓" if done else f"×{total}") if total > 1 else "",
                done=total > 0 and done == total and node_id not in m.running,
                ended=m.ended and getattr(item.box, "kind", "") == "end",
            ))
        sources = set(m.running) | set(m.last_ran)  # what just ran: not older supersteps
        drawn = set()
        for edge in self._edges:
            ends = (edge.edge.source, edge.edge.target)
            edge.set_active(bool(m.next) and ends[1] in m.next and ends[0] in sources)
            drawn.add(ends)
            if ends in m.taken_edges and edge.kind == "dynamic":
                edge.set_kind("taken")
        self._update_taken(m, drawn)
        self._sync_layer()
        if m.running and not self._pulse.isActive():
            self._pulse.start()
        elif not m.running:
            self._pulse.stop()

    def set_why(self, why: WhyMarks) -> None:
        """Draw why the next tasks run: triggers, badges, the superstep's frame, tooltips."""
        self._why = why
        if self._drawing is not None:
            return  # applied once the drawing is in
        self.why.apply(why, self._nodes, self._edges, list(self._clusters.values()))
        self._sync_layer()
        self.show_hover(self._hovered)

    def _clear_scene(self) -> None:
        self.highlights = None  # cleared with the scene
        self.scene.clear()
        self.canvas.layer.clear()
        self.canvas.resetCachedContent()

    def _sync_layer(self) -> None:
        """Fitted, the resting edges are the background's and the highlighted or glowing ones
        the `Highlights`' (with the glows); zoomed in, each edge paints its own item."""
        layer, glowing = self.canvas.layer, set(self.why.triggered)
        shown = self.canvas.mapFromScene(self.scene.sceneRect()).boundingRect()
        fits = self.canvas.viewport().rect().adjusted(-2, -2, 2, 2).contains(shown)
        if layer.enable(fits, glowing) | layer.sync(glowing):
            self.canvas.resetCachedContent()
        if self.highlights is not None:
            self.highlights.show_strokes(self.why.glows, layer.lit)

    def show_hover(self, node: str | None) -> None:
        """The caption over the graph: why the hovered node runs next (or not yet); with no
        node hovered, what the superstep on screen does."""
        self._hovered = node
        why = self._why
        if node is not None and node in why.hover:
            text = why.hover[node]
        elif why.step is not None or why.hover:
            text = why.summary
        else:
            text = ""
        self.caption.show_text(text.replace("`", ""))
        if text:
            self._caption_hide.stop()
            self.caption.show()
        elif not self.caption.isHidden() and not self._caption_hide.isActive():
            self._caption_hide.start()  # hidden once it stays empty: a flicker of empty text keeps it

    def _hide_empty_caption(self) -> None:
        """The caption goes once it has nothing to say (one resize of the canvas, not one
        per selection: a text arriving within CAPTION_HIDE_MS keeps it)."""
        if not self.caption.full_text():
            self.caption.hide()

    def _update_taken(self, marks: GraphMarks, drawn: set[tuple[str, str]]) -> None:
        for item in self._taken:
            self.scene.removeItem(item)
        self._taken = []
        for source, target in sorted(marks.taken_edges):
            a, b = self._nodes.get(source), self._nodes.get(target)
            if (source, target) in drawn or a is None or b is None or a is b:
                continue
            item = straight_edge(a, b)
            self.scene.addItem(item)
            self._taken.append(item)

    def _on_pulse(self) -> None:
        for node_id in self._marks.running:
            item = self._nodes.get(node_id)
            if item is not None:
                item.pulse = (item.pulse + 0.07) % 1.0
                item.update()

    # -- legend ---------------------------------------------------------------------------
    def set_legend_visible(self, on: bool) -> None:
        """Show or hide the legend card (bottom left of the canvas)."""
        if on == self.legend_visible():
            return
        self.legend.setVisible(on)
        if on:  # a small card over the bottom left corner; the graph keeps the whole canvas
            self._place_legend()
            self.legend.raise_()
        if self._auto_fit and self._layout is not None:
            self.fit(auto=True)
        self.legend_button.blockSignals(True)
        self.legend_button.setChecked(on)
        self.legend_button.blockSignals(False)
        self.legend_toggled.emit(on)

    def legend_visible(self) -> bool:
        return not self.legend.isHidden()

    def _place_legend(self) -> None:
        room = self.canvas.rect().adjusted(8, 8, -8, -8)
        self.legend.fit_to(room.width(), room.height())
        size = self.legend.sizeHint()
        self.legend.resize(size)
        self.legend.move(room.left(), max(room.top(), room.bottom() - size.height()))

    def _on_legend_closed(self) -> None:
        self.set_legend_visible(False)

    # -- zoom -----------------------------------------------------------------------------
    def zoom(self) -> float:
        return self.canvas.transform().m11()

    def set_zoom(self, scale: float) -> None:
        scale = min(_MAX_SCALE, max(_MIN_SCALE, scale))
        self.canvas.setTransform(QTransform.fromScale(scale, scale))
        self._auto_fit = False
        self._show_zoom()

    def zoom_by(self, factor: float) -> None:
        target = min(_MAX_SCALE, max(_MIN_SCALE, self.zoom() * factor))
        self.canvas.scale(target / self.zoom(), target / self.zoom())
        self._auto_fit = False
        self._show_zoom()

    def stop_auto_fit(self) -> None:
        """The user panned: stop re-fitting on resize."""
        self._auto_fit = False

    def fit(self, auto: bool = False) -> None:
        """Show the whole graph (never magnified past `max_fit_scale`, 125% by default)."""
        rect = self.scene.sceneRect()
        if rect.isEmpty():
            return
        self.canvas.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        if self.zoom() > self.max_fit_scale:
            self.canvas.setTransform(QTransform.fromScale(self.max_fit_scale, self.max_fit_scale))
            self.canvas.centerOn(rect.center())
        self._auto_fit = True
        self._show_zoom()

    def _show_zoom(self) -> None:
        self._sync_layer()
        self.canvas.zoomed()
        self.zoom_label.setText(f"{self.zoom() * 100:.0f}%")
        # room for any percentage in the label's current font (a presentation zoom enlarges it)
        self.zoom_label.setMinimumWidth(self.zoom_label.fontMetrics().horizontalAdvance("0000%"))
        self._fit_header()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._auto_fit:
            QTimer.singleShot(0, lambda: self.fit(auto=True))

    def _fit_header(self) -> None:
        """The graph's name keeps its whole width when the header has it (a zoomed narrow
        panel squeezed it to "para"): the node count gives way first (into the name's
        tooltip), then the zoom percentage, then the − and + buttons (the
        keys - and + and the wheel still zoom); Fit and the legend stay."""
        out, zin, fit, legend = self._header_buttons
        name = self.title.fontMetrics().horizontalAdvance(self.title.text()) + 8
        status = self.status.fontMetrics().horizontalAdvance(self.status.text())
        spare = self.width() - 12 - 6 * 6  # the margins and the spacing between the header's items
        kept = fit.sizeHint().width() + legend.sizeHint().width()
        steps = out.sizeHint().width() + zin.sizeHint().width()
        percent = self.zoom_label.fontMetrics().horizontalAdvance("0000%")
        show_steps = spare >= name + kept + steps
        show_percent = show_steps and spare >= name + kept + steps + percent
        fits = show_percent and spare - name - kept - steps - percent >= min(status, 80)
        for button in (out, zin):
            button.setVisible(show_steps)
        self.zoom_label.setVisible(show_percent)
        self.status.setVisible(fits)
        room = spare - kept - (steps if show_steps else 0) - (percent if show_percent else 0)
        self.title.setMinimumWidth(max(40, min(name, room)))
        self.title.setToolTip("" if fits else f"{self.title.text()} · {self.status.text()}")

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange):
            QTimer.singleShot(0, self._fit_header)  # a zoom: the header's text widths changed
            QTimer.singleShot(0, self._hold_caption)  # and the caption's lines

    def _hold_caption(self) -> None:
        """The caption keeps two lines of its (zoomed) font; the canvas below gives way."""
        self.caption.hold()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_header()
        self._hold_caption()
        if self.legend_visible():
            self._place_legend()
        if self._auto_fit and self._layout is not None:
            self.fit(auto=True)

    # -- clicks ---------------------------------------------------------------------------
    def item_at(self, pos: QPointF) -> NodeItem | ClusterItem | None:
        for item in self.scene.items(pos):
            if isinstance(item, NodeItem) and item.box.kind != "join":
                return item
        for item in self.scene.items(pos):
            if isinstance(item, ClusterItem) and item.title_rect().contains(pos):
                return item
        return None

    def canvas_clicked(self, pos: QPointF) -> None:
        item = self.item_at(pos)
        if item is None:
            return
        if isinstance(item, NodeItem):
            part = item.hit_part(pos)
            if part in ("before", "after"):
                self.breakpoint_toggled.emit(item.node_id, part)
                return
        self.focus.node = item.node_id  # the ring follows the mouse's pick
        self.focus.refresh()
        self.node_clicked.emit(item.node_id)

    def context_menu_at(self, pos: QPointF, global_pos: QPoint) -> None:
        item = self.item_at(pos)
        self.open_context_menu(item.node_id if item is not None else None, global_pos)

    def open_context_menu(self, node: str | None, global_pos: QPoint) -> None:
        """The node's menu (inspect, run to here, breakpoints) and Fit, at `global_pos`."""
        item = self.node_item(node) if node is not None else None
        menu = QMenu(self)
        if item is not None and node is not None:
            menu.addAction("Inspect", lambda: self.node_clicked.emit(node))
            run_to = menu.addAction("Run to here", lambda: self.run_to_requested.emit(node))
            run_to.setShortcutVisibleInContextMenu(True)
            menu.addSeparator()
            for where, label, on in (("before", "Break before", item.marks.break_before),
                                     ("after", "Break after", item.marks.break_after)):
                action = QAction(label, menu, checkable=True, checked=on)
                action.triggered.connect(lambda _=False, w=where: self.breakpoint_toggled.emit(node, w))
                menu.addAction(action)
            menu.addSeparator()
        menu.addAction("Fit (F)", self.fit)
        menu.exec(global_pos)

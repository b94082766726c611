"""A layout's items made a slice at a time (the graph panel draws a layout over several
turns of the event loop, so no single turn blocks the UI thread for long).

Making the ~1,000 items of a 200-node graph (boxes, edges with their arrowheads, label
plates and tooltips) took 40-60 ms of the UI thread in one callback; `Drawing` makes
`per_slice` of them per `step()`, adding each to the scene as it is made. The panel keeps
the canvas from repainting until the last slice is in (the old picture stays on screen).
"""
from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

from PySide6.QtWidgets import QGraphicsScene

from studio.core.layout import GraphLayout
from .items import ClusterItem, EdgeItem, NodeItem
from .long_paths import make_edge

__all__ = ["Drawing", "DRAW_SLICE"]

DRAW_SLICE = 120
"""Items made per slice (per turn of the event loop): ~5-8 ms of a 2-core machine's CPU."""


class Drawing:
    """The items of one layout, made `per_slice` at a time into `scene`."""

    def __init__(self, layout: GraphLayout, scene: QGraphicsScene, per_slice: int = DRAW_SLICE) -> None:
        self.layout = layout
        self.nodes: dict[str, NodeItem] = {}
        self.clusters: dict[str, ClusterItem] = {}
        self.edges: list[EdgeItem] = []
        self.slices = 0
        """Slices made so far (tests read it)."""
        self.largest = 0
        """The most items one slice made."""
        self._per_slice = max(1, per_slice)
        self._scene = scene
        self._work = self._make()

    def step(self) -> bool:
        """Make the next slice of items; False once every item is made (nothing was left)."""
        made = next(self._work, None)
        if made is None:
            return False
        self.slices += 1
        self.largest = max(self.largest, made)
        return True

    def finish(self) -> None:
        """Make whatever is left, now (a test, or a caller that cannot wait)."""
        while self.step():
            pass

    def _make(self) -> Iterator[int]:
        """The items made, counted out a slice (`per_slice` items) at a time."""
        per, made = self._per_slice, 0
        for _ in chain(self._make_clusters(), self._make_edges(), self._make_nodes()):
            made += 1
            if made == per:
                yield made
                made = 0
        if made:
            yield made

    def _make_clusters(self) -> Iterator[None]:  # each yields once per item it made
        for box in self.layout.clusters:
            item = ClusterItem(box)
            self._scene.addItem(item)
            self.clusters[box.id] = item
            yield None

    def _make_edges(self) -> Iterator[None]:
        layout = self.layout
        for path in layout.edges:
            kind = path.kind
            target = layout.nodes.get(path.target)
            if kind == "dynamic" and target is not None and target.kind != "any":
                kind = "taken"  # a route seen at run time: drawn solid
            edge = make_edge(path, kind)  # a long one strokes only what the view shows
            self._scene.addItem(edge)
            self.edges.append(edge)
            yield None

    def _make_nodes(self) -> Iterator[None]:
        for box in self.layout.nodes.values():
            node = NodeItem(box)
            self._scene.addItem(node)
            self.nodes[box.id] = node
            yield None

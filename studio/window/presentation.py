"""Presentation mode: the whole UI zooms (Ctrl+= / Ctrl+- / Ctrl+0, remembered), a
high-contrast theme (remembered), and a focus layout with only the graph, the state and
the diff."""
from __future__ import annotations

import re

from studio.assets import asset
from PySide6.QtCore import QByteArray, QSize, QTimer
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QSizePolicy, QStatusBar, QToolBar, QToolTip

__all__ = ["Presentation", "scale_fonts", "relax_labels", "ZOOMS", "HIGH_CONTRAST_SHEET"]

HIGH_CONTRAST_SHEET = asset("high_contrast.qss")
ZOOMS = (0.8, 0.9, 1.0, 1.15, 1.3, 1.5, 1.75, 2.0, 2.5, 3.0)
"""The zoom levels Ctrl+= and Ctrl+- step through."""
_BASE_PT = 10.0
_ICON_ZOOM = 1.3
"""Icons grow with the zoom up to this factor (the text carries the rest), so the toolbars fit."""
_LABEL_ROOM = 60
"""A one-line message label narrower than its text elides from this width on, so that a zoomed
window keeps within the screen instead of growing past it."""


def relax_labels(window: QMainWindow) -> None:
    """Let every one-line label of the docks, the graph and the status bar be narrower than its
    text (it shows what fits; the full text is its tooltip), so that larger fonts never make
    the window's minimum width exceed the screen."""
    for label in window.findChildren(QLabel):
        parent = label.parentWidget()
        if label.wordWrap() or isinstance(parent, QToolBar) or label.property("relaxed"):
            continue
        if isinstance(parent, QStatusBar):
            continue  # short, always read (the thread's name elides itself)
        if label.sizeHint().width() <= _LABEL_ROOM:
            continue
        policy = label.sizePolicy()
        policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
        label.setSizePolicy(policy)
        label.setMinimumWidth(_LABEL_ROOM)
        label.setProperty("relaxed", True)
_FONT_SIZE = re.compile(r"font-size:\s*([0-9.]+)pt")


def scale_fonts(sheet: str, factor: float) -> str:
    """`sheet` with every `font-size: Npt` multiplied by `factor`."""
    return _FONT_SIZE.sub(lambda m: f"font-size: {float(m.group(1)) * factor:.1f}pt", sheet)


class Presentation:
    """Zoom, theme and focus layout of one window; zoom and theme are kept in its QSettings."""

    def __init__(self, window: QMainWindow, focus_docks: list[QDockWidget]) -> None:
        self.window = window
        self.settings = window.settings  # type: ignore[attr-defined]
        self.base_sheet = window.styleSheet() or f"QWidget {{ font-size: {_BASE_PT}pt; }}"
        if "font-size" not in self.base_sheet:
            self.base_sheet += f"\nQWidget {{ font-size: {_BASE_PT}pt; }}"
        try:
            self.contrast_sheet = HIGH_CONTRAST_SHEET.read_text(encoding="utf-8")
        except OSError:
            self.contrast_sheet = ""
        self.focus_docks = focus_docks
        self._saved_layout: QByteArray | None = None
        self._icon = window.iconSize()
        self._applied = 1.0
        self._pending_scale: float | None = None
        """The graph's scale a zoom set and its timer has yet to apply."""
        self.remember = bool(getattr(window, "remember_layout", True))
        """False for a --screenshot window: the user's zoom and theme are neither read nor changed."""
        self.zoom = _clamp(_float(self.settings.value("teach/zoom", 1.0))) if self.remember else 1.0
        self.high_contrast = _bool(self.settings.value("teach/high_contrast", False)) if self.remember else False
        if self.zoom != 1.0 or self.high_contrast:
            self.apply()

    @property
    def focused(self) -> bool:
        return self._saved_layout is not None

    def zoom_in(self) -> None:
        self.set_zoom(next((z for z in ZOOMS if z > self.zoom + 1e-6), ZOOMS[-1]))

    def zoom_out(self) -> None:
        self.set_zoom(next((z for z in reversed(ZOOMS) if z < self.zoom - 1e-6), ZOOMS[0]))

    def set_zoom(self, zoom: float) -> None:
        self.zoom = _clamp(zoom)
        if self.remember:
            self.settings.setValue("teach/zoom", self.zoom)
        self.apply()

    def set_high_contrast(self, on: bool) -> None:
        self.high_contrast = bool(on)
        if self.remember:
            self.settings.setValue("teach/high_contrast", self.high_contrast)
        self.apply()

    def apply(self) -> None:
        QToolTip.hideText()  # a tooltip shown before the change would stay, in the old size and theme
        before = self._applied
        self._applied = self.zoom
        sheet = self.base_sheet + ("\n" + self.contrast_sheet if self.high_contrast else "")
        relax_labels(self.window)
        if before != self.zoom and self.window.isVisible() and getattr(self.window, "zoom_room", False) is None:
            self.window.zoom_room = self.window.size()  # type: ignore[attr-defined]  # what the docks fit in
        self.window.setStyleSheet(scale_fonts(sheet, self.zoom))
        side = int(round(max(16, self._icon.width()) * min(self.zoom, _ICON_ZOOM)))
        for bar in self.window.findChildren(QToolBar):
            bar.setIconSize(QSize(side, side))
            bar.setProperty("wantedIconSize", QSize(side, side))
        refit = getattr(self.window, "fit_toolbars", None)
        if refit is not None:  # larger text: buttons give up their text so the thread box stays
            QTimer.singleShot(0, refit)
        fit_docks = getattr(self.window, "fit_docks", None)
        if fit_docks is not None and before != self.zoom:  # the panels fit the screen at the new size
            QTimer.singleShot(0, fit_docks)
        graph = getattr(getattr(self.window, "panels", None), "graph", None)
        if graph is None:
            return
        graph.max_fit_scale = 1.25 * self.zoom
        graph.set_high_contrast(self.high_contrast)
        if before == self.zoom:
            return  # a theme change, or Ctrl+= at the top zoom: the graph keeps its scale (a refit
            # to the small canvas of a zoomed window had shrunk it, and Ctrl+0 then more)
        if graph.scene.sceneRect().isEmpty():
            graph.fit(auto=True)
            return
        # the graph is drawn as vectors: it grows (or shrinks) with the text, whatever room the
        # larger panels leave it (a fit would shrink it as the panels grow)
        # from the scale still to be set when keys come faster than the timer (Ctrl+= Ctrl+=)
        scale = (self._pending_scale or graph.zoom()) * self.zoom / before
        self._pending_scale = scale
        center = graph.canvas.mapToScene(graph.canvas.viewport().rect().center())

        def rescale() -> None:
            if self._pending_scale != scale:
                return  # a later zoom sets its own
            self._pending_scale = None
            graph.set_zoom(scale)
            graph.canvas.centerOn(center)

        QTimer.singleShot(0, rescale)

    def set_focus(self, on: bool) -> None:
        """Only the graph, the state and the diff (on); the layout from before (off)."""
        if on and self._saved_layout is None:
            self._saved_layout = self.window.saveState()
            for dock in self.window.findChildren(QDockWidget):
                dock.setVisible(dock in self.focus_docks)
        elif not on and self._saved_layout is not None:
            saved, self._saved_layout = self._saved_layout, None
            self.window.restoreState(saved)
        graph = getattr(getattr(self.window, "panels", None), "graph", None)
        if graph is not None:  # the graph's room changed: fit it again (centred) once laid out
            QTimer.singleShot(0, graph.fit)


def _clamp(zoom: float) -> float:
    return min(ZOOMS[-1], max(ZOOMS[0], zoom))


def _float(value: object) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 1.0


def _bool(value: object) -> bool:
    return value is True or str(value).lower() in ("true", "1")

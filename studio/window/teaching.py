"""The teaching tools of the window, installed beside the debugger's own chrome:

- the "why" marks on the graph and the Superstep panel (pending writes and their
  reducers), fed by the session's `whyChanged`; the reducers' lines in the diff panel;
- autoplay (F8 play/pause, a speed, node or superstep) and the history scrubber;
- presentation mode: whole-UI zoom (Ctrl+= / Ctrl+- / Ctrl+0), high contrast, focus layout;
- the Lesson panel: the text that comes with a lesson example (FILE.md beside FILE.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QComboBox, QDockWidget, QDoubleSpinBox, QLabel, QMainWindow, QMenu, QToolBar

from studio.core.records import WhyMarks
from studio.core.scrub import Track
from studio.panels.lesson import LessonPanel
from studio.panels.scrubber import Scrubber
from studio.panels.superstep import SuperstepPanel

from .autoplay import Autoplay
from .overflow import ToolbarOverflow
from .presentation import Presentation

__all__ = ["Teaching", "TeachActions", "lesson_for"]


def lesson_for(graph_file: Path) -> tuple[str, str] | None:
    """(title, markdown) of the lesson beside a graph file (`FILE.md`), or None."""
    text_file = graph_file.with_suffix(".md")
    try:
        text = text_file.read_text(encoding="utf-8")[:20_000]
    except OSError:
        return None
    first = text.lstrip().splitlines()[0] if text.strip() else ""
    title = first.lstrip("# ").strip() if first.startswith("#") else graph_file.stem.replace("_", " ")
    return title, text


@dataclass
class TeachActions:
    play: QAction
    zoom_in: QAction
    zoom_out: QAction
    zoom_reset: QAction
    high_contrast: QAction
    focus: QAction


def _action(window: QMainWindow, text: str, tip: str, keys: list[str], checkable: bool = False) -> QAction:
    action = QAction(text, window)
    action.setShortcuts([QKeySequence(k) for k in keys])
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    shown = QKeySequence(keys[0]).toString(QKeySequence.SequenceFormat.NativeText) if keys else ""
    action.setToolTip(f"{tip} ({shown})" if shown else tip)
    action.setStatusTip(tip)
    action.setCheckable(checkable)
    window.addAction(action)
    return action


def _dock(window: QMainWindow, title: str, name: str, widget: Any) -> QDockWidget:
    dock = QDockWidget(title, window)
    dock.setObjectName(name)
    dock.setWidget(widget)
    return dock


class Teaching:
    """Builds the teaching docks, toolbar, menu and actions of `window` and wires them."""

    def __init__(self, window: Any) -> None:
        self.window = window
        session, docks = window.session, window.docks
        self.session = session
        self.superstep = SuperstepPanel()
        self.lesson = LessonPanel()
        self.scrubber = Scrubber()
        self.track = Track()
        self.superstep_dock = _dock(window, "Superstep", "dock-superstep", self.superstep)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.superstep_dock)
        window.tabifyDockWidget(docks.events, self.superstep_dock)
        # shown by a lesson, or View/Teach ▸ Superstep: hidden, it costs the window no room
        self.superstep_dock.hide()
        docks.add_extra(self.superstep_dock, "events", "timeline")
        self.lesson_dock = _dock(window, "Lesson", "dock-lesson", self.lesson)
        window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.lesson_dock)
        window.tabifyDockWidget(docks.inspector, self.lesson_dock)
        self.lesson_dock.hide()
        docks.add_extra(self.lesson_dock, "inspector", "timeline")
        self.autoplay = Autoplay(session, scrub=lambda: self.scrubber.step_by(1), parent=window)
        self.actions = TeachActions(
            play=_action(window, "▶ Play", "Autoplay: step by itself at the chosen speed", ["F8"], True),
            zoom_in=_action(window, "Zoom &In", "Make the whole window bigger (presentation)", ["Ctrl+=", "Ctrl++"]),
            zoom_out=_action(window, "Zoom &Out", "Make the whole window smaller", ["Ctrl+-"]),
            zoom_reset=_action(window, "&Actual Size", "The window at its normal size", ["Ctrl+0"]),
            high_contrast=_action(window, "&High Contrast", "Black on white, bold, thick borders (projectors)",
                                  ["Ctrl+Shift+H"], True),
            focus=_action(window, "&Focus Layout", "Only the graph, the state and the diff", ["Ctrl+Shift+L"], True),
        )
        self.presentation = Presentation(window, [docks.state, docks.diff])
        self.actions.high_contrast.setChecked(self.presentation.high_contrast)
        self.toolbar = self._build_toolbar()
        # hidden until a lesson opens, or Teach ▸ Teaching Bar: a 1280x720 window keeps its graph room
        self.toolbar.hide()
        self.toolbar.toggleViewAction().setText("Teaching &Bar (autoplay, history scrubber, zoom)")
        self._build_menu()
        self._connect()

    # -- construction ----------------------------------------------------------------------
    def _build_toolbar(self) -> QToolBar:
        w, a = self.window, self.actions
        bar = QToolBar("Teaching", w)
        bar.setObjectName("teaching")
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        w.addToolBarBreak(Qt.ToolBarArea.TopToolBarArea)
        w.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
        for action in (a.zoom_out, a.zoom_in):  # first: they stay on screen at every zoom
            bar.addAction(action)
        self.zoom_label = QLabel("")
        self.zoom_label.setObjectName("zoomLabel")
        bar.addWidget(self.zoom_label)
        for action in (a.high_contrast, a.focus):
            bar.addAction(action)
        for action, label in ((a.zoom_out, "Zoom −"), (a.zoom_in, "Zoom +"), (a.high_contrast, "Contrast"),
                              (a.focus, "Focus")):
            action.setIconText(label)  # the toolbar's short label; the Teach menu has the full name
        bar.addSeparator()
        bar.addAction(a.play)
        self.speed = QDoubleSpinBox(objectName="autoplaySpeed")
        self.speed.setRange(0.25, 10.0)
        self.speed.setSingleStep(0.25)
        self.speed.setValue(1.0)
        self.speed.setSuffix(" /s")
        self.speed.setToolTip("Autoplay speed: steps per second")
        self.mode = QComboBox(objectName="autoplayMode")
        self.mode.addItem("by node", "node")
        self.mode.addItem("by superstep", "superstep")
        self.mode.setItemData(0, "node by node (F10)", Qt.ItemDataRole.ToolTipRole)
        self.mode.setItemData(1, "superstep by superstep (Shift+F10)", Qt.ItemDataRole.ToolTipRole)
        self.mode.setToolTip("Autoplay: one node per step (F10) or one whole superstep (Shift+F10)")
        speed = bar.addWidget(self.speed)
        mode = bar.addWidget(self.mode)
        bar.addSeparator()
        bar.addWidget(self.scrubber)
        # what does not fit moves into "⋯" (zoom and contrast last: presenting needs them)
        self.speed_menu, self.mode_menu = self._speed_menu(bar), self._mode_menu(bar)
        self.overflow = ToolbarOverflow(bar, overflow=[a.focus, mode, speed, a.play, a.high_contrast], before=None,
                                        stand_ins={speed: self.speed_menu.menuAction(),
                                                   mode: self.mode_menu.menuAction()})
        self.show_zoom()
        return bar

    def _speed_menu(self, parent: QToolBar) -> QMenu:
        """The speed box's stand-in in "⋯": a few speeds to pick."""
        menu = QMenu("Autoplay &Speed", parent)
        for speed in (0.5, 1.0, 2.0, 5.0, 10.0):
            menu.addAction(f"{speed:g} steps/s", lambda speed=speed: self.speed.setValue(speed))
        return menu

    def _mode_menu(self, parent: QToolBar) -> QMenu:
        """The mode box's stand-in in "⋯"."""
        menu = QMenu("Autoplay &Mode", parent)
        for index, text in enumerate(("node by node", "superstep by superstep")):
            menu.addAction(text, lambda index=index: self.mode.setCurrentIndex(index))
        return menu

    def _build_menu(self) -> None:
        w, a = self.window, self.actions
        menu = w.menuBar().addMenu("&Teach")
        for item in (self.toolbar.toggleViewAction(), self.superstep_dock.toggleViewAction(), None, a.play, None,
                     a.zoom_in, a.zoom_out, a.zoom_reset, None, a.high_contrast, a.focus):
            if item is None:
                menu.addSeparator()
            else:
                menu.addAction(item)
        view = w.menus.get("View")
        if view is not None:
            view.addAction(self.superstep_dock.toggleViewAction())
            view.addAction(self.lesson_dock.toggleViewAction())
            view.addAction(self.toolbar.toggleViewAction())
        self.menu = menu

    def _connect(self) -> None:
        s, a, p = self.session, self.actions, self.window.panels
        s.whyChanged.connect(self._on_why)
        s.graphOpened.connect(self._on_graph_opened)
        for signal in (s.timelineReset, s.timelineRowAdded, s.headChanged, s.viewChanged):
            signal.connect(self._refresh_track)
        self.scrubber.checkpoint_picked.connect(s.select_checkpoint)
        a.play.triggered.connect(lambda checked: self.autoplay.play() if checked else self.autoplay.pause())
        a.play.triggered.connect(lambda _checked: self.toolbar.show())  # its speed and mode on screen
        self.autoplay.playingChanged.connect(self._on_playing)
        self.autoplay.stopped.connect(lambda text: s.message.emit(text))
        self.speed.valueChanged.connect(self.autoplay.set_speed)
        self.mode.currentIndexChanged.connect(lambda _i: self.autoplay.set_mode(self.mode.currentData()))
        a.zoom_in.triggered.connect(lambda: self._zoom(self.presentation.zoom_in))
        a.zoom_out.triggered.connect(lambda: self._zoom(self.presentation.zoom_out))
        a.zoom_reset.triggered.connect(lambda: self._zoom(lambda: self.presentation.set_zoom(1.0)))
        a.high_contrast.toggled.connect(self.presentation.set_high_contrast)
        a.focus.toggled.connect(self.presentation.set_focus)
        self.why = WhyMarks()
        p.diff.set_reducer_notes({})

    # -- handlers --------------------------------------------------------------------------
    def _on_why(self, why: WhyMarks) -> None:
        try:
            same = why == self.why
        except Exception:  # a pending value whose == is not a bool (an array): redraw
            same = False
        if same is True:  # a step that changes no mark redraws nothing
            return
        self.why = why
        panels = self.window.panels
        panels.graph.set_why(why)
        self.superstep.set_why(why)
        panels.diff.set_reducer_notes(dict(why.reducers))

    def _on_playing(self, playing: bool) -> None:
        self.actions.play.setChecked(playing)
        self.actions.play.setText("❚❚ Pause" if playing else "▶ Play")

    def _on_graph_opened(self, path: Path, ok: bool) -> None:
        found = lesson_for(Path(path)) if ok else None
        if found is None:
            self.lesson_dock.hide()
            return
        self.lesson.set_lesson(*found)
        self.lesson_dock.show()
        self.lesson_dock.raise_()
        self.show_superstep()

    def show_superstep(self) -> None:
        """The Superstep panel on screen, in front of the Events panel, and the teaching bar."""
        self.toolbar.show()
        self.superstep_dock.show()
        self.superstep_dock.raise_()

    def _refresh_track(self, *_args: Any) -> None:
        s = self.session
        current = s.viewed_id or s.head_id
        self.track.update(s.history, current, s.head_id)
        if self.scrubber.ids is not self.track.ids:  # another branch (a grown one keeps its list)
            self.scrubber.set_track(self.track.ids, self._label, current)
        else:
            self.scrubber.move_to(current)

    def _label(self, checkpoint_id: str) -> str:
        row = self.session.history.get(checkpoint_id)
        if row is None:
            return checkpoint_id
        return f"step {row.step} · {', '.join(row.nodes) if row.nodes else row.source}"

    def _zoom(self, change: Any) -> None:
        change()
        self.show_zoom()

    def show_zoom(self) -> None:
        self.zoom_label.setText(f" {self.presentation.zoom * 100:.0f}%")

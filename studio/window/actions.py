"""The window's actions (with their keys and icons), its toolbar and its menus."""
from __future__ import annotations

from dataclasses import dataclass, fields

from studio.assets import asset
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QIcon, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QStyle, QToolBar

from .overflow import ToolbarOverflow

__all__ = ["toolbar_overflow", "Actions", "build_actions", "build_toolbar", "build_menus", "ICONS", "STEPPING",
           "SHORT_LABELS"]

ICONS = asset("icons")

STEPPING = ("step", "step_superstep", "continue_", "run_to", "step_into", "step_out", "restart", "new_run")
"""Actions disabled while a command is in flight (or without the graph's code)."""


@dataclass
class Actions:
    """Every QAction of the window, one attribute each (tests trigger them by name)."""

    step: QAction
    step_superstep: QAction
    continue_: QAction
    pause: QAction
    stop: QAction
    restart: QAction
    run_to: QAction
    step_into: QAction
    step_out: QAction
    answer: QAction
    toggle_breakpoint: QAction
    toggle_breakpoint_after: QAction
    back: QAction
    forward: QAction
    reload: QAction
    new_run: QAction
    open_graph: QAction
    open_database: QAction
    pick_thread: QAction
    rewind: QAction
    edit_fork: QAction
    compare: QAction
    legend: QAction
    reset_layout: QAction
    quit: QAction

    def all(self) -> list[QAction]:
        return [getattr(self, f.name) for f in fields(self)]


def _icon(window: QMainWindow, name: str, fallback: QStyle.StandardPixmap) -> QIcon:
    path = ICONS / f"{name}.svg"
    if path.exists():
        return QIcon(str(path))
    return window.style().standardIcon(fallback)


def _action(window: QMainWindow, text: str, tip: str, keys: str | QKeySequence.StandardKey | None = None,
            icon: tuple[str, QStyle.StandardPixmap] | None = None) -> QAction:
    action = QAction(text, window)
    if keys is not None:
        action.setShortcut(QKeySequence(keys))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        shown = QKeySequence(keys).toString(QKeySequence.SequenceFormat.NativeText)
        tip = f"{tip} ({shown})" if shown else tip
    action.setToolTip(tip)
    action.setStatusTip(tip)
    if icon is not None:
        action.setIcon(_icon(window, *icon))
    window.addAction(action)  # shortcuts work whichever dock has the focus
    return action


def _checkable(action: QAction) -> QAction:
    action.setCheckable(True)
    return action


def build_actions(window: QMainWindow) -> Actions:
    sp = QStyle.StandardPixmap
    return Actions(
        step=_action(window, "Step &Node", "Run the next node; commits the superstep after its last node",
                     "F10", ("step", sp.SP_ArrowRight)),
        step_superstep=_action(window, "Step &Superstep", "Run every node of the superstep, then commit",
                               "Shift+F10", ("step-superstep", sp.SP_MediaSkipForward)),
        continue_=_action(window, "&Continue", "Run to the next breakpoint, interrupt, error or the end",
                          "F5", ("continue", sp.SP_MediaPlay)),
        pause=_action(window, "&Pause", "Stop after the running node", "Ctrl+F5", ("pause", sp.SP_MediaPause)),
        stop=_action(window, "S&top", "Cancel the run; committed steps stay", "Shift+F5",
                     ("stop", sp.SP_MediaStop)),
        restart=_action(window, "&Restart", "A new run with the same input, on a new thread",
                        "Ctrl+Shift+F5", ("restart", sp.SP_BrowserReload)),
        run_to=_action(window, "Run to Selected &Node", "Run until the selected node is about to run",
                       "Ctrl+F10", ("run-to", sp.SP_MediaSeekForward)),
        step_into=_action(window, "Step &Into Subgraph", "Step the next node; a subgraph shows its inner graph",
                          "F11", ("step-into", sp.SP_ArrowDown)),
        step_out=_action(window, "Step O&ut of Subgraph", "Run the rest of the subgraph; stop in the parent after it",
                         "Shift+F11", ("step-out", sp.SP_ArrowUp)),
        answer=_action(window, "&Answer Interrupt", "Type the resume value of the pending interrupt "
                       "(Ctrl+Return resumes)", "Ctrl+I"),
        toggle_breakpoint=_action(window, "Toggle &Breakpoint", "Break before the selected node", "F9",
                                  ("breakpoint", sp.SP_DialogNoButton)),
        toggle_breakpoint_after=_action(window, "Toggle Breakpoint &After", "Break after the selected node",
                                        "Shift+F9"),
        back=_action(window, "&Back in History", "View the previous checkpoint (read-only)", "Ctrl+[",
                     ("back", sp.SP_ArrowBack)),
        forward=_action(window, "&Forward in History", "View the next checkpoint (read-only)", "Ctrl+]",
                        ("forward", sp.SP_ArrowForward)),
        reload=_action(window, "&Reload Graph File", "Import the graph file again; history is kept", "Ctrl+R",
                       ("reload", sp.SP_BrowserReload)),
        new_run=_action(window, "&New Run…", "Start a new thread with an input you type as JSON", "Ctrl+N",
                        ("new-run", sp.SP_FileIcon)),
        open_graph=_action(window, "&Open Graph File…", "Open a Python file holding a graph",
                           QKeySequence.StandardKey.Open),
        open_database=_action(window, "Open &Database…", "Browse the threads of a checkpoint file", "Ctrl+Shift+O"),
        pick_thread=_action(window, "Switch &Thread…", "Show another thread of the database", "Ctrl+T"),
        rewind=_action(window, "Re&wind Here", "Make the selected checkpoint the head: the next step forks",
                       "Ctrl+Backspace", ("rewind", sp.SP_MediaSeekBackward)),
        edit_fork=_action(window, "&Edit State and Fork…", "Edit the selected checkpoint's state as JSON",
                          "Ctrl+E", ("fork", sp.SP_FileDialogDetailedView)),
        compare=_action(window, "Co&mpare Checkpoints…", "The difference between two checkpoints", "Ctrl+D"),
        legend=_checkable(_action(window, "Graph &Legend", "What the graph's edge styles and node marks mean",
                                  "F1")),
        reset_layout=_action(window, "Reset &Layout", "Put every panel back in its default place"),
        quit=_action(window, "&Quit", "Close the studio", QKeySequence.StandardKey.Quit),
    )


_ICON_ONLY = ("step_superstep", "step_into", "run_to", "back", "forward", "toggle_breakpoint", "reload", "new_run",
              "restart")
"""Toolbar buttons that show only their icon (their names are in the tooltips and menus)."""
_DROP_TEXT_FIRST = ("edit_fork", "rewind", "pause", "stop", "continue_", "step")
"""The order in which toolbar buttons give up their text when the window is narrow."""
_OVERFLOW_FIRST = ("reload", "toggle_breakpoint", "edit_fork", "rewind", "forward", "back", "run_to",
                   "step_superstep", "restart", "step_into", "new_run", "stop", "pause", "continue_", "step")
"""The order in which toolbar buttons move into the "⋯" menu when even their icons do not fit."""
SHORT_LABELS = {"step": "Step", "continue_": "Continue", "pause": "Pause", "stop": "Stop", "rewind": "Rewind",
                "edit_fork": "Fork…", "new_run": "New…", "restart": "Restart", "step_superstep": "Superstep",
                "step_into": "Into", "step_out": "Out", "run_to": "Run to", "back": "Back", "forward": "Forward",
                "toggle_breakpoint": "Break", "reload": "Reload"}
"""The label a toolbar button shows (the menus show the full name)."""


def build_toolbar(window: QMainWindow, actions: Actions) -> QToolBar:
    bar = QToolBar("Controls", window)
    bar.setObjectName("controls")
    bar.setMovable(False)
    bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    for name, label in SHORT_LABELS.items():
        getattr(actions, name).setIconText(label)
    for group in (
        (actions.new_run, actions.restart),
        (actions.step, actions.step_superstep, actions.step_into, actions.run_to),
        (actions.continue_, actions.pause, actions.stop),
        (actions.back, actions.forward, actions.rewind, actions.edit_fork),
        (actions.toggle_breakpoint, actions.reload),
    ):
        for action in group:
            bar.addAction(action)
        bar.addSeparator()
    for name in _ICON_ONLY:
        button = bar.widgetForAction(getattr(actions, name))
        if button is not None:
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)  # type: ignore[attr-defined]
    window.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
    return bar


def toolbar_overflow(bar: QToolBar, actions: Actions, before: QAction | None = None) -> ToolbarOverflow:
    """The "⋯" menu of the controls toolbar (placed before `before`, the thread selector's
    label): `fit(width)` drops texts, then moves buttons into it, so the bar fits."""
    def named(names: tuple[str, ...]) -> list[QAction]:
        return [getattr(actions, name) for name in names]

    return ToolbarOverflow(bar, overflow=named(_OVERFLOW_FIRST), drop_text=named(_DROP_TEXT_FIRST),
                           icon_only=named(_ICON_ONLY), before=before)


def build_menus(window: QMainWindow, actions: Actions) -> dict[str, QMenu]:
    bar = window.menuBar()
    menus: dict[str, QMenu] = {}
    layout = {
        "&File": (actions.open_graph, actions.open_database, actions.pick_thread, None, actions.reload, None,
                  actions.quit),
        "&Run": (actions.new_run, actions.restart, None, actions.step, actions.step_superstep, actions.step_into,
                 actions.step_out, actions.run_to, None, actions.continue_, actions.pause, actions.stop, None,
                 actions.answer, None,
                 actions.toggle_breakpoint, actions.toggle_breakpoint_after),
        "&History": (actions.back, actions.forward, None, actions.rewind, actions.edit_fork, actions.compare),
        "&View": (actions.legend, None, actions.reset_layout),
    }
    for title, items in layout.items():
        menu = bar.addMenu(title)
        for item in items:
            if item is None:
                menu.addSeparator()
            else:
                menu.addAction(item)
        menus[title.replace("&", "")] = menu
    return menus

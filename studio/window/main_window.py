"""The studio window: builds the panels, docks, toolbar and menus, and wires them to the session.

The window holds no debugger logic: actions call the session's commands, the session's
signals feed the panels (see `studio.window.wiring`). Errors of every kind land in the banner
above the graph, never in a crash.
"""
from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

from studio.assets import asset
from PySide6.QtCore import QSettings, QSize, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import QComboBox, QDialog, QFileDialog, QLabel, QMainWindow, QWidget

from .actions import STEPPING, Actions, build_actions, build_menus, build_toolbar, toolbar_overflow
from .banner import ErrorBanner
from .elided import ElidedLabel
from .fitting import fits, room_for, tighten, widen_timeline
from .stop_banner import STEP_COMMANDS, StopBanner, hold_banner_timer
from .debugging import DebugDock
from studio.core.jsontext import parse_json_input
from .dialogs import ThreadPicker, ask_foreign_thread
from .new_run import NewRunDialog
from .docks import Docks, apply_default_sizes, build_docks, fit_to_screen, initial_size, restore_layout, save_layout, size_class, \
    whole_tab_names
from studio.core.loader import parse_spec
from studio.core.driver import Refused
from studio.core.records import ErrorReport, SessionStatus, StopReport, ThreadSummary
from studio.core.runsettings import RunTexts
from studio.session.session import Session
from .keyboard import install_keyboard
from .refocus import KeepFocus
from .teaching import Teaching
from .watcher import FileWatcher
from .wiring import Panels, connect_panels, make_panels

__all__ = ["MainWindow", "STYLE_SHEET"]

_SAID_BY_THE_STOP = ("node", "command")
"""Errors the "stopped on an error" banner says in full (the error banner stays hidden)."""

STYLE_SHEET = asset("style.qss")
_SHORT_WINDOW = 700
_SHORT_ICON = 18
"""A window less than 700 px high (a 1000x600 screen) has toolbar icons of at most 18 px."""


class MainWindow(QMainWindow):
    """The debugger window around one `Session`."""

    def __init__(self, session: Session, *, settings: QSettings | None = None, watch: bool = True,
                 remember_layout: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        session.setParent(self)
        self.settings = settings if settings is not None else QSettings()
        self.setWindowTitle("Retrograph Studio")
        self.setObjectName("retrographStudio")
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowNestedDocks
                            | QMainWindow.DockOption.AllowTabbedDocks)
        self.input_text = "{}"
        self._input_kept = False
        """The input text came from --input: the New run dialog starts from it."""
        self._run_texts: RunTexts | None = None
        """What was typed in a New run dialog that was cancelled: the next one starts from it."""
        self._database_title = False
        self.threads: tuple[ThreadSummary, ...] = ()
        self.banner = ErrorBanner(self)
        self.stop_banner = StopBanner(self)
        self._arrangements = 0
        """How many times the default arrangement was made (a dock width kept from before one is stale)."""
        self._stop_held: StopReport | None = None
        """The last stop shown: a command that was refused (F10 at an interrupt) did not move
        the run, so its banner comes back."""
        self.panels: Panels = make_panels(self)
        self.docks: Docks = build_docks(
            self, banner=self.banner, graph=self.panels.graph, state=self.panels.state, diff=self.panels.diff,
            timeline=self.panels.timeline, events=self.panels.events, inspector=self.panels.inspector,
            interrupts=self.panels.interrupts, stop_banner=self.stop_banner)
        self.actions: Actions = build_actions(self)
        self.toolbar = build_toolbar(self, self.actions)
        self.thread_box = QComboBox(objectName="threadBox")
        self.thread_box.setMinimumContentsLength(24)
        self.thread_box.setMaximumWidth(320)
        self.thread_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.thread_box.setToolTip("The thread on screen; pick another one of the database (Ctrl+T)")
        self.thread_box.activated.connect(self._on_thread_picked)
        thread_label = self.toolbar.addWidget(QLabel(" Thread: "))
        self.toolbar.addWidget(self.thread_box)
        self.overflow = toolbar_overflow(self.toolbar, self.actions, before=thread_label)
        """The controls' "⋯" menu: the buttons that do not fit the window's width."""
        self.menus = build_menus(self, self.actions)
        view = self.menus["View"]
        view.addSeparator()
        for dock in self.docks.all():
            view.addAction(dock.toggleViewAction())
        self._build_status_bar()
        self._load_style_sheet()
        self.watcher = FileWatcher(self)
        self.watcher.enabled = watch
        self.watcher.changed.connect(self._on_file_changed)
        self._connect_actions()
        self._connect_session()
        connect_panels(self.panels, session, self)
        self.debug_dock = DebugDock(self, session, self.docks, view)  # the Debug dock and menu
        from .store_dock import StoreDock

        self.store_dock = StoreDock(self)  # the Store dock: long-term memory (store_dock.py)
        self.remember_layout = remember_layout
        self.fit_area: QSize | None = None
        """The size the docks must fit in (a --screenshot's chosen size); None: the screen's."""
        self.zoom_room: QSize | None = None
        """The window's size before a presentation zoom grew its text: the docks fit in it
        (until the zoom is back at 100%)."""
        self.teaching = Teaching(self)
        self.keyboard = install_keyboard(self, self.panels.graph.focus_canvas, view)  # Ctrl+Shift+P, Ctrl+G
        self.keep_focus = KeepFocus(self)  # the keys come back here when a dialog or popup closes
        self._restored = remember_layout and restore_layout(self, self.settings)
        self._initial: QSize | None = None
        """The size given here, to be maximized when shown (a screen smaller than 2000x1250),
        unless someone resized the window before showing it."""
        if not self._restored:
            size, maximize = initial_size(self)
            self.resize(size)
            fit_to_screen(self)
            self._initial = self.size() if maximize else None
        fit_to_screen(self)
        self._chosen = self.size()
        """The size chosen here: refitted to the screen once shown and framed (a window that
        someone resized before showing it keeps their size)."""
        self._sized = False
        self._arranging = False
        self.layout_is_default = False
        """The docks are as `apply_default_sizes` left them (no dock moved since): crossing
        the compact/wide size rearranges them for the new size."""
        for dock in self.docks.all():
            dock.dockLocationChanged.connect(self._on_dock_moved)
            dock.topLevelChanged.connect(self._on_dock_moved)
        self._on_busy_changed(False)

    # -- construction helpers ----------------------------------------------------------
    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        # each shows what fits, elided (the whole text is its tooltip): a zoomed window keeps its width
        self.status_thread = ElidedLabel(mode=Qt.TextElideMode.ElideMiddle, least=12, most=64,
                                         objectName="statusThread")
        self.status_step = QLabel(objectName="statusStep")
        self.status_state = ElidedLabel(least=36, objectName="statusState")  # before the thread
        for label in (self.status_thread, self.status_step, self.status_state):
            bar.addPermanentWidget(label)

    def _load_style_sheet(self) -> None:
        if STYLE_SHEET.exists():
            try:
                self.setStyleSheet(STYLE_SHEET.read_text(encoding="utf-8"))
            except OSError:
                pass

    def _connect_actions(self) -> None:
        a, s = self.actions, self.session
        a.step.triggered.connect(s.step)
        a.step_superstep.triggered.connect(s.step_superstep)
        a.continue_.triggered.connect(s.continue_run)
        a.pause.triggered.connect(s.pause)
        a.stop.triggered.connect(s.stop)
        a.restart.triggered.connect(s.restart)
        a.run_to.triggered.connect(lambda: s.run_to())
        a.step_into.triggered.connect(s.step_into)
        a.step_out.triggered.connect(s.step_out)
        a.answer.triggered.connect(self._on_answer)
        a.toggle_breakpoint.triggered.connect(lambda: s.toggle_breakpoint(None, "before"))
        a.toggle_breakpoint_after.triggered.connect(lambda: s.toggle_breakpoint(None, "after"))
        a.back.triggered.connect(s.back)
        a.forward.triggered.connect(s.forward)
        a.reload.triggered.connect(self._on_reload)
        a.new_run.triggered.connect(self._on_new_run)
        a.open_graph.triggered.connect(self._on_open_graph)
        a.open_database.triggered.connect(self._on_open_database)
        a.pick_thread.triggered.connect(self._on_pick_thread)
        a.rewind.triggered.connect(self._on_rewind)
        a.edit_fork.triggered.connect(self._on_edit_fork)
        a.compare.triggered.connect(self._on_compare)
        a.reset_layout.triggered.connect(self._on_reset_layout)
        a.legend.toggled.connect(self.panels.graph.set_legend_visible)
        self.panels.graph.legend_toggled.connect(a.legend.setChecked)
        a.quit.triggered.connect(self.close)
        self.banner.reloadRequested.connect(self._on_reload)
        self.banner.abandonRequested.connect(s.stop)
        self.banner.dismissed.connect(s.clear_error)

    def _connect_session(self) -> None:
        s = self.session
        s.busyChanged.connect(self._on_busy_changed)
        s.statusChanged.connect(self._on_status_changed)
        s.errorChanged.connect(self._on_error)
        s.stopChanged.connect(self._on_stop)
        self.stop_banner.keyRequested.connect(self._on_stop_key)
        s.commandFinished.connect(self._on_command_finished)
        s.message.connect(self._on_message)
        # a status-bar message says how the last command ended ("breakpoint hit", "inside
        # research", "reloading"): it stops being true when the next command starts or an
        # error takes over (the banner), so it goes then rather than after its 8 s
        s.busyChanged.connect(lambda busy: self.statusBar().clearMessage() if busy else None)
        s.errorChanged.connect(lambda error: self.statusBar().clearMessage() if error is not None else None)
        s.threadsChanged.connect(self._on_threads_changed)
        s.graphOpened.connect(self._on_graph_opened)

    # -- opening -------------------------------------------------------------------------
    def open_graph(self, spec: str, *, thread_id: str | None = None, input_text: str | None = None) -> bool:
        """Open a graph file (imported off the UI thread; `graphOpened` follows). A bad
        `--input` shows a message and keeps the text for editing; False then."""
        value, problem = parse_json_input(input_text)
        self._input_kept = input_text is not None
        self._database_title = False
        if input_text is not None:
            self.input_text = input_text
        if problem:
            self.banner.show_error(ErrorReport(kind="input", title="Invalid --input", message=problem,
                                             hint="Fix it in Run ▸ New run… (Ctrl+N); your text is kept there."))
        started = self.session.open_graph(spec, thread_id=thread_id, input=value, example_input=not problem)
        if started:
            self.panels.graph.show_waiting(f"importing {parse_spec(spec)[0].name}…")
        return started and not problem

    def open_database(self, path: str | Path, graph_spec: str | None = None, *, thread_id: str | None = None) -> bool:
        """Post-mortem: browse a checkpoint file (with the graph's code when given)."""
        ok = self.session.open_database(path, graph_spec, thread_id=thread_id)
        self._database_title = True
        name = self.session.store_label if self.session.state.saver is not None else Path(str(path)).name
        self.setWindowTitle(f"{name} — Retrograph Studio")
        self._on_busy_changed(False)
        return ok

    def _on_graph_opened(self, path: Path, ok: bool) -> None:
        """The graph file was imported (or failed to): watch it, so saving it reloads it."""
        if path.exists():
            self.watcher.watch(path)
        if ok:
            if not self._database_title:
                self.setWindowTitle(f"{path.name} — Retrograph Studio")
            self._run_texts = None  # another file: its own examples and schemas
        self._on_busy_changed(self.session.busy)

    async def when_ready(self, timeout_s: float = 30.0) -> None:
        """Wait until the graph is drawn and the thread's history is shown."""
        deadline = asyncio.get_running_loop().time() + timeout_s
        while asyncio.get_running_loop().time() < deadline:
            if self.session.settled and self.panels.ready():
                return
            await asyncio.sleep(0.02)

    async def when_settled(self, timeout_s: float = 30.0) -> None:
        await self.when_ready(timeout_s)
        for _ in range(3):
            await asyncio.sleep(0.05)

    # -- session -> chrome -------------------------------------------------------------
    def _on_busy_changed(self, busy: bool) -> None:
        can_run = not self.session.read_only
        for name in STEPPING:
            getattr(self.actions, name).setEnabled(can_run and not busy)
        self.actions.pause.setEnabled(busy)
        self.actions.stop.setEnabled(self._can_stop(busy))
        self.actions.reload.setEnabled(not busy and self.session.spec is not None)
        for action in (self.actions.rewind, self.actions.edit_fork):
            action.setEnabled(can_run and not busy)

    def _can_stop(self, busy: bool) -> bool:
        """Stop (Shift+F5) has something to stop: a command in flight, or a run paused
        part way (between supersteps, or at an interrupt); not a run that is over."""
        run = self.session.run
        return busy or (run is not None and run.status in ("new", "ready", "interrupted"))

    def _on_status_changed(self, status: SessionStatus) -> None:
        self.status_thread.setText(f"thread: {status.thread_id or '—'}")
        if status.thread_id != self.thread_box.currentData():
            self._fill_thread_box()
        self.status_step.setText(f"step: {status.step if status.step is not None else '—'}")
        text = status.status
        if self.session.store_read_only:
            text += f" · {status.db_path}"
        if status.viewing:
            text += " · viewing an older checkpoint (read-only)"
        if status.next_nodes and not status.busy:
            text += f" · next: {', '.join(status.next_nodes)}"
        if status.engine_note:
            text += " · langgraph imports run on Retrograph's engine"
        self.status_state.setText(text)
        if status.engine_note:
            self.status_state.setToolTip(f"{text}\n{status.engine_note}")
        self.status_state.setProperty("status", status.status)
        self.status_state.style().unpolish(self.status_state)
        self.status_state.style().polish(self.status_state)
        self.actions.stop.setEnabled(self._can_stop(status.busy))
        self._on_busy_changed(status.busy)

    def _on_answer(self) -> None:
        """Ctrl+I: the Interrupts dock forward, its first resume editor focused."""
        editor = self.panels.interrupts.first_editor()
        if editor is None:
            self.session.message.emit("No interrupt is waiting for an answer.")
            return
        self.docks.interrupts.show()
        self.docks.interrupts.raise_()
        self.panels.interrupts.show_first_editor()
        editor.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _on_stop(self, report: object) -> None:
        """The "stopped because" banner shown (or hidden) above the graph. A step (F10, F11)
        keeps the banner of the stop it starts from until its own stop replaces it, or for
        STEP_HOLD_MS: hiding and showing it again moved the graph and every dock below it
        (two window relayouts and repaints per F10)."""
        hold = hold_banner_timer(self, lambda: self._show_stop(None))
        if report is None and self.session.busy and self.stop_banner.isVisible() \
                and self.session.state.command_name in STEP_COMMANDS:
            if not hold.isActive():
                hold.start()
            return
        hold.stop()
        self._show_stop(report)

    def _show_stop(self, report: object) -> None:
        """The banner shown (or hidden); the side docks keep their widths (a relayout of the
        window would hand the graph's column more)."""
        area = Qt.DockWidgetArea
        sides = [next((d for d in self.docks.all() if d.isVisible() and not d.isFloating()
                       and self.dockWidgetArea(d) == side), None) for side in (area.LeftDockWidgetArea,
                                                                               area.RightDockWidgetArea)]
        kept = [(d, d.width()) for d in sides if d is not None]
        if isinstance(report, StopReport):
            self._stop_held = report
        elif not self.session.busy:  # the head moved (rewind, another thread): that stop is gone
            self._stop_held = None
        self.stop_banner.show_stop(report)  # type: ignore[arg-type]
        self._one_banner()
        if kept:  # once the window has laid itself out again (unless the docks were rearranged since)
            arranged = self._arrangements
            QTimer.singleShot(0, lambda: self.resizeDocks([d for d, _ in kept], [w for _, w in kept],
                                                          Qt.Orientation.Horizontal)
                              if self._arrangements == arranged else None)

    def _on_error(self, error: object) -> None:
        self.banner.show_error(error)  # type: ignore[arg-type]
        report = self.stop_banner.report
        if error is None and report is not None and report.kind == "error":
            self._stop_held = None  # the error went (a reload, a retry): so did its stop
            self.stop_banner.show_stop(None)
        self._one_banner()

    def _one_banner(self) -> None:
        """An error stop is said once: the stop banner names the node, the exception, what to
        do and has the traceback behind Details; the error banner under it would repeat it."""
        report, error = self.stop_banner.report, self.banner.error
        if report is not None and report.kind == "error" and self.stop_banner.isVisible() \
                and error is not None and error.kind in _SAID_BY_THE_STOP:
            self.banner.hide()

    def _on_command_finished(self, _name: str, result: object) -> None:
        """A refused command (F10 while an interrupt waits, F5 after the end) left the run
        where it stopped: the banner says why again (the status bar says why it was refused)."""
        if isinstance(result, Refused) and self.stop_banner.report is None and self._stop_held is not None:
            self._on_stop(self._stop_held)

    def _on_stop_key(self, name: str) -> None:
        """A key button of the "stopped because" banner: the action that key triggers."""
        action = getattr(self.actions, name, None)
        if action is not None and action.isEnabled():
            action.trigger()

    def _on_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    def _on_threads_changed(self, threads: tuple[ThreadSummary, ...]) -> None:
        self.threads = threads
        self._fill_thread_box()

    def _fill_thread_box(self) -> None:
        box, current = self.thread_box, self.session.thread_id
        ids = [t.thread_id for t in self.threads]
        if current is not None and current not in ids:
            ids.insert(0, current)
        box.blockSignals(True)
        box.clear()
        for thread_id in ids:
            box.addItem(thread_id, thread_id)
        if current is not None:
            box.setCurrentIndex(ids.index(current))
        box.blockSignals(False)

    def _on_thread_picked(self, index: int) -> None:
        thread_id = self.thread_box.itemData(index)
        if thread_id and thread_id != self.session.thread_id:
            self.session.open_thread(thread_id)

    def _on_file_changed(self, _path: str) -> None:
        self.session.message.emit("The graph file changed on disk: reloading.")
        self._on_reload()

    # -- action handlers ---------------------------------------------------------------
    def _on_reload(self) -> None:
        if self.session.spec is not None:
            self.session.reload()

    def _on_new_run(self) -> None:
        texts = self._run_texts or self.session.new_run_texts()
        if self._run_texts is None and self._input_kept:
            texts = dataclasses.replace(texts, input=self.input_text)
        dialog = NewRunDialog(texts, self.session.read_run_texts, self)
        accepted = dialog.exec() == QDialog.DialogCode.Accepted
        self._run_texts = None if accepted else dialog.texts()
        self.input_text, self._input_kept = dialog.text, not accepted and self._input_kept
        if accepted:
            if self.banner.error is not None and self.banner.error.kind == "input":
                self.session.clear_error()
                self.banner.show_error(None)
            self.session.new_run(dialog.value, dialog.settings)

    def _on_open_graph(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a graph file", "", "Python files (*.py)")
        if path:
            self.session.spec = None
            self.open_graph(path)

    def _on_open_database(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a checkpoint database", "",
                                              "SQLite files (*.sqlite *.db *.sqlite3);;All files (*)")
        if path:
            self.open_database(path, self.session.spec)

    def _on_pick_thread(self) -> None:
        dialog = ThreadPicker(self.threads, self.session.thread_id, self)
        if dialog.exec() != QDialog.DialogCode.Accepted or not dialog.thread_id:
            return
        chosen = dialog.chosen
        if chosen is None or not chosen.foreign:
            self.session.open_thread(dialog.thread_id)
            return
        choice = ask_foreign_thread(self, chosen)
        if choice == "read-only":
            self.session.open_thread_read_only(chosen.thread_id)
        elif choice == "graph":
            path, _ = QFileDialog.getOpenFileName(self, f"The graph file of {chosen.thread_id}", "",
                                                  "Python files (*.py)")
            if path:
                self.open_graph(path, thread_id=chosen.thread_id)

    def _selected_checkpoint(self) -> str | None:
        return self.session.viewed_id or self.session.head_id

    def _on_rewind(self) -> None:
        target = self._selected_checkpoint()
        if target:
            self.session.rewind(target)

    def _on_edit_fork(self) -> None:
        target = self._selected_checkpoint()
        if target:
            self.panels.open_state_editor(target)

    def _on_compare(self) -> None:
        self.panels.start_compare()

    def _on_reset_layout(self) -> None:
        """The default arrangement and sizes for the window's current size."""
        self.arrange_default()

    def arrange_default(self) -> None:
        """The default arrangement for the window's size, tightened when a zoom makes the
        panels larger than the screen (`studio.window.fitting`)."""
        self._arranging = True
        self._arrangements += 1
        try:
            apply_default_sizes(self, self.docks)
            self.stop_banner.set_compact(False)
            tighten(self, self.docks)
        finally:
            self._arranging = False
        self.layout_is_default = True

    def fit_docks(self) -> None:
        """After a zoom: a default layout is arranged again for the new text size (tightened
        if it must be, or back as it was); one arranged by hand is only tightened."""
        if self.layout_is_default and (self.docks.tightened or not fits(self)):
            self.arrange_default()
        teaching = getattr(self, "teaching", None)
        if self.layout_is_default and teaching is not None:
            widen_timeline(self, self.docks, teaching.presentation.zoom)
        elif not fits(self):
            self._arranging = True
            try:
                tighten(self, self.docks)
            finally:
                self._arranging = False
        QTimer.singleShot(0, self._back_inside)  # once the tightened docks have laid out

    def _back_inside(self, again: int = 3) -> None:
        """The larger text had grown the window past its screen: back inside it (the new
        text sizes settle over a few layout passes: tightened further while it does not fit)."""
        if again > 0 and not fits(self):
            self._arranging = True
            try:
                taken = tighten(self, self.docks)
            finally:
                self._arranging = False
            if taken:
                QTimer.singleShot(0, lambda: self._back_inside(again - 1))
                return
        room = room_for(self)
        if room is not None and not self.isFullScreen() \
                and (self.width() > room.width() or self.height() > room.height()):
            self.resize(self.size().boundedTo(room))  # a maximized one too: it had grown past the screen
            if again > 0 and (self.width() > room.width() or self.height() > room.height()):
                QTimer.singleShot(0, lambda: self._back_inside(again - 1))  # held by a size still settling
                return
        teaching = getattr(self, "teaching", None)
        if teaching is not None and teaching.presentation.zoom == 1.0:
            self.zoom_room = None  # the next zoom fits into the size the window has then

    def _on_dock_moved(self, *_: object) -> None:
        if not self._arranging:
            self.layout_is_default = False
            QTimer.singleShot(0, lambda: whole_tab_names(self))  # a dock dropped on another: new tabs

    # -- showing and closing -------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if not self._sized:
            self._sized = True
            if self._initial is not None and self.size() == self._initial:
                self.setWindowState(self.windowState() | Qt.WindowState.WindowMaximized)
            if not self._restored:
                self.arrange_default()
            # the window manager's frame (title bar) is known once the window is mapped
            if self.size() == self._chosen:
                QTimer.singleShot(50, lambda: fit_to_screen(self))

    def fit_toolbars(self) -> None:
        """The toolbars' buttons give up their text, then move into their "⋯" menus, until
        each bar fits the window (after a resize or a presentation zoom): the thread selector
        and every action stay reachable."""
        wanted = self.toolbar.property("wantedIconSize")
        if not isinstance(wanted, QSize):
            wanted = self.toolbar.iconSize()
            self.toolbar.setProperty("wantedIconSize", wanted)
        side = wanted.width() if self.height() >= _SHORT_WINDOW else min(wanted.width(), _SHORT_ICON)
        self.toolbar.setIconSize(QSize(side, side))  # a short window keeps its rows for the panels
        self.overflow.fit(self.width())
        teaching = getattr(self, "teaching", None)
        if teaching is not None:
            teaching.overflow.fit(self.width())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        short = event.size().height() < _SHORT_WINDOW
        if event.size().width() != event.oldSize().width() or short != (event.oldSize().height() < _SHORT_WINDOW):
            self.fit_toolbars()  # the thread selector stays on screen
        if self._sized and self.layout_is_default and self.docks.arrangement \
                and size_class(event.size().width(), event.size().height()) != self.docks.arrangement:
            QTimer.singleShot(0, self._rearrange_for_size)

    def _rearrange_for_size(self) -> None:
        if self.layout_is_default and size_class(self.width(), self.height()) != self.docks.arrangement:
            self.arrange_default()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt's name)
        if self.remember_layout:
            save_layout(self, self.settings)
        self.watcher.watch(None)
        self.session.close()
        self.panels.close()
        super().closeEvent(event)

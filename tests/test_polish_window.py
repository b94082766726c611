"""At 1280x720: the Debug dock's tables show a useful number of rows, the Search tab's
query field keeps its width beside the mode and scope boxes, and Stop is enabled only
while something can be stopped."""
from __future__ import annotations

from pathlib import Path

from test_debug_search import subgraph_store
from test_studio_support import (  # noqa: F401 (fixtures)
    EXAMPLES,
    act,
    open_window,
    settings,
    studio_loop,
    wait_ready,
)


def _at_1280x720(qtbot, window) -> None:
    from studio.window.docks import apply_default_sizes

    window.resize(1280, 720)
    window.docks.default_state = None
    apply_default_sizes(window, window.docks)
    qtbot.waitUntil(lambda: window.width() == 1280 and window.height() == 720, timeout=5000)
    qtbot.wait(50)  # let the docks settle after the resize (layout only, nothing asserted on time)


def test_the_debug_dock_is_usable_at_1280x720(open_window, qtbot, tmp_path: Path) -> None:
    db = tmp_path / "subs.sqlite"
    subgraph_store(db).close()
    window = open_window(database=db, thread_id="t1")
    _at_1280x720(qtbot, window)
    tools, panel = window.session.debugging, window.debug_dock.panel
    right = window.docks.state.width()
    for index, view in ((0, panel.watch_view), (2, panel.field_view), (3, panel.search_view)):
        window.debug_dock.show_tab(index)
        qtbot.wait(20)
        rows = view.viewport().height() // view.verticalHeader().defaultSectionSize()
        assert rows >= 5, f"tab {index} shows {rows} rows"
    # the query field is not squeezed by the mode and scope boxes
    assert panel.search_edit.width() >= 200, panel.search_edit.width()
    assert panel.search_scope.isVisibleTo(panel) and panel.search_mode.isVisibleTo(panel)
    # the right column keeps its width with the Debug dock shown, and when an older checkpoint is viewed
    assert window.docks.state.width() == right
    tools.search("deep", "text", "all")
    qtbot.waitUntil(lambda: tools.search_run.done and not tools.pending, timeout=15000)
    assert panel.search_model.rowCount() > 0 and panel.search_note.isVisibleTo(panel)
    view = panel.search_view
    assert view.viewport().height() // view.verticalHeader().defaultSectionSize() >= 4  # with the progress note
    window.actions.back.trigger()
    wait_ready(qtbot, window)
    qtbot.wait(50)
    # on a compact window the Debug dock is a tab of the left column (its full height)
    debug = window.debug_dock.dock
    assert window.dockWidgetArea(debug) == window.dockWidgetArea(window.docks.timeline)
    assert window.docks.state.width() == right and debug.width() == window.docks.timeline.width()
    window.grab().save(str(tmp_path / "debug-dock-1280x720.png"))


def test_on_a_tall_window_the_debug_dock_is_wide_beside_events(open_window, qtbot, tmp_path: Path) -> None:
    """At 1600x1000 the Debug dock goes beside Events, wide enough for a field history's
    before and after columns; at 1280x720 (above) it is a tab of the left column."""
    from PySide6.QtCore import Qt

    db = tmp_path / "subs.sqlite"
    subgraph_store(db).close()
    window = open_window(database=db, thread_id="t1")
    from studio.window.docks import apply_default_sizes

    window.resize(1600, 1000)
    window.docks.default_state = None
    apply_default_sizes(window, window.docks)
    qtbot.waitUntil(lambda: window.height() == 1000, timeout=5000)
    qtbot.wait(50)  # let the docks settle after the resize (layout only)
    panel = window.debug_dock.panel
    window.debug_dock.show_tab(2)
    qtbot.wait(50)
    assert window.dockWidgetArea(window.debug_dock.dock) == Qt.DockWidgetArea.BottomDockWidgetArea
    assert window.docks.events in window.tabifiedDockWidgets(window.debug_dock.dock)
    assert panel.field_view.viewport().width() >= 400, panel.field_view.viewport().width()


def test_stop_is_enabled_only_while_something_can_be_stopped(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "router.py")
    stop = window.actions.stop
    assert not stop.isEnabled()  # nothing started yet
    act(qtbot, window, "step")
    assert stop.isEnabled()  # a run paused part way
    act(qtbot, window, "continue_")
    assert window.session.run is None or window.session.run.status == "done"
    assert not stop.isEnabled(), "Stop stays enabled after the run is done"
    assert window.session.restart()  # a new thread with the same input
    wait_ready(qtbot, window)
    act(qtbot, window, "step")
    assert stop.isEnabled()
    stop.trigger()
    qtbot.waitUntil(lambda: not stop.isEnabled(), timeout=5000)

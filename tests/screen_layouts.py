"""The window on a virtual screen of one size (run by test_layout_fits_the_screen.py in a
child pytest per size, with QT_QPA_PLATFORM=offscreen:configfile=... naming a screen of
SCREEN_SIZE; not collected by the main run, whose offscreen screen is 800x800).

Driven by real keys and mouse clicks (QTest): F5 runs the graph to its end; a double
click on a dock's title floats it; View ▸ Reset Layout is clicked in the menu.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from test_studio_support import settings, studio_loop, wait_ready, write_graph  # noqa: F401 (fixtures)

SIZE = tuple(int(n) for n in os.environ.get("SCREEN_SIZE", "1280x720").split("x"))
SETTINGS = os.environ.get("SCREEN_SETTINGS")

WIDE_STATE = """
    class S(TypedDict):
        n: int
""" + "".join(f"        f{i}: str\n" for i in range(10)) + """

    def tick(s):
        return {"n": s["n"] + 1, **{f"f{i}": f"value {s['n']} of field {i} " * 3 for i in range(10)}}

    builder = StateGraph(S)
    builder.add_node("tick", tick)
    builder.add_edge(START, "tick")
    builder.add_conditional_edges("tick", lambda s: "tick" if s["n"] < 14 else END)
    graph = builder.compile()
    example_input = {"n": 0}
"""


def visible_rows(view: Any) -> int:
    """Rows of an item view (a tree's open children too) shown whole inside its viewport."""
    from PySide6.QtWidgets import QTreeView

    model, port = view.model(), view.viewport().rect()
    count = 0
    if isinstance(view, QTreeView):
        index = model.index(0, 0)
        while index.isValid():
            rect = view.visualRect(index)
            count += rect.isValid() and rect.height() > 0 and port.contains(rect)
            index = view.indexBelow(index)
        return count
    for row in range(model.rowCount()):
        rect = view.visualRect(model.index(row, 0))
        if rect.isValid() and rect.height() > 0 and port.contains(rect):
            count += 1
    return count


def shown(widget: Any) -> bool:
    """Visible, and not behind another tab (its visible region is not empty)."""
    return widget.isVisible() and not widget.visibleRegion().isEmpty()


@pytest.fixture
def window(qtbot, studio_loop, settings, tmp_path: Path):  # noqa: F811
    from PySide6.QtCore import QSettings

    from studio.session.session import Session
    from studio.window.main_window import MainWindow

    store = QSettings(SETTINGS, QSettings.Format.IniFormat) if SETTINGS else settings
    made = MainWindow(Session(tmp_path / "runs.sqlite", poll_ms=400), settings=store, watch=False)
    qtbot.addWidget(made)
    made.show()
    qtbot.waitExposed(made)
    made.activateWindow()
    made.open_graph(str(write_graph(tmp_path, "fields", WIDE_STATE)))
    wait_ready(qtbot, made)
    qtbot.wait(120)  # the post-show fit to the screen (a 50 ms timer), layout only
    yield made
    made.close()


def _run_to_end(qtbot, window) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    with qtbot.waitSignal(window.session.commandFinished, timeout=30000):
        QTest.keyClick(window, Qt.Key.Key_F5)
    wait_ready(qtbot, window)
    qtbot.wait(50)


def test_the_window_fits_the_screen_and_its_status_bar_shows(window, qtbot) -> None:
    from PySide6.QtCore import QRect

    area = window.screen().availableGeometry()
    assert (area.width(), area.height()) == SIZE
    assert area.contains(window.frameGeometry()), (window.frameGeometry(), area)
    bar = window.statusBar()
    assert bar.isVisible()
    assert area.contains(QRect(bar.mapToGlobal(bar.rect().topLeft()), bar.size()))
    _run_to_end(qtbot, window)
    assert "done" in window.status_state.text() or "end" in window.status_state.text().lower()


def _bring_forward(qtbot, window, name: str) -> None:
    """Click the dock's tab when it is one of a tab group (the compact layout's left column)."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QTabBar

    dock = getattr(window.docks, name)
    if not window.tabifiedDockWidgets(dock):
        return
    for bar in window.findChildren(QTabBar):
        for i in range(bar.count()):
            if bar.tabText(i) == dock.windowTitle() and bar.isVisible():
                QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(i).center())
                qtbot.waitUntil(lambda: not dock.widget().visibleRegion().isEmpty(), timeout=3000)
                return


def test_state_diff_timeline_and_events_show_eight_rows(window, qtbot) -> None:
    if SIZE[1] < 720:
        pytest.skip("eight rows of each panel are asked of 1280x720 and larger")
    _run_to_end(qtbot, window)
    p = window.panels
    views = {"state": p.state.tree, "diff": p.diff.tree, "timeline": p.timeline.table, "events": p.events.table}
    for name, view in views.items():
        _bring_forward(qtbot, window, name)
        assert shown(view), f"{name} is hidden"
        rows = visible_rows(view)
        assert rows >= 8, f"{name} shows {rows} rows at {SIZE}"
    expected = "compact" if SIZE[0] < 1400 or SIZE[1] < 900 else "wide"
    assert window.docks.arrangement == expected


def test_every_panel_keeps_a_usable_size(window, qtbot) -> None:
    """At 1000x600 too: the diff table shows rows, the graph keeps a third of the width."""
    _run_to_end(qtbot, window)
    p = window.panels
    for name, view in {"state": p.state.tree, "diff": p.diff.tree, "timeline": p.timeline.table,
                       "events": p.events.table}.items():
        _bring_forward(qtbot, window, name)
        assert visible_rows(view) >= 4, f"{name} shows {visible_rows(view)} rows at {SIZE}"
    assert p.graph.width() >= window.width() // 3, (p.graph.width(), window.width())


def _click_menu_action(qtbot, window, menu_title: str, action: Any) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    bar = window.menuBar()
    menu_action = next(a for a in bar.actions() if a.text().replace("&", "") == menu_title)
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(menu_action).center())
    menu = menu_action.menu()
    qtbot.waitUntil(menu.isVisible, timeout=5000)
    QTest.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())
    qtbot.waitUntil(lambda: not menu.isVisible(), timeout=5000)


def _layout(window) -> dict[str, tuple[Any, ...]]:
    """Each dock's area, floating, shown, tab group, and (when in front) its rectangle."""
    out = {}
    for dock in window.docks.all():
        group = tuple(sorted(d.objectName() for d in window.tabifiedDockWidgets(dock)))
        front = dock.isVisible() and not dock.widget().visibleRegion().isEmpty()
        rect = dock.geometry().getRect() if front else None
        out[dock.objectName()] = (window.dockWidgetArea(dock), dock.isFloating(), dock.isVisible(), group, rect)
    return out


def _same_layout(a: dict[str, tuple[Any, ...]], b: dict[str, tuple[Any, ...]]) -> list[str]:
    wrong = []
    for name, (area, floating, visible, group, rect) in a.items():
        other = b[name]
        if (area, floating, visible, group) != other[:4] or (rect is None) != (other[4] is None):
            wrong.append(f"{name}: {a[name]} != {other}")
        elif rect is not None and max(abs(x - y) for x, y in zip(rect, other[4])) > 3:
            wrong.append(f"{name}: {rect} != {other[4]}")
    return wrong


def test_reset_layout_restores_the_default_for_this_screen(window, qtbot) -> None:
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    docks = window.docks
    default = _layout(window)
    # the user floats State (a double click on its title bar), closes Events, narrows Diff
    title = docks.state.widget().mapTo(docks.state, QPoint(0, 0)).y()
    QTest.mouseDClick(docks.state, Qt.MouseButton.LeftButton, pos=QPoint(docks.state.width() // 3, max(title // 2, 4)))
    qtbot.waitUntil(docks.state.isFloating, timeout=5000)
    docks.events.toggleViewAction().trigger()
    assert not docks.events.isVisible()
    assert _same_layout(default, _layout(window))
    _click_menu_action(qtbot, window, "View", window.actions.reset_layout)
    qtbot.wait(50)
    assert not docks.state.isFloating() and docks.events.isVisible()
    qtbot.wait(500)
    window.grab().save(str(Path(window.session.db_path).parent / "after-zoom.png"))
    after = _layout(window)
    assert {k: v[:4] for k, v in after.items()} == {k: v[:4] for k, v in default.items()}, (default, after)
    assert window.toolbar.height() <= 60 and window.teaching.toolbar.height() <= 60, "the toolbars are one row again"


def test_a_layout_is_kept_for_its_screen_size_class(window, qtbot) -> None:
    """Run first at 1280x720 (saves a compact layout with State made narrow), then at
    1920x1080 with the same settings file: the wide screen gets the wide default."""
    from PySide6.QtCore import Qt

    if not SETTINGS:
        pytest.skip("needs SCREEN_SETTINGS shared between two screen sizes")
    docks = window.docks
    if SIZE == (1280, 720):
        window.resizeDocks([docks.state], [170], Qt.Orientation.Horizontal)
        window.close()
    else:
        assert docks.arrangement == "wide"
        assert docks.state.width() >= window.width() * 0.2, docks.state.width()
        assert window.dockWidgetArea(docks.timeline) == Qt.DockWidgetArea.BottomDockWidgetArea


def _inside_screen(window) -> list[str]:
    """What of the window is off its screen (nothing, when it fits)."""
    from PySide6.QtCore import QRect

    area, wrong = window.screen().availableGeometry(), []
    if not area.contains(window.frameGeometry()):
        wrong.append(f"window {window.frameGeometry().getRect()} outside {area.getRect()}")
    bar = window.statusBar()
    if not (bar.isVisible() and area.contains(QRect(bar.mapToGlobal(bar.rect().topLeft()), bar.size()))):
        wrong.append("the status bar is off screen")
    banner = window.stop_banner
    if banner.isVisible() and banner.height() < banner.heightForWidth(banner.width()) - 1:
        wrong.append(f"the stop banner is cut: {banner.height()} < {banner.heightForWidth(banner.width())}")
    return wrong


def _fits(qtbot, window, zoom: float) -> None:
    try:
        qtbot.waitUntil(lambda: not _inside_screen(window), timeout=5000)
    except Exception:
        pass
    named = {"banner": window.stop_banner, "caption": window.panels.graph.caption, "graph": window.panels.graph,
             "central": window.centralWidget(), "status": window.statusBar()}
    parts = {name: (w.height(), w.minimumSizeHint().height()) for name, w in named.items()}  # when it fails
    docks = {d.objectName(): d.minimumSizeHint().height() for d in window.docks.all()}
    assert not _inside_screen(window), (zoom, _inside_screen(window), window.docks.tightened, parts, docks)


def test_zoomed_to_300_percent_the_window_still_fits_its_screen(window, qtbot) -> None:
    """Issue 25: at 300% on a 1280-wide screen the window was ~1500 px wide (the docks'
    least widths added up) and taller than the screen. Ctrl+= up to 300%, then Ctrl+0;
    the default layout comes back as it was."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    top = 3.0 if SIZE[0] >= 1280 else 2.0  # 1000x600 at 300% is 333x200 of today's text
    with qtbot.waitSignal(window.session.commandFinished, timeout=30000):
        QTest.keyClick(window, Qt.Key.Key_F10)  # a stop: its banner over the graph
    wait_ready(qtbot, window)
    assert window.stop_banner.isVisible()
    window.teaching.toolbar.show()  # Teach ▸ Teaching Bar: the zoom on screen
    qtbot.wait(50)  # layout only
    default = _layout(window)
    presentation, graph = window.teaching.presentation, window.panels.graph
    while presentation.zoom < top:
        QTest.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
        zoom = presentation.zoom
        _fits(qtbot, window, zoom)
        if zoom == 2.0:  # the graph's whole name in its header
            title = graph.title
            assert title.width() >= title.fontMetrics().horizontalAdvance(title.text()), (title.width(), title.text())
    assert presentation.zoom == top
    QTest.keyClick(window, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)

    def groups(layout: dict[str, tuple[Any, ...]]) -> dict[str, tuple[Any, ...]]:
        return {name: where[:4] for name, where in layout.items()}

    def back() -> bool:
        return presentation.zoom == 1.0 and not window.docks.tightened and groups(_layout(window)) == groups(default) \
            and window.toolbar.height() <= 60 and window.teaching.toolbar.height() <= 60

    try:
        qtbot.waitUntil(back, timeout=5000)
    except Exception:
        pass
    assert groups(_layout(window)) == groups(default), (default, _layout(window))
    assert window.toolbar.height() <= 60 and window.teaching.toolbar.height() <= 60, "the toolbars are one row again"
    _fits(qtbot, window, 1.0)

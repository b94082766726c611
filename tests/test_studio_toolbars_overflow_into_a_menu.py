"""Issue 25: the toolbars at 200% zoom on a 1280-pixel-wide window. Buttons give up their text,
then the least used move into a "⋯" menu at the end of their toolbar; nothing drops off (no
button cut off or left in Qt's hidden extension), the thread box and High Contrast stay, and
everything comes back at 100%. Toolbar buttons carry short labels ("Fork…"). Driven by real
keys (Ctrl+=, Ctrl+0) and clicks."""
from __future__ import annotations

from test_studio_support import EXAMPLES, open_window, settings, studio_loop, wait_ready  # noqa: F401 (fixtures)


def _inside(widget, window) -> bool:
    from PySide6.QtCore import QRect

    if not widget.isVisible() or widget.width() < 4:
        return False
    return window.rect().contains(QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size()))


def _zoom_to(qtbot, window, percent: int) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    presentation = window.teaching.presentation
    key = Qt.Key.Key_Equal if percent > presentation.zoom * 100 else Qt.Key.Key_Minus
    for _ in range(12):
        if round(presentation.zoom * 100) == percent:
            break
        QTest.keyClick(window, key, Qt.KeyboardModifier.ControlModifier)
    assert round(presentation.zoom * 100) == percent
    qtbot.wait(200)  # the toolbars refit once the new fonts are laid out

    def whole() -> bool:  # and once the window is back inside its size (a loaded machine takes longer)
        for overflow in (window.overflow, window.teaching.overflow):
            bar = overflow.bar
            for action in bar.actions():
                widget = bar.widgetForAction(action)
                if action.isSeparator() or widget is None or not action.isVisible() or action is overflow.button_action:
                    continue
                if not _inside(widget, window):
                    return False
        return True

    qtbot.waitUntil(whole, timeout=5000)


def _reachable(window, overflow) -> tuple[list[str], list[str]]:
    """(texts of the actions on the bar, wholly inside the window; texts in its "⋯" menu)."""
    bar, on_bar = overflow.bar, []
    for action in bar.actions():
        widget = bar.widgetForAction(action)
        if action.isSeparator() or widget is None or not action.isVisible() or action is overflow.button_action:
            continue
        assert _inside(widget, window), f"{action.text() or widget.objectName()!r} is cut off or hidden"
        on_bar.append(action.text())
    return on_bar, [a.text() for a in overflow.menu.actions() if not a.isSeparator()]


def test_at_200_percent_the_toolbars_keep_every_action_reachable(open_window, qtbot) -> None:
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtTest import QTest

    window = open_window(EXAMPLES / "react_agent.py")
    window.resize(1280, 720)
    window.teaching.toolbar.show()  # Teach ▸ Teaching Bar
    qtbot.waitUntil(lambda: window.width() == 1280, timeout=5000)
    qtbot.wait(200)  # laid out at the new width
    bars = {"controls": window.overflow, "teaching": window.teaching.overflow}
    wide = {name: _reachable(window, o) for name, o in bars.items()}
    assert all(not menu for _bar, menu in wide.values()), wide  # at 100% everything is on the bars
    everything = {name: set(on_bar) for name, (on_bar, _menu) in wide.items()}
    _zoom_to(qtbot, window, 200)
    assert window.width() <= 1280, f"the window grew past the screen: {window.width()}"
    for name, overflow in bars.items():
        on_bar, in_menu = _reachable(window, overflow)
        wanted = everything[name] - {""}
        got = {t for t in on_bar if t} | {t for t in in_menu}
        stand_ins = {a.text() for a in overflow.stand_ins.values()}
        assert wanted <= got | {w for w in wanted if w in on_bar}, (name, wanted - got)
        assert set(in_menu) - stand_ins <= wanted, in_menu
        if in_menu:
            assert _inside(overflow.button, window), f"the {name} toolbar's ⋯ is off screen"
    assert _inside(window.thread_box, window)
    contrast = window.teaching.toolbar.widgetForAction(window.teaching.actions.high_contrast)
    assert contrast is not None and _inside(contrast, window)
    overflow = window.overflow
    _on_bar, in_menu = _reachable(window, overflow)
    assert in_menu, "at 200% some controls are in the ⋯ menu"
    # the ⋯ menu works: a click opens it, a click on an entry triggers that action
    hidden = overflow.menu.actions()[0]
    fired: list[bool] = []
    hidden.triggered.connect(lambda *_: fired.append(True))
    seen: list[bool] = []

    def pick() -> None:  # runs inside the menu's own event loop, once it is open
        seen.append(overflow.menu.isVisible())
        QTest.mouseClick(overflow.menu, Qt.MouseButton.LeftButton, pos=overflow.menu.actionGeometry(hidden).center())

    QTimer.singleShot(300, pick)
    QTimer.singleShot(8000, overflow.menu.close)  # never hang the run if the click missed
    QTest.mouseClick(overflow.button, Qt.MouseButton.LeftButton)  # an instant popup: returns once it closes
    assert seen == [True], "the ⋯ button opened its menu"
    qtbot.waitUntil(lambda: fired == [True], timeout=5000)
    _zoom_to(qtbot, window, 100)
    for name, o in bars.items():
        on_bar, in_menu = _reachable(window, o)
        assert not in_menu and set(on_bar) == everything[name], (name, in_menu)
        assert not o.button.isVisible()


def test_toolbar_buttons_carry_short_labels(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "react_agent.py")
    window.resize(1900, 900)
    qtbot.waitUntil(lambda: window.width() == 1900, timeout=5000)
    qtbot.wait(100)
    bar, a = window.toolbar, window.actions
    shown = {name: bar.widgetForAction(getattr(a, name)).text() for name in ("edit_fork", "rewind", "step")}
    assert shown == {"edit_fork": "Fork…", "rewind": "Rewind", "step": "Step"}
    menu = window.menus["History"]
    assert "&Edit State and Fork…" in [x.text() for x in menu.actions()]  # the menus keep the full names
    assert window.panels.state.edit_button.text() == "Fork…"

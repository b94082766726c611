"""A graph file whose top-level code never returns: the window says so and a reload
(after the file is fixed) does not queue behind the import that never ends."""
from __future__ import annotations

from test_studio_support import (  # noqa: F401 (fixtures)
    EXAMPLES,
    settings,
    studio_loop,
    wait_ready,
)

STUCK = """\
import os, time
while not os.path.exists({flag!r}):  # stands for a loop or a call that never returns
    time.sleep(0.05)
"""


def test_a_stuck_import_is_said_and_a_reload_of_the_fixed_file_goes_ahead(qtbot, studio_loop, settings, tmp_path,
                                                                          monkeypatch) -> None:
    from studio.session import loading
    from studio.session.session import Session
    from studio.window.main_window import MainWindow

    monkeypatch.setattr(loading, "SLOW_IMPORT_S", 0.5)
    flag = tmp_path / "release"
    app = tmp_path / "app.py"
    app.write_text(STUCK.format(flag=str(flag)))
    window = MainWindow(Session(tmp_path / "runs.sqlite", poll_ms=400), settings=settings, watch=False)
    qtbot.addWidget(window)
    window.show()
    try:
        window.open_graph(str(app))
        qtbot.waitUntil(lambda: window.session.error is not None, timeout=10_000)
        error = window.session.error
        assert error.title == "The graph file is still importing"
        assert error.message == ("app.py: its top-level code has run for 0.5 s and not returned "
                                 "(a loop, a network call, input()?).")
        app.write_text((EXAMPLES / "router.py").read_text())  # the fix
        assert window.session.reload() is not False
        qtbot.waitUntil(lambda: window.session.graph is not None, timeout=20_000)
        wait_ready(qtbot, window)
        assert window.session.error is None and "classify" in window.session.graph.nodes
    finally:
        flag.write_text("")  # the first import's thread ends (Python cannot stop it)
        window.close()

"""Start-up: the window is on screen while the graph file is still importing, and its graph
panel says what it waits for ("importing app.py…", then "laying out N nodes…"), then the
graph. The time it takes is the benchmark's (tests/bench), not this test's."""
from __future__ import annotations

from test_studio_support import (  # noqa: F401 (fixtures)
    EXAMPLES,
    settings,
    studio_loop,
    wait_ready,
)

GATED = """\
import os, time
while not os.path.exists({flag!r}):  # a slow top-level import (heavy libraries, a model)
    time.sleep(0.02)
{body}
"""


def _scene_texts(panel) -> list[str]:
    return [item.text() for item in panel.scene.items() if hasattr(item, "text") and callable(item.text)]


def test_the_window_says_what_it_imports_then_draws_the_graph(qtbot, studio_loop, settings, tmp_path) -> None:
    from studio.session.session import Session
    from studio.window.main_window import MainWindow

    flag = tmp_path / "release"
    app = tmp_path / "app.py"
    app.write_text(GATED.format(flag=str(flag), body=(EXAMPLES / "router.py").read_text()))
    window = MainWindow(Session(tmp_path / "runs.sqlite", poll_ms=400), settings=settings, watch=False)
    qtbot.addWidget(window)
    window.show()
    graph = window.panels.graph
    try:
        window.open_graph(str(app))
        qtbot.wait(200)
        assert window.isVisible() and window.session.graph is None  # shown, the import still running
        assert graph.status.text() == "importing app.py…"
        assert _scene_texts(graph) == ["importing app.py…"]
        flag.write_text("")
        qtbot.waitUntil(lambda: window.session.graph is not None, timeout=20_000)
        wait_ready(qtbot, window)
        nodes = len(window.session.graph_view.nodes)
        assert graph.status.text().startswith(f"{len(graph.node_ids())} nodes")
        assert len(graph.node_ids()) == nodes and "importing app.py…" not in _scene_texts(graph)
    finally:
        flag.write_text("")
        window.close()


def test_laying_out_names_the_number_of_nodes(qtbot, studio_loop, settings, tmp_path) -> None:
    from studio.core.convert import graph_view
    from studio.core.loader import load_graph
    from studio.panels.graph.panel import GraphPanel

    loaded = load_graph(str(EXAMPLES / "router.py"))
    view = graph_view(loaded.graph, "router")
    panel = GraphPanel()
    qtbot.addWidget(panel)
    panel.set_graph(view)
    assert panel.status.text() == f"laying out {len(view.nodes)} nodes…"
    assert _scene_texts(panel) == [f"laying out {len(view.nodes)} nodes…"]
    qtbot.waitUntil(lambda: not panel.is_layout_pending(), timeout=20_000)
    assert len(panel.node_ids()) == len(view.nodes)

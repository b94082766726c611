"""The Store dock in a real window (offscreen): an agent that writes memories to its
store, the namespaces and items (TTL shown, searchable), and which node wrote what;
`retrograph open` on a LangGraph SqliteStore file browses it without changing it."""
from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from test_studio_support import (  # noqa: F401 (fixtures)
    act,
    open_window,
    settings,
    studio_loop,
    wait_ready,
    write_graph,
)

MEMORIES = """
    from engine.store import InMemoryStore

    class S(TypedDict, total=False):
        facts: list
        log: Annotated[list, operator.add]

    store = InMemoryStore(ttl={"default_ttl": 60})

    def remember(s, store):
        for i, fact in enumerate(s["facts"]):
            store.put(("users", "ann", "memories"), f"m{i}", {"text": fact})
        return {"log": ["remembered"]}

    def forget(s, store):
        store.delete(("users", "ann", "memories"), "m0")
        store.put(("users", "ann", "profile"), "profile", {"name": "Ann"}, ttl=None)
        return {"log": ["forgot"]}

    builder = StateGraph(S)
    builder.add_node("remember", remember)
    builder.add_node("forget", forget)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "forget")
    graph = builder.compile(store=store)
    example_input = {"facts": ["likes tea", "learns Portuguese"], "log": []}
"""


def _cells(table) -> list[list[str]]:
    return [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]


def test_the_store_dock_shows_memories_their_ttl_and_who_wrote_them(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "memories", MEMORIES))
    act(qtbot, window, "continue_")
    dock = window.store_dock
    dock.panel.refresh()
    panel = dock.panel
    names = [panel.namespace_list.item(i).text() for i in range(panel.namespace_list.count())]
    assert names == ["users / ann / memories", "users / ann / profile"]
    panel.namespace_list.setCurrentRow(0)
    rows = _cells(panel.items_table)
    assert [r[0] for r in rows] == ["m1"] and '"learns Portuguese"' in rows[0][1]
    assert rows[0][3] != "never"  # the default ttl: an expiry time
    panel.namespace_list.setCurrentRow(1)
    assert _cells(panel.items_table)[0][3] == "never"
    panel.namespace_list.setCurrentRow(0)
    panel.search.setText("tea")
    assert panel.items_table.rowCount() == 0  # m0 (tea) was deleted
    panel.search.setText("portuguese")
    assert panel.items_table.rowCount() == 1
    writes = _cells(panel.writes_table)
    assert [(w[0], w[1], w[2], w[4]) for w in writes] == [
        ("1", "remember", "put", "m0"), ("1", "remember", "put", "m1"), ("2", "forget", "delete", "m0"),
        ("2", "forget", "put", "profile")]  # the superstep each was made in


def test_open_on_a_langgraph_store_file_browses_it_read_only(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    write = (
        "from langgraph.store.sqlite import SqliteStore\n"
        f"with SqliteStore.from_conn_string({str(path)!r}) as s:\n"
        "    s.setup()\n"
        "    s.put(('users', 'ann'), 'm1', {'text': 'likes tea'})\n"
        "    s.put(('users', 'ann'), 'm2', {'text': 'learns Portuguese'}, ttl=None)\n"
    )
    subprocess.run([sys.executable, "-c", write], check=True)  # real LangGraph, its own process
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    shot = tmp_path / "store.png"
    done = subprocess.run([sys.executable, "-m", "studio", "open", str(path), "--screenshot", str(shot),
                           "--size", "1280x720"], capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr
    assert shot.stat().st_size > 1000
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    from studio.core.longterm import MemoryFile, is_store_file

    assert is_store_file(path)
    source = MemoryFile(path)
    try:
        assert source.namespaces() == [("users", "ann")]
        assert sorted(r.key for r in source.items(("users", "ann"))) == ["m1", "m2"]
        assert [r.key for r in source.items(("users", "ann"), "portuguese")] == ["m2"]
    finally:
        source.close()

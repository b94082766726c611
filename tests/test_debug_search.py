"""History search (studio/core/search.py, `retrograph search`, the Debug dock's Search
tab) over real SQLite files: every thread, branch and subgraph namespace of a store, in
pages, with nothing capped or skipped, a bounded result list, Continue and Cancel."""
from __future__ import annotations

import io
import json
import operator
import sqlite3
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from engine import END, START, MessagesState, SqliteSaver, StateGraph
from engine.checkpoint.base import Checkpoint
from engine.checkpoint.ids import ns_thread_key
from engine.checkpoint.reading import open_store
from engine.messages import AIMessage
from studio.cli.commands import parse_args
from studio.cli.search import cmd_search
from studio.core.expressions import ExpressionError
from studio.core.search import PAGE, StoreSearch
from test_studio_support import open_window, settings, studio_loop, wait_ready  # noqa: F401 (fixtures)


def drain(search: StoreSearch, store) -> list:
    hits = []
    while not search.done:
        hits.extend(search.next_page(store))
    return hits


def chat_store(path: Path) -> SqliteSaver:
    """Thread c: three exchanges with a bot (messages grow by two per exchange)."""
    def bot(s):
        return {"messages": [AIMessage(content=f"reply {len(s['messages'])}")]}

    g = StateGraph(MessagesState)
    g.add_node("bot", bot)
    g.add_edge(START, "bot")
    g.add_edge("bot", END)
    saver = SqliteSaver(str(path))
    app = g.compile(checkpointer=saver)
    for text in ("hello", "again", "third"):
        app.invoke({"messages": [("user", text)]}, {"configurable": {"thread_id": "c"}})
    return saver


class S(TypedDict, total=False):
    n: int
    log: Annotated[list, operator.add]


def subgraph_store(path: Path) -> SqliteSaver:
    """Threads t1 and t2, each running a subgraph whose node writes "deep-<thread>"."""
    inner = StateGraph(S)
    inner.add_node("deep", lambda s: {"log": [f"deep-{s['log'][0]}"], "n": s["n"] + 1})
    inner.add_edge(START, "deep")
    outer = StateGraph(S)
    outer.add_node("top", lambda s: {"n": s["n"] + 1})
    outer.add_node("sub", inner.compile())
    outer.add_edge(START, "top")
    outer.add_edge("top", "sub")
    outer.add_edge("sub", END)
    saver = SqliteSaver(str(path))
    app = outer.compile(checkpointer=saver)
    for thread in ("t1", "t2"):
        app.invoke({"n": 0, "log": [thread]}, {"configurable": {"thread_id": thread}})
    return saver


def test_text_and_expression_over_every_checkpoint(tmp_path: Path) -> None:
    saver = chat_store(tmp_path / "chat.sqlite")
    hits = drain(StoreSearch("REPLY 3"), saver)
    assert len(hits) == 4 and all("reply 3" in h.excerpt and h.thread_id == "c" for h in hits)
    hits = drain(StoreSearch("len(messages) == 4", "expression"), saver)
    assert [(h.step, h.source) for h in hits] == [(5, "input"), (4, "loop")]  # newest first
    assert hits[0].excerpt == "len(messages) == 4 → true"
    with pytest.raises(ValueError, match="the search is empty"):
        StoreSearch("  ")
    with pytest.raises(ExpressionError, match="not a valid expression"):
        StoreSearch("len(", "expression")
    with pytest.raises(ExpressionError, match="cannot be called"):
        StoreSearch("messages.clear()", "expression")  # nothing may change the state it reads
    with pytest.raises(ValueError, match="unknown search mode 'regex'"):
        StoreSearch("x", "regex")


def test_every_thread_and_subgraph_namespace_is_searched(tmp_path: Path) -> None:
    saver = subgraph_store(tmp_path / "subs.sqlite")
    search = StoreSearch("deep-t", first="t1")
    hits = drain(search, saver)
    assert {h.thread_id for h in hits} == {"t1", "t2"} and hits[0].thread_id == "t1"
    assert all(h.namespace.startswith("sub:") or h.namespace == "" for h in hits)
    assert any(h.namespace for h in hits) and any(not h.namespace for h in hits)
    in_sub = [h for h in hits if h.namespace]
    assert all(saver.load(ns_thread_key(h.thread_id, h.namespace), h.checkpoint_id) is not None for h in in_sub)
    total = sum(1 for t in ("t1", "t2") for ns in ["", *saver.namespaces(t)] for _ in saver.history(ns_thread_key(t, ns)))
    assert search.scanned == total and search.threads == 2
    only_t2 = drain(StoreSearch("deep-t", threads=["t2"]), saver)
    assert only_t2 and {h.thread_id for h in only_t2} == {"t2"}
    roots = drain(StoreSearch("deep-t", subgraphs=False), saver)
    assert roots and not any(h.namespace for h in roots)
    assert open_store(tmp_path / "subs.sqlite").kind  # the same through the read protocol:
    assert len(drain(StoreSearch("deep-t"), open_store(tmp_path / "subs.sqlite"))) == len(hits)


# -- a 100,000-checkpoint store ------------------------------------------------------------

THREADS, PER_THREAD = 100, 1000


@pytest.fixture(scope="module")
def big_store(tmp_path_factory) -> Path:
    """100 threads of 1,000 checkpoints each (100,000), in a Retrograph SQLite file. One
    thread is written through the saver; the others are copies of its rows made with SQL
    (writing 100,000 checkpoints one transaction each would take the suite's time)."""
    path = tmp_path_factory.mktemp("big") / "big.sqlite"
    saver = SqliteSaver(str(path))
    parent = None
    for i in range(PER_THREAD):
        cid = f"{i:08d}"
        saver.save(Checkpoint(id=cid, thread_id="t000", parent_id=parent, step=i, source="loop",
                             created_at=f"2026-01-01T00:00:00.{i:06d}+00:00", values={"n": i, "text": f"value {i}"},
                             versions={"n": cid, "text": cid}, nodes_ran=("a",)))
        parent = cid
    saver.close()
    conn = sqlite3.connect(path)
    with conn:
        base = conn.execute("SELECT tid FROM threads WHERE thread_id = 't000'").fetchone()[0]
        for k in range(1, THREADS):
            tid = conn.execute("INSERT INTO threads(thread_id) VALUES (?)", (f"t{k:03d}",)).lastrowid
            conn.execute(
                "INSERT INTO checkpoints SELECT (?1 << 32) | (cid & 4294967295), ?1, id,"
                " CASE WHEN typeof(parent) = 'integer' THEN (?1 << 32) | (parent & 4294967295) ELSE parent END,"
                " step, source, created_at, next, nodes_ran, versions, extras, inline FROM checkpoints WHERE tid = ?2",
                (tid, base))
    conn.close()
    check = SqliteSaver(str(path), read_only=True)
    assert sum(t.checkpoints for t in check.threads()) == THREADS * PER_THREAD
    assert [dict(c.values) for c in check.history("t057", limit=3)] == [dict(c.values) for c in check.history("t000", limit=3)]
    check.close()
    return path


def _held(search: StoreSearch) -> int:
    """The most items any container the search object holds has (its memory, structurally)."""
    return max((len(v) for v in vars(search).values() if isinstance(v, (list, dict, set, tuple))), default=0)


def test_a_100k_store_is_searched_in_bounded_pages(big_store: Path) -> None:
    store = SqliteSaver(str(big_store), read_only=True)
    every = StoreSearch("value", first="t000")  # matches all 100,000 checkpoints
    first = every.next_page(store, budget=5000, max_hits=500)
    assert len(first) == 500 and every.scanned == 500 and not every.done
    assert every.total == THREADS * PER_THREAD and _held(every) <= THREADS
    second = every.next_page(store, budget=5000, max_hits=500)
    assert len(second) == 500 and every.scanned == 1000
    assert {h.checkpoint_id for h in first}.isdisjoint(h.checkpoint_id for h in second)  # it resumes, never repeats
    assert {h.thread_id for h in first + second} == {"t000"}
    third = every.next_page(store, max_hits=500)
    assert len(third) == PAGE and third[0].thread_id == every.thread_id != "t000"
    assert third[0].checkpoint_id == f"{PER_THREAD - 1:08d}"  # the next thread, from its newest checkpoint

    # past the old 20,000 cap: 25 threads, 25,000 checkpoints, none skipped, memory flat
    some = [t.thread_id for t in store.threads()][:25]
    rare = StoreSearch("n == 7 or len([x for x in [n] if x == 8]) > 0", "expression", threads=some)
    rare_one = StoreSearch('text == "value 999"', "expression")  # once per thread, the newest
    pages = found = 0
    while not rare.done:
        found += len(rare.next_page(store))
        pages += 1
        assert rare.scanned <= pages * PAGE and _held(rare) <= THREADS
    assert rare.scanned == 25 * PER_THREAD and found == 2 * 25  # n == 7 and n == 8 in every thread
    assert pages in (25 * PER_THREAD // PAGE, 25 * PER_THREAD // PAGE + 1)
    hits = rare_one.next_page(store, budget=PER_THREAD * 3)
    assert [h.thread_id for h in hits] == [t.thread_id for t in store.threads()][:3]
    assert rare_one.scanned == 3 * PER_THREAD


def test_cancel_ends_the_scan_at_the_next_checkpoint(big_store: Path) -> None:
    store = SqliteSaver(str(big_store), read_only=True)
    search = StoreSearch("value")
    search.next_page(store, budget=50)
    search.cancel()
    assert search.next_page(store) == [] and search.done and search.scanned == 50
    assert "stopped" in search.describe()


# -- the command line ---------------------------------------------------------------------------


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return cmd_search(parse_args(["search", *argv]), out=out, err=err), out.getvalue(), err.getvalue()


def test_retrograph_search_prints_every_match(tmp_path: Path) -> None:
    db = tmp_path / "subs.sqlite"
    subgraph_store(db)
    code, out, err = cli(str(db), "DEEP-T2")
    lines = out.splitlines()
    assert code == 0 and lines and all(line.startswith("t2\t") for line in lines)
    assert any("[sub:" in line for line in lines) and "matches in" in err and "(done)" in err
    code, out, _ = cli(str(db), "-e", "n >= 2", "--json", "--thread", "t1")
    found = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and found and {f["thread_id"] for f in found} == {"t1"}
    assert all(f["match"] == "n >= 2 → true" and set(f) >= {"checkpoint_id", "checkpoint_ns", "step", "nodes"}
               for f in found)
    code, out, err = cli(str(db), "deep", "--limit", "1")
    assert code == 0 and len(out.splitlines()) == 1 and "stopped after 1 matches (--limit)" in err


def test_retrograph_search_bad_inputs_name_the_culprit(tmp_path: Path) -> None:
    db = tmp_path / "subs.sqlite"
    subgraph_store(db)
    assert cli(str(db), "no such text anywhere")[0] == 1
    code, _, err = cli(str(db), "-e", "n >")
    assert code == 2 and "`n >` is not a valid expression" in err
    code, _, err = cli(str(db), "-e", "__import__('os')")
    assert code == 2 and "cannot be called" in err
    code, _, err = cli(str(db), "x", "--thread", "zz")
    assert code == 1 and "--thread zz: no such thread" in err and "t1" in err
    code, _, err = cli(str(tmp_path / "missing.sqlite"), "x")
    assert code == 2 and "no such file" in err
    (tmp_path / "notes.txt").write_text("hello")
    code, _, err = cli(str(tmp_path / "notes.txt"), "x")
    assert code == 2 and "not a SQLite database" in err
    code, _, err = cli(str(db), "x", "--limit", "-3")
    assert code == 2 and "--limit -3" in err


# -- the window -----------------------------------------------------------------------------------


def test_the_search_tab_searches_every_thread_and_jumps_to_a_match(open_window, qtbot, tmp_path: Path) -> None:
    db = tmp_path / "subs.sqlite"
    subgraph_store(db).close()
    window = open_window(database=db, thread_id="t1")
    tools, panel, s = window.session.debugging, window.debug_dock.panel, window.session
    window.debug_dock.show_tab(3)
    panel.search_scope.setCurrentIndex(panel.search_scope.findData("all"))
    panel.search_mode.setCurrentIndex(panel.search_mode.findData("text"))
    panel.search_edit.setText("deep-t2")
    panel.search_edit.returnPressed.emit()
    qtbot.waitUntil(lambda: tools.search_run is not None and tools.search_run.done and not tools.pending, timeout=15000)
    threads = {row[0] for row in panel.search_model.cells}
    assert threads and all(t.startswith("t2") for t in threads) and any("› sub" in t for t in threads)
    assert "every branch searched" in panel.search_note.text() and not panel.search_more.isVisible()
    root = next(i for i, h in enumerate(tools.search_hits) if not h.namespace)
    target = tools.search_hits[root].checkpoint_id
    with qtbot.waitSignal(s.viewChanged, timeout=15000, check_params_cb=lambda cid: cid == target):
        panel.search_view.clicked.emit(panel.search_model.index(root, 0))
    assert s.thread_id == "t2"
    wait_ready(qtbot, window)
    # "this thread": t2 is open now, so t1's matches of "deep-t" are left out
    panel.search_scope.setCurrentIndex(panel.search_scope.findData("thread"))
    panel.search_edit.setText("deep-t")
    panel.search_edit.returnPressed.emit()
    qtbot.waitUntil(lambda: tools.search_run.done and not tools.pending, timeout=15000)
    assert tools.search_run.threads == 1 and panel.search_model.rowCount() == len(tools.search_hits) > 0
    assert {h.thread_id for h in tools.search_hits} == {"t2"}
    # the store goes away under a search: it stops and says why, nothing raises
    tools.search("deep", "text", "all")
    s.state.reader.close()
    qtbot.waitUntil(lambda: not tools.pending, timeout=15000)
    assert "the search stopped after 0 checkpoints: RuntimeError" in panel.search_note.text()
    assert tools.search_run.done and not panel.search_stop.isVisible() and not panel.search_more.isVisible()


def test_the_search_tab_pauses_continues_and_cancels(open_window, qtbot, big_store: Path) -> None:
    window = open_window(database=big_store, thread_id="t000")
    tools, panel = window.session.debugging, window.debug_dock.panel
    window.debug_dock.show_tab(3)
    tools.search_limit = 300
    tools.search("value", "text", "all")
    qtbot.waitUntil(lambda: not tools.pending, timeout=15000)
    assert panel.search_model.rowCount() == 300 and not tools.search_run.done
    assert "Continue for the next matches" in panel.search_note.text()
    assert panel.search_more.isVisible() and not panel.search_stop.isVisible()
    assert tools.search_hits[0].thread_id == "t000"  # the open thread first
    panel.search_more.click()
    qtbot.waitUntil(lambda: not tools.pending, timeout=15000)
    assert panel.search_model.rowCount() == 600 and len({(h.thread_id, h.checkpoint_id) for h in tools.search_hits}) == 600
    tools.search("value 1", "text", "all")  # a new search replaces the list...
    tools.cancel_search()  # ...and is cancelled before its first page is read
    qtbot.waitUntil(lambda: not tools.pending, timeout=15000)
    assert tools.search_run.done and tools.search_run.cancelled and tools.search_run.scanned < PAGE
    assert panel.search_model.rowCount() < 300 and "search cancelled" in panel.search_note.text()
    assert not panel.search_more.isVisible() and not panel.search_stop.isVisible()


def test_retrograph_search_reads_a_langgraph_postgres_store(pg_url: str) -> None:
    from langgraph.checkpoint.postgres import PostgresSaver as LangGraphPostgresSaver

    from langgraph_apps import run_app

    with LangGraphPostgresSaver.from_conn_string(pg_url) as saver:
        saver.setup()
        run_app("chat", saver, "t1")
        run_app("flow", saver, "t2")
    code, out, err = cli(pg_url, "found", "--json")
    found = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and found and {f["thread_id"] for f in found} == {"t1"}
    assert any(f["checkpoint_ns"].startswith("tools:") for f in found)  # inside the subgraph too
    code, out, _ = cli(pg_url, "-e", "'join' in log", "--thread", "t2")
    assert code == 0 and out.count("\n") >= 1 and "t2\t" in out


# -- expressions that fail on some or every checkpoint ------------------------------------------


def test_evaluation_errors_are_counted_and_reported(tmp_path: Path) -> None:
    db = tmp_path / "subs.sqlite"
    subgraph_store(db).close()
    store = open_store(str(db))
    try:
        everywhere = StoreSearch('n > "x"', "expression")
        assert drain(everywhere, store) == [] and everywhere.failed > 0 and everywhere.failed_everywhere
        why = everywhere.failures()
        assert why.startswith("the expression could not be evaluated on any checkpoint") and "TypeError" in why
        assert "(thread t" in why and "step" in why
        # fails only on the states where n is still 0
        some = StoreSearch('n > "x" if n == 0 else n > 1', "expression")
        hits = drain(some, store)
        assert hits and 0 < some.failed < some.scanned and not some.failed_everywhere
        assert some.failures().startswith(f"{some.failed:,} checkpoint") and "could not be evaluated: first error" \
            in some.failures() and "TypeError" in some.failures()
        clean = StoreSearch("n >= 2", "expression")
        assert drain(clean, store) and clean.failed == 0 and clean.failures() == ""
    finally:
        store.close()


def test_retrograph_search_says_why_an_expression_fails(tmp_path: Path) -> None:
    db = tmp_path / "subs.sqlite"
    subgraph_store(db).close()
    code, out, err = cli(str(db), "-e", 'n > "x"')
    assert code == 2 and out == "" and "could not be evaluated on any checkpoint" in err and "TypeError" in err
    code, out, err = cli(str(db), "-e", "str(10**5000)")
    assert code == 2 and "4,300 digits" in err
    code, out, err = cli(str(db), "-e", 'n > "x" if n == 0 else n > 1')
    assert code == 0 and out and "could not be evaluated: first error" in err


def test_the_search_tab_says_why_an_expression_fails(open_window, qtbot, tmp_path: Path) -> None:
    db = tmp_path / "subs.sqlite"
    subgraph_store(db).close()
    window = open_window(database=db, thread_id="t1")
    tools, panel = window.session.debugging, window.debug_dock.panel
    window.debug_dock.show_tab(3)
    tools.search('n > "x"', "expression", "all")
    qtbot.waitUntil(lambda: tools.search_run is not None and tools.search_run.done and not tools.pending, timeout=15000)
    error = panel.errors["search"]
    assert error.isVisibleTo(panel) and "could not be evaluated on any checkpoint" in error.text()
    assert "TypeError" in error.text()
    tools.search('n > "x" if n == 0 else n > 1', "expression", "all")
    qtbot.waitUntil(lambda: tools.search_run.done and not tools.pending, timeout=15000)
    assert not error.isVisibleTo(panel) and panel.search_model.rowCount() > 0
    assert "could not be evaluated: first error" in panel.search_note.text()

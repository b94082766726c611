"""Hostile input at the studio's and the command line's edges: each gets one clear line,
never a traceback, and nothing already saved is lost."""
from __future__ import annotations

import io

import pytest

from studio.cli import cmd_draw, cmd_run, parse_args
from studio.core.editable import check_json
from studio.panels.interrupts import parse_json
from test_studio_support import write_graph

KEEP = """
    class S(TypedDict, total=False):
        x: object
    def keep(s):
        return {"x": s.get("x")}
    b = StateGraph(S)
    b.add_node("keep", keep)
    b.add_edge(START, "keep")
    graph = b.compile()
"""

DEEP = "[" * 5000 + "]" * 5000
BIG = "1" + "0" * 5000           # 10**5000: past Python's 4,300-digit str() limit
HUGE = "1" + "0" * 200_000       # past the accepted 100,000 digits


def run(*argv: str) -> tuple[int, list[str], list[str]]:
    out, err = io.StringIO(), io.StringIO()
    code = cmd_run(parse_args(["run", *argv]), out=out, err=err)
    return code, out.getvalue().splitlines(), err.getvalue().splitlines()


def test_run_input_nested_thousands_deep_is_one_line(tmp_path):
    code, out, err = run(str(write_graph(tmp_path, "keep", KEEP)), "--input", '{"x": ' + DEEP + "}")
    assert code == 2 and out == []
    assert err == ["retrograph: The input cannot be taken: it is nested too deeply "
                   "(thousands of levels of brackets); flatten it."]


def test_run_input_with_a_5000_digit_int_runs_and_keeps_it_exactly(tmp_path):
    code, out, err = run(str(write_graph(tmp_path, "keep", KEEP)), "--input", '{"x": ' + BIG + "}",
                         "--stream-mode", "values")
    assert code == 0 and err == []
    assert out[-1] == '{"x": "' + BIG + '"}'  # printed exactly (as a string: JSON readers choke on it)


def test_run_input_past_the_digit_bound_names_the_number(tmp_path):
    code, _, err = run(str(write_graph(tmp_path, "keep", KEEP)), "--resume", HUGE, "--thread", "t")
    assert code == 2
    assert err == ["retrograph: --resume: The input cannot be taken: a number has 200,001 digits, more than "
                   "the 100,000 accepted; pass it as a string instead."]


@pytest.mark.parametrize("parse", [check_json, parse_json], ids=["edit-state", "interrupt-answer"])
def test_studio_json_editors_refuse_hostile_json_with_a_sentence(parse):
    assert parse('{"x": ' + DEEP + "}") == (
        None, "The JSON cannot be taken: it is nested too deeply (thousands of levels of brackets); flatten it")
    value, problem = parse(BIG)
    assert problem == "" and value == 10**5000
    value, problem = parse(HUGE)
    assert value is None and "200,001 digits" in problem


def test_draw_into_a_missing_folder_is_one_line(tmp_path):
    graph = write_graph(tmp_path, "keep", KEEP)
    for name in ("graph.svg", "graph.mmd"):
        err = io.StringIO()
        assert cmd_draw(parse_args(["draw", str(graph), "-o", str(tmp_path / "no" / name)]), err=err) == 2
        assert err.getvalue().splitlines() == [f"retrograph: cannot write {tmp_path / 'no' / name}: No such file "
                                               "or directory; check that its folder exists and is writable"]


def test_ctrl_c_is_one_line_and_exit_130(tmp_path, capsys):
    from studio.__main__ import main

    stop = write_graph(tmp_path, "stop", KEEP.replace('return {"x": s.get("x")}', "raise KeyboardInterrupt"))
    assert main(["run", str(stop), "--input", "{}"]) == 130
    assert capsys.readouterr().err.splitlines() == [
        "retrograph: stopped by Ctrl+C (the supersteps committed before it are saved when --db was given)"]


def test_an_error_a_command_lets_through_is_still_one_line(tmp_path, capsys, monkeypatch):
    """`export` into a missing folder raised CheckpointError through the command (a
    traceback); it now has its own line naming the thread and the output, exit 1. The last
    net in `main` still makes any other error one line."""
    from engine import SqliteSaver
    from engine.errors import CheckpointError
    from studio.__main__ import main
    from studio.cli import debugtools

    monkeypatch.delenv("RETROGRAPH_TRACEBACK", raising=False)
    db = tmp_path / "runs.sqlite"
    graph = write_graph(tmp_path, "keep", KEEP).as_posix()
    assert main(["run", graph, "--db", str(db), "--thread", "t", "--input", '{"x": 1}']) == 0
    capsys.readouterr()
    target = tmp_path / "no" / "out.sqlite"
    assert main(["export", str(db), "--thread", "t", "-o", str(target)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [f"retrograph: export of thread t to {target} failed: Cannot open `{target}`: unable to open "
                   "database file. Check that its folder exists and is writable."]
    with SqliteSaver(db) as saver:  # the source is untouched
        assert len(list(saver.list({"configurable": {"thread_id": "t"}}))) == 3

    def broken(args):  # a command with a bug that lets an error through
        raise CheckpointError("the store went away")

    monkeypatch.setitem(debugtools.COMMANDS, "export", broken)
    assert main(["export", str(db), "--thread", "t", "-o", str(target)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "retrograph: export failed: CheckpointError: the store went away (RETROGRAPH_TRACEBACK=1 shows where)"]


@pytest.mark.parametrize("parse", [check_json, parse_json], ids=["edit-state", "interrupt-answer"])
def test_a_lone_surrogate_is_refused_in_the_editor_before_the_fork_loses_the_edit(parse):
    """`\\ud800` is valid JSON but no checkpoint can store it: the edit dialog closed and
    update_state failed after it, losing the typed edit; now the editor names the place."""
    value, problem = parse(r'{"messages": [{"$message": "human", "content": "hi \ud800 there"}]}')
    assert value is None
    assert problem == ("The JSON cannot be taken: messages[0]['content'] holds a lone surrogate (a \\ud800-\\udfff "
                       "escape without its pair), which is not text a checkpoint can store; remove it")
    assert parse(r'{"smile": "\ud83d\ude00"}') == ({"smile": "\U0001F600"}, "")  # a pair is one character


def test_the_state_editor_opens_on_a_10_pow_5000_int_and_keeps_it(qtbot):
    """json.dumps cannot print an int past 4,300 digits: the dialog raised in its
    constructor (Edit state and fork did nothing but print a traceback)."""
    import json

    from studio.panels.state.editor import StateEditorDialog

    values = {"big": 10**5000, "n": 10**4000}
    dialog = StateEditorDialog(values)
    qtbot.addWidget(dialog)
    text = dialog.editor.toPlainText()
    assert json.loads(text)["big"] == {"$kept": 1, "was": "int: ≈10^5000 (int of ~5,001 digits)"}
    assert dialog.changed_values() == {}
    dialog.editor.setPlainText(text.replace('"n": 1', '"n": 2', 1))
    assert dialog.changed_values() == {"n": 2 * 10**4000} and dialog.edited_values()["big"] == 10**5000


def test_a_watch_that_prints_a_huge_int_says_so_in_words():
    from studio.core.expressions import Expression, ExpressionError

    with pytest.raises(ExpressionError) as caught:
        Expression.parse("str(x)").evaluate({"x": 10**5000})
    assert str(caught.value) == ("`str(x)`: an int of more than 4,300 digits cannot be made into text; "
                                 "compare it as a number instead")
    assert Expression.parse("x > 10**4999").evaluate({"x": 10**5000}) is True


def test_a_history_without_code_does_not_call_its_reducers_custom():
    from engine.explain import reducer_line

    assert reducer_line("") == ("reducer not known: the history was read without the graph's code "
                                "(open it with --graph FILE.py)")


def test_a_long_graph_title_keeps_its_words_on_one_line(qtbot):
    """A post-mortem's title, "lg2 (from the history: no code loaded)", wrapped one word per
    line (six lines, pushing the graph down) while the status took the width."""
    import dataclasses

    from panel_support import sample_graph

    from studio.panels import GraphPanel

    panel = GraphPanel()
    qtbot.addWidget(panel)
    panel.resize(680, 420)
    panel.show()
    try:
        view = dataclasses.replace(sample_graph(), name="lg2 (from the history: no code loaded)")
        with qtbot.waitSignal(panel.layout_ready, timeout=30_000):
            panel.set_graph(view)
        qtbot.waitUntil(lambda: "nodes" in panel.status.text(), timeout=5_000)
        line = panel.title.fontMetrics().height()
        assert panel.title.height() < 2 * line, panel.title.height()
    finally:
        panel.shutdown()


def test_a_read_only_store_says_what_to_do(tmp_path):
    """An existing file on a read-only file system (or a read-only file) gave
    "`runs.sqlite`: unable to open database file" and no advice."""
    import sqlite3

    from engine.checkpoint.sqlite_schema import translate_error

    path = tmp_path / "runs.sqlite"
    sqlite3.connect(path).execute("create table t(x)").connection.close()
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError) as caught:  # SQLite's own refusal
        conn.execute("insert into t values (1)")
    conn.close()
    message = str(translate_error(caught.value, str(path), 1 << 20))
    assert message == (f"`{path}` cannot be written (SQLite: attempt to write a readonly database): it, its "
                       "folder or its file system is read-only, and saving needs to write it and the `-wal` file "
                       f"beside it. Copy it somewhere writable, or browse it without writing: `retrograph open {path}`.")


def test_one_line_keeps_a_whole_sentence_of_advice():
    from studio.cli.commands import one_line

    advice = "x" * 700
    assert one_line(RuntimeError(advice)) == f"RuntimeError: {advice}"
    assert one_line(RuntimeError("y" * 5000)).endswith("…") and len(one_line(RuntimeError("y" * 5000))) < 1100


def test_a_300_wide_superstep_summary_names_a_few_and_counts_the_rest():
    """The caption over the graph listed all 300 task names and covered the graph."""
    from studio.core.explain import _summary

    assert _summary(1, tuple(f"n{i}" for i in range(300))) == (
        "300 tasks (n0, n1, n2, n3, n4, n5, n6, n7 and 292 more) run together, "
        "all reading the same snapshot: the state after step 0")
    assert _summary(2, ("w",) * 3) == "3 tasks (w) run together, all reading the same snapshot: the state after step 1"


def test_a_device_a_pipe_or_a_huge_file_is_not_read_as_a_graph(tmp_path):
    """`retrograph run /dev/zero` read forever (eating memory); a pipe blocked forever."""
    import os

    pipe = tmp_path / "pipe.py"
    os.mkfifo(pipe)
    huge = tmp_path / "huge.py"
    with open(huge, "wb") as f:
        f.truncate(30 * 1024 * 1024)  # sparse: no disk used
    for spec, said in [("/dev/zero", "is not a regular file (a device or a pipe); give the graph's Python file"),
                       (str(pipe), "is not a regular file (a device or a pipe); give the graph's Python file"),
                       (str(huge), "is 30 MB, too big for Python source (the limit is 20 MB); is it the right file?"),
                       (str(tmp_path), "is a folder; give the graph's Python file (FILE.py or FILE.py:NAME)")]:
        code, _, err = run(spec, "--input", "{}")
        assert (code, err) == (2, [f"retrograph: {spec}: {said}"])


def test_a_device_or_a_pipe_is_not_a_checkpoint_store(tmp_path):
    """`--db /dev/null` said "cannot rollback - no transaction is active"; `history PIPE` blocked forever."""
    import os

    from engine import SqliteSaver
    from engine.checkpoint.reading import open_store
    from engine.errors import CheckpointError

    pipe = tmp_path / "runs.sqlite"
    os.mkfifo(pipe)
    for target in ("/dev/null", str(pipe)):
        with pytest.raises(CheckpointError, match=r"is not a regular file \(a device, a pipe or a socket\), so it "
                                                  r"cannot hold checkpoints"):
            SqliteSaver(target)
        with pytest.raises(CheckpointError, match=r"is not a regular file \(a device, a pipe or a socket\), so it "
                                                  r"is not a checkpoint file"):
            open_store(target)


def test_a_bad_window_size_is_refused_when_parsed():
    from studio.cli.commands import window_size

    assert window_size("1280X720") == "1280x720"
    for bad in ("garbage", "0x0", "1280x", "99999x720"):
        with pytest.raises(Exception, match="use WIDTHxHEIGHT in pixels"):
            window_size(bad)


def test_history_values_without_a_thread_says_so(tmp_path):
    from studio.cli.history import cmd_history

    out, err = io.StringIO(), io.StringIO()
    assert cmd_history(parse_args(["history", str(tmp_path / "runs.sqlite"), "--values"]), out=out, err=err) == 2
    assert err.getvalue().splitlines() == [
        "retrograph: --values needs --thread T: it adds each checkpoint's state to that thread's list"]


def test_an_expression_with_a_lone_surrogate_is_an_expression_error():
    from studio.core.expressions import Expression, ExpressionError

    with pytest.raises(ExpressionError, match=r"`len\(\\udcff\)` is not a valid expression: UnicodeEncodeError"):
        Expression.parse("len(\udcff)")


def test_run_never_prints_the_password_of_a_db_url(tmp_path):
    code, _, err = run(str(write_graph(tmp_path, "keep", KEEP)), "--input", "{}",
                       "--db", "postgresql://reader:S3CRET@127.0.0.1:1/agents")
    assert code == 2 and len(err) == 1
    assert err[0].startswith("retrograph: cannot open --db postgresql://reader:***@127.0.0.1:1/agents: ")
    assert "S3CRET" not in err[0]


def test_pytest_never_overwrites_a_test_written_by_hand(tmp_path):
    """`retrograph pytest -o tests/test_mine.py` replaced the user's own file without a word."""
    from studio.cli.pytestgen import cmd_pytest

    mine = tmp_path / "test_mine.py"
    mine.write_text("def test_precious():\n    assert True\n")
    err = io.StringIO()
    args = parse_args(["pytest", str(tmp_path / "runs.sqlite"), "--thread", "t", "--graph",
                       str(write_graph(tmp_path, "keep", KEEP)), "-o", str(mine)])
    assert cmd_pytest(args, out=io.StringIO(), err=err) == 2
    assert err.getvalue().splitlines() == [f"retrograph: -o {mine}: the file exists and was not written by "
                                           "`retrograph pytest`; pick another name (nothing was changed)"]
    assert mine.read_text() == "def test_precious():\n    assert True\n"


def test_explain_shows_a_huge_int_by_its_size():
    """`retrograph run --explain` printed `x = <int>` for 10**5000, and `<list>` for a list holding one."""
    from engine.explain.text import short

    assert short(10**5000) == "<int of ~5,001 digits>"
    assert short([1, 10**5000, "x"]) == "[1, <int of ~5,001 digits>, 'x']"
    assert short(42) == "42"


@pytest.mark.parametrize("thread, said", [
    ("", "retrograph: --thread is empty: give the thread's id (`retrograph history DB` lists them)"),
    ("\udcff\udcfe", "retrograph: --thread b'\\xff\\xfe' is not UTF-8 text; give the thread's id as text"),
])
def test_an_empty_or_undecodable_thread_is_one_line(thread, said, capsys):
    """An empty --thread failed the run with MissingThreadIdError's advice for code
    (`pass config=...`); bytes that are not UTF-8 failed it with a UnicodeEncodeError."""
    for command in (["run", "g.py", "--db", "r.sqlite"], ["history", "r.sqlite"], ["export", "r.sqlite", "-o", "o"]):
        with pytest.raises(SystemExit) as stopped:
            parse_args([*command, "--thread", thread])
        assert stopped.value.code == 2
        assert capsys.readouterr().err.splitlines() == [said]


def test_input_that_is_not_utf8_is_one_line(tmp_path):
    code, _, err = run(str(write_graph(tmp_path, "keep", KEEP)), "--input", '{"x": "\udcff"}')
    assert (code, err) == (2, ["retrograph: The input cannot be taken: it is not UTF-8 text (character 8 is not); "
                               "save or type it as UTF-8."])


def test_a_graph_spec_with_a_stray_colon_names_the_file_and_the_fix(tmp_path):
    """`app.py:` said "app.py:: no such file" though app.py is there."""
    app = write_graph(tmp_path, "keep", KEEP)
    code, _, err = run(f"{app}:", "--input", "{}")
    assert (code, err) == (2, [f"retrograph: `{app}:`: nothing follows the colon; write {app}:NAME (a graph "
                               f"defined at the file's top level) or {app} alone"])
    code, _, err = run(f"{app}:graph:x", "--input", "{}")
    assert (code, err) == (2, [f"retrograph: `{app}:graph:x`: `graph:x` is not one graph name; write {app}:NAME "
                               f"(a graph defined at the file's top level) or {app} alone"])


def test_run_says_when_the_graph_files_import_does_not_return(tmp_path, monkeypatch):
    """`retrograph run` on a file whose top-level code never returns waited in silence."""
    import threading

    from studio.cli import commands

    monkeypatch.setattr(commands, "SLOW_IMPORT_S", 0.2)
    flag = tmp_path / "release"
    app = tmp_path / "slow.py"
    app.write_text(f"import os, time\nwhile not os.path.exists({str(flag)!r}):\n    time.sleep(0.02)\n")
    said = threading.Event()

    class Err(io.StringIO):
        def write(self, text: str) -> int:
            if "has run for" in text:
                said.set()
                flag.write_text("")  # the import then ends (the file defines no graph)
            return super().write(text)

    err = Err()
    code = cmd_run(parse_args(["run", str(app), "--input", "{}"]), out=io.StringIO(), err=err)
    assert said.is_set() and code == 2
    assert err.getvalue().splitlines()[0] == ("retrograph: slow.py: its top-level code has run for 0.2 s and not "
                                              "returned (a loop, a network call, input()?); Ctrl+C stops")

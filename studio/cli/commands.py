"""The `retrograph` command line: argument parsing and the headless commands.

`run` and `draw` never import Qt, so they work on a server without a display. The
window commands (`retrograph FILE`, `retrograph open DB`) are started by `studio.cli.launch`.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from studio.core.jsonable import jsonable
from studio.core.jsontext import parse_json_input
from studio.core.runsettings import DURABILITIES

__all__ = ["parse_args", "parse_json_input", "cmd_run", "cmd_draw", "one_line", "SUBCOMMANDS"]

SUBCOMMANDS = ("open", "run", "draw", "history", "pytest", "export", "search")

_USAGE = """\
retrograph FILE.py[:NAME] [--db FILE] [--thread ID] [--input JSON] [--steps N [--do SCRIPT] --screenshot OUT.png]
       retrograph open DB_OR_URL [--graph FILE.py[:NAME]] [--thread ID]
       retrograph history DB_OR_URL [--thread ID] [--json] [--values]
       retrograph run FILE.py[:NAME] [--input JSON | --resume JSON] [--context JSON] [--config JSON]
                      [--durability sync|async|exit] [--stream-mode MODE] [--db FILE_OR_URL [--thread ID]]
       retrograph draw FILE.py[:NAME] -o OUT.svg|png|dot|mmd
       retrograph pytest DB --thread T --graph FILE.py [--record NODE,...] -o tests/test_NAME.py
       retrograph export DB --thread T [--branch CHECKPOINT] [--redact KEY,...] [--redact-pattern RE] -o RUN.sqlite
       retrograph search DB TEXT | -e EXPRESSION [--thread T] [--limit N] [--json]"""


def window_size(text: str) -> str:
    """`--size WIDTHxHEIGHT`, checked when parsed (a bad one raised deep in Qt's setup)."""
    width, sep, height = text.lower().partition("x")
    if not (sep and width.isdigit() and height.isdigit() and 100 <= int(width) <= 10000
            and 100 <= int(height) <= 10000):
        raise argparse.ArgumentTypeError(f"{text!r}: use WIDTHxHEIGHT in pixels, each 100 to 10000, e.g. 1280x720")
    return f"{int(width)}x{int(height)}"


def _window_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="retrograph", usage=_USAGE,
                                description="Retrograph Studio: a time-travel debugger for state graphs.")
    p.add_argument("graph", help="the graph file, FILE.py or FILE.py:NAME (its code runs, as python FILE.py would)")
    p.add_argument("--db", help="the checkpoint database: a SQLite file or a postgresql:// URL (default: runs.sqlite in the per-user data folder)")
    p.add_argument("--thread", help="open this thread of the database (default: a new thread)")
    p.add_argument("--input", help="the input of a new run, as JSON (default: the file's example_input)")
    p.add_argument("--steps", type=int, default=0, help="with --screenshot: node steps to take first")
    p.add_argument("--screenshot", help="render the window to this PNG after --steps node steps, then exit")
    p.add_argument("--do", default="", metavar="SCRIPT",
                   help="with --screenshot: what to do after --steps, e.g. 'step*4 rewind:1 step*2 legend' "
                        "(step[*N], continue, rewind:STEP, view:STEP, select:NODE, answer:JSON, resume:JSON, legend)")
    p.add_argument("--size", default="1600x1000", type=window_size, help="window size for --screenshot, WIDTHxHEIGHT")
    p.set_defaults(command="window")
    return p


def _open_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="retrograph open", description="Browse a checkpoint database (post-mortem).")
    p.add_argument("db", help="a checkpoint file or postgresql:// URL: Retrograph's, or LangGraph's own (read-only); opening it runs no code")
    p.add_argument("--graph", help="the graph's file, to continue its runs (FILE.py[:NAME])")
    p.add_argument("--thread", help="open this thread first")
    p.add_argument("--screenshot", help="render the window to this PNG, then exit")
    p.add_argument("--do", default="", metavar="SCRIPT", help="with --screenshot: see `retrograph --help`")
    p.add_argument("--size", default="1600x1000", type=window_size, help="window size for --screenshot, WIDTHxHEIGHT")
    p.set_defaults(command="open", steps=0, input=None)
    return p


def _run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="retrograph run", description="Run a graph headless and print its stream, one JSON line per chunk.",
        epilog="Exit status: 0 done or paused at an interrupt, 1 the run failed, 2 a bad command line or file. "
               "Errors are one line on stderr.")
    p.add_argument("graph", help="FILE.py[:NAME]")
    p.add_argument("--input", help="the input as JSON (default: the file's example_input)")
    p.add_argument("--resume", metavar="JSON",
                   help="answer the interrupt pending on --thread with this JSON value (instead of --input)")
    p.add_argument("--context", metavar="JSON",
                   help="the run context as a JSON object, checked against the graph's context_schema (nodes read "
                        "it as runtime.context); kept with the thread, so --resume reuses it")
    p.add_argument("--config", metavar="JSON",
                   help="the run's config as a JSON object: recursion_limit, tags, metadata, configurable, "
                        "run_name, max_concurrency")
    p.add_argument("--durability", choices=DURABILITIES,
                   help="when checkpoints are written: sync (before the next step), async (while it runs), "
                        "exit (only when the run stops)")
    p.add_argument("--stream-mode", default="updates",
                   help="values, updates, debug, tasks, checkpoints, custom, messages or events; "
                        "comma-separated for several")
    p.add_argument("--db", help="save checkpoints in this SQLite file or postgresql:// URL")
    p.add_argument("--thread", help="the thread to run on (default with --db: a new thread, printed on stderr)")
    p.add_argument("--traceback", action="store_true", help="print the full traceback when the run fails")
    p.add_argument("--explain", action="store_true",
                   help="instead of the stream, explain each superstep in words: which tasks ran and why "
                        "(edge, router, join, Send, Command), what each wrote, how each reducer merged it")
    p.set_defaults(command="run")
    return p


def _draw_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="retrograph draw", description="Draw a graph to a file.")
    p.add_argument("graph", help="FILE.py[:NAME]")
    p.add_argument("-o", "--output", required=True, help="OUT.svg, OUT.png, OUT.dot or OUT.mmd")
    p.set_defaults(command="draw")
    return p


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    argv = list(argv)
    parser = _window_parser()
    if argv and argv[0] in SUBCOMMANDS:
        if argv[0] == "history":
            from .history import history_parser

            parser = history_parser()
        elif argv[0] in ("pytest", "export", "search"):  # debugging commands (debugtools.py)
            from .debugtools import PARSERS

            parser = PARSERS[argv[0]]()
        else:
            parser = {"open": _open_parser, "run": _run_parser, "draw": _draw_parser}[argv[0]]()
        argv = argv[1:]
    args = parser.parse_args(argv)
    thread = getattr(args, "thread", None)
    if thread is not None:  # an empty or undecodable id failed deep in the run, in code-level words
        if not thread.strip():
            parser.exit(2, "retrograph: --thread is empty: give the thread's id (`retrograph history DB` lists them)\n")
        try:
            thread.encode("utf-8")
        except UnicodeEncodeError:
            parser.exit(2, f"retrograph: --thread {thread.encode('utf-8', 'surrogateescape')!r} is not UTF-8 "
                           "text; give the thread's id as text\n")
    return args


SLOW_IMPORT_S = 5.0  # after this long, say that the graph file's top-level code is still running


def _load(spec: str, err: TextIO) -> Any:
    import threading

    from studio.core.loader import LoadError, load_graph, parse_spec

    def still() -> None:
        print(f"retrograph: {parse_spec(spec)[0].name}: its top-level code has run for {SLOW_IMPORT_S:g} s and not "
              "returned (a loop, a network call, input()?); Ctrl+C stops", file=err, flush=True)

    timer = threading.Timer(SLOW_IMPORT_S, still)
    timer.daemon = True
    timer.start()
    try:
        result = load_graph(spec)
    finally:
        timer.cancel()
    if isinstance(result, LoadError):
        print(f"retrograph: {result.message}", file=err)
        if result.detail and result.kind in ("syntax",):
            print(result.detail, file=err)
        return None
    if result.engine_note:
        print(f"retrograph: {result.engine_note}", file=err)
    return result


def _fail(err: TextIO, message: str, code: int = 2) -> int:
    print(f"retrograph: {message}", file=err)
    return code


def _clip(text: str, limit: int = 1000) -> str:
    """Long enough for a whole sentence of advice; a huge message (a value's repr) is cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def one_line(exc: BaseException) -> str:
    """An exception as one short line: its type and its message, whitespace folded."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {_clip(text)}" if text else type(exc).__name__


def _run_input(args: argparse.Namespace, loaded: Any, err: TextIO) -> tuple[Any, int | None]:
    """The run's input (a Command(resume=...) for --resume), or an exit code after an error."""
    if args.resume is not None:
        from engine import Command

        if args.input is not None:
            return None, _fail(err, "--input and --resume exclude each other: --resume answers a pending "
                                    "interrupt, --input starts a new run")
        if not args.thread:
            return None, _fail(err, "--resume needs --thread ID: the thread whose interrupt it answers")
        if not args.resume.strip():
            return None, _fail(err, "--resume needs a JSON value, e.g. --resume '\"yes\"' or --resume true")
        value, problem = parse_json_input(args.resume)
        if problem:
            return None, _fail(err, f"--resume: {problem}")
        return Command(resume=value), None
    value, problem = parse_json_input(args.input)
    if problem:
        return None, _fail(err, problem)
    if value is None:
        value = loaded.example_input
    if value is None:
        return None, _fail(err, "no input: pass --input JSON (the file defines no example_input)")
    return value, None


def _with_db(graph: Any, db: str | None, err: TextIO) -> tuple[Any, int | None]:
    """The graph saving to `--db` (a SQLite file or a PostgreSQL URL), or the exit code of
    a database that cannot be opened."""
    if not db:
        return graph, None
    from engine.checkpoint import PostgresSaver, SqliteSaver
    from engine.checkpoint.reading import is_postgres_url

    try:
        return graph.with_checkpointer(PostgresSaver(db) if is_postgres_url(db) else SqliteSaver(db)), None
    except Exception as exc:
        from engine.checkpoint.reading import describe_target  # a URL's password is not printed

        return graph, _fail(err, f"cannot open --db {describe_target(db)}: {one_line(exc)}")


def cmd_run(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Run the graph to the end (or an interrupt) and print one JSON line per stream chunk.

    Exit 0 when it finished or paused at an interrupt (said on stderr, with the command
    that answers it), 1 when the run failed, 2 for a bad command line or graph file.
    Every error is one line on stderr (`--traceback` adds the traceback)."""
    loaded = _load(args.graph, err)
    if loaded is None:
        return 2
    value, code = _run_input(args, loaded, err)
    if code is not None:
        return code
    graph, code = _with_db(loaded.graph, args.db, err)
    if code is not None:
        return code
    if args.resume is not None and graph.checkpointer is None:
        return _fail(err, "--resume needs --db FILE: the database the interrupted run was saved in")
    thread = args.thread
    if thread is None and graph.checkpointer is not None:
        from studio.core.loader import new_thread_id

        thread = new_thread_id(loaded.path.stem)
    from .runconfig import run_call

    call, problem = run_call(args, loaded, graph, thread, err)
    if call is None:
        return _fail(err, problem or "bad run settings")
    if thread and not args.thread:
        print(f"retrograph: thread {thread}", file=err)
    config = call.config
    code = _check_pending(graph, config, thread, err) if args.resume is not None else None
    if code is not None:
        return code
    modes, code = _stream_modes(args.stream_mode, err)
    if code is not None:
        return code
    asked: Any = modes[0] if len(modes) == 1 else modes
    watch = modes if "events" in modes else [*modes, "events"]
    seen: dict[str, Any] = {}
    explainer = explaining(graph, out) if args.explain else None

    def show(mode: str, chunk: Any) -> None:
        if mode == "events":
            _watch_event(chunk, seen)
            if explainer is not None:
                explainer(chunk)
            if "events" not in modes:
                return
        if explainer is not None:
            return
        printed = chunk if isinstance(asked, str) else [mode, chunk]
        out.write(json.dumps(jsonable(printed), ensure_ascii=False) + "\n")
        out.flush()

    async def drive() -> None:
        async for mode, chunk in graph.astream(value, config or None, stream_mode=watch, context=call.context,
                                               durability=call.durability):
            show(mode, chunk)

    try:
        asyncio.run(drive())
    except (Exception, SystemExit) as exc:  # a node's sys.exit() is the run's failure; a KeyboardInterrupt
        # (Ctrl+C, or a node raising it: the same thing seen from here) goes on to __main__'s one line, exit 130
        if explainer is not None:
            explain_unfinished(explainer, out, "failed")
        return _say_failed(exc, seen.get("failed"), args.traceback, err)
    if explainer is not None and seen.get("interrupted"):
        explain_unfinished(explainer, out, "was interrupted")
    if seen.get("interrupted"):
        _say_interrupted(seen["interrupted"], args, thread, graph.checkpointer is not None, err)
    return 0


def _check_pending(graph: Any, config: Any, thread: str | None, err: TextIO) -> int | None:
    """--resume answers an interrupt: None when the thread has one pending, else the exit code."""
    try:
        pending = graph.get_state(config).interrupts
    except Exception as exc:
        return _fail(err, f"cannot read thread {thread}: {one_line(exc)}", 1)
    if not pending:
        return _fail(err, f"thread {thread} has no pending interrupt to answer; run it with --input instead", 1)
    return None


def _stream_modes(text: str, err: TextIO) -> tuple[list[str], int | None]:
    """The modes --stream-mode names, or the exit code of a bad value (said on stderr)."""
    modes = [m.strip() for m in text.split(",") if m.strip()]
    if not modes:
        return modes, _fail(err, "--stream-mode is empty: name one or more modes, e.g. updates,values")
    from engine.runtime import STREAM_MODES

    unknown = [m for m in modes if m not in STREAM_MODES]
    if unknown:
        return modes, _fail(err, f"unknown --stream-mode {', '.join(unknown)}: use {', '.join(STREAM_MODES)}")
    return modes, None


def _say_failed(exc: BaseException, failed: str | None, traceback: bool, err: TextIO) -> int:
    """The one line of a failed run (the traceback too with --traceback); exit code 1."""
    if traceback:
        import traceback as tb

        tb.print_exception(exc, file=err)
    from engine import START

    text, verb = one_line(exc), "raised "
    if failed == START:
        return _fail(err, f"the input was refused: {text}", 1)
    if isinstance(exc, SystemExit):
        verb, text = "", f"called sys.exit({exc.code!r})"
    where = f"node `{failed}` {verb}" if failed and f"`{failed}`" not in text else ""
    return _fail(err, f"the run failed: {where}{text}", 1)


def explaining(graph: Any, out: TextIO) -> Any:
    """An Explainer that prints each superstep to `out` as it commits (`--explain`)."""
    from engine.explain import Explainer, format_step

    def show(step: Any) -> None:
        out.write(format_step(step) + "\n")
        out.flush()

    return Explainer(graph, on_commit=show)


def explain_unfinished(explainer: Any, out: TextIO, status: str) -> None:
    """The superstep a run stopped in (an interrupt, an error): its plan and pending writes."""
    from engine.explain import format_step

    if explainer.current is not None:
        out.write(format_step(explainer.current, status=status) + "\n")
        out.flush()


def _watch_event(event: Any, seen: dict[str, Any]) -> None:
    """Remember what the summary line needs: the node that failed, the interrupt."""
    from engine.runtime import RunInterrupted, TaskFailed

    if event.namespace:
        return
    if isinstance(event, TaskFailed):
        seen.setdefault("failed", event.name)
    elif isinstance(event, RunInterrupted):
        seen["interrupted"] = event


def _say_interrupted(event: Any, args: argparse.Namespace, thread: str | None, saved: bool, err: TextIO) -> None:
    nodes = ", ".join(event.nodes)
    if event.reason != "interrupt":
        print(f"retrograph: paused {event.reason} {nodes} (a breakpoint)", file=err)
        return
    shown = "; ".join(json.dumps(jsonable(i.value), ensure_ascii=False)[:200] for i in event.interrupts)
    print(f"retrograph: interrupted in {nodes}: {shown}", file=err)
    if saved and thread:
        from engine.checkpoint.reading import describe_target

        shown_db = describe_target(args.db) if args.db else ""
        db = f" --db {shown_db}" if args.db else ""
        hidden = " (put the URL's password back where it says ***)" if shown_db != (args.db or "") else ""
        print(f"retrograph: answer it with: retrograph run {args.graph}{db} --thread {thread} --resume JSON{hidden}",
              file=err)
    else:
        print("retrograph: nothing was saved, so it cannot be resumed: pass --db FILE to keep the thread", file=err)


def cmd_draw(args: argparse.Namespace, err: TextIO = sys.stderr) -> int:
    """Write the graph as SVG, PNG (graphviz), DOT or Mermaid, chosen by the file's suffix."""
    loaded = _load(args.graph, err)
    if loaded is None:
        return 2
    out = Path(args.output)
    suffix = out.suffix.lower()
    drawable = loaded.graph.get_graph()
    try:
        if suffix in (".mmd", ".mermaid"):
            out.write_text(drawable.to_mermaid(), encoding="utf-8")
        elif suffix in (".dot", ".gv"):
            out.write_text(drawable.to_dot(), encoding="utf-8")
        elif suffix == ".png":
            out.write_bytes(drawable.draw_png())
        elif suffix == ".svg":
            svg = drawable.draw_svg()
            out.write_bytes(svg if isinstance(svg, bytes) else svg.encode("utf-8"))
        else:
            print(f"retrograph: cannot draw to {out.name}: use .svg, .png, .dot or .mmd", file=err)
            return 2
    except ImportError as exc:
        print(f"retrograph: drawing {suffix} needs pygraphviz: {exc}", file=err)
        return 1
    except OSError as exc:  # a missing folder, a read-only one, a directory named like the file
        reason = exc.strerror or one_line(exc)
        return _fail(err, f"cannot write {out}: {reason}; check that its folder exists and is writable")
    return 0

"""Import a user's graph file and find the graph in it, reporting every failure as data.

`load_graph("path/to/graph.py")` or `load_graph("path/to/graph.py:name")` returns either
a `LoadedGraph` or a `LoadError`; it never raises for anything the user's file does.
Qt-free, so the headless `retrograph run` and `draw` commands use it too.
Opening a graph file runs its code, exactly as `python file.py` would.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import sys
import traceback
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["LoadedGraph", "LoadError", "load_graph", "parse_spec", "new_thread_id", "PREFERRED_NAMES"]

PREFERRED_NAMES = ("graph", "app")
"""Module-level names picked, in this order, when a file holds several graphs."""

_OURS: set[str] = set()
"""Module names this loader put in sys.modules (a reload may replace them)."""


def new_thread_id(stem: str = "run") -> str:
    """A readable, unique thread id for a graph file's new run: `<stem>-<date>-<time>-<4 hex>`."""
    return f"{stem}-{datetime.now():%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:4]}"


def _module_name(path: Path) -> str:
    """The file's stem, as `import stem` would name it, so the names of its classes stored
    in checkpoints stay the same across reloads and match a script that imports the file;
    a prefixed name when the stem is taken by another module (`json.py`, `engine.py`...)."""
    stem = path.stem
    if stem.isidentifier() and (stem not in sys.modules or stem in _OURS):
        name = stem
    else:
        name = f"retrograph_user_{stem}"
    _OURS.add(name)
    return name


@dataclass(frozen=True, kw_only=True)
class LoadedGraph:
    """A graph found in a file: `graph` is compiled (a builder found in the file is compiled)."""

    path: Path
    name: str
    graph: Any
    module: ModuleType
    compiled_from_builder: bool = False
    example_input: Any = None
    """The module's `example_input`, when it defines one: the default input of a new run."""
    others: tuple[str, ...] = ()
    """Other graph names in the file (ignored because `name` was preferred)."""
    uses_langgraph: bool = False
    """The file imports `langgraph`: those imports ran on Retrograph's engine (engine.compat)."""

    @property
    def engine_note(self) -> str:
        """What the window and the CLI say about a LangGraph app ("" for an engine one)."""
        return (f"{self.path.name}'s `langgraph` imports run on Retrograph's engine"
                if self.uses_langgraph else "")

    @property
    def spec(self) -> str:
        return f"{self.path}:{self.name}"


@dataclass(frozen=True, kw_only=True)
class LoadError:
    """Why a file gave no graph: `kind` is one of not_found, syntax, import, no_graph,
    ambiguous, not_a_graph, compile."""

    kind: str
    message: str
    path: Path | None = None
    line: int | None = None
    detail: str = ""
    """The traceback or the list of names found, for an expandable details box."""
    found: tuple[str, ...] = field(default_factory=tuple)

    @property
    def title(self) -> str:
        return {
            "not_found": "Graph file not found",
            "syntax": "Syntax error in the graph file",
            "import": "The graph file raised while importing",
            "no_graph": "No graph in the file",
            "ambiguous": "Several graphs in the file",
            "not_a_graph": "Not a graph",
            "compile": "The graph does not compile",
        }.get(self.kind, "Could not load the graph")


def parse_spec(spec: str) -> tuple[Path, str | None]:
    """`file.py:name` -> (path, name); a Windows drive colon is not a name separator."""
    text = str(spec)
    head, sep, tail = text.rpartition(":")
    if sep and tail and "/" not in tail and "\\" not in tail and not tail.endswith(".py") and len(head) > 1:
        return Path(head).expanduser(), tail
    return Path(text).expanduser(), None


def _is_compiled(value: Any) -> bool:
    from engine import CompiledStateGraph

    return isinstance(value, CompiledStateGraph)


def _is_builder(value: Any) -> bool:
    from engine import StateGraph

    return isinstance(value, StateGraph)


def _user_frame(exc: BaseException, path: Path) -> int | None:
    """The deepest line of the user's file in the exception's traceback."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        try:
            if Path(frame.filename).resolve() == path:
                line = frame.lineno
        except OSError:
            continue
    return line


def _import(path: Path) -> ModuleType | LoadError:
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return LoadError(kind="not_found", path=path, message=f"cannot read {path}: {exc}")
    try:
        compile(source, str(path), "exec")
    except SyntaxError as exc:
        where = f"{path}:{exc.lineno}" if exc.lineno else str(path)
        text = (exc.text or "").rstrip()
        detail = f"{text}\n{' ' * max((exc.offset or 1) - 1, 0)}^" if text else ""
        return LoadError(kind="syntax", path=path, line=exc.lineno, detail=detail,
                         message=f"{where}: {exc.msg}")
    module_name = _module_name(path)
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        return LoadError(kind="import", path=path, message=f"{path} is not an importable Python file")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.parent)
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    sys.modules[module_name] = module  # dataclasses and get_type_hints look the module up
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # the user's code may raise anything, SystemExit included
        sys.modules.pop(module_name, None)
        if isinstance(exc, KeyboardInterrupt):
            raise
        line = _user_frame(exc, path)
        where = f"{path}:{line}" if line else str(path)
        return LoadError(kind="import", path=path, line=line,
                         message=f"{where}: {type(exc).__name__}: {exc}",
                         detail="".join(traceback.format_exception(exc)))
    finally:
        if added:
            try:
                sys.path.remove(folder)
            except ValueError:
                pass
    return module


def _compile_builder(builder: Any, path: Path, name: str) -> Any | LoadError:
    try:
        return builder.compile()
    except Exception as exc:
        return LoadError(kind="compile", path=path, message=f"{path}:{name}: {exc}",
                         detail="".join(traceback.format_exception(exc)))


def _candidates(module: ModuleType) -> tuple[list[str], list[str]]:
    """Names of compiled graphs and of builders in the module, first binding of each object."""
    compiled: list[str] = []
    builders: list[str] = []
    seen: set[int] = set()
    for name, value in vars(module).items():
        if name.startswith("__") or id(value) in seen:
            continue
        if _is_compiled(value):
            compiled.append(name)
            seen.add(id(value))
        elif _is_builder(value):
            builders.append(name)
            seen.add(id(value))
    return compiled, builders


def _pick(names: list[str]) -> str | None:
    if len(names) == 1:
        return names[0]
    for preferred in PREFERRED_NAMES:
        if preferred in names:
            return preferred
    return None


_MAX_SOURCE_BYTES = 20 * 1024 * 1024


def _not_source(path: Path) -> str:
    """Why `path` cannot be a graph file ("" when it can be read as one)."""
    try:
        if path.is_dir():
            return "is a folder; give the graph's Python file (FILE.py or FILE.py:NAME)"
        if not path.is_file():
            return "is not a regular file (a device or a pipe); give the graph's Python file"
        size = path.stat().st_size
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    if size > _MAX_SOURCE_BYTES:
        return (f"is {size / 1024 / 1024:,.0f} MB, too big for Python source (the limit is "
                f"{_MAX_SOURCE_BYTES // 1024 // 1024} MB); is it the right file?")
    return ""


def load_graph(spec: str | Path) -> LoadedGraph | LoadError:
    """Import `file.py` (or `file.py:name`) and return its graph, or why there is none."""
    path, name = parse_spec(str(spec))
    if not path.exists():
        file, colon, rest = str(spec).partition(":")
        if colon and file.endswith(".py") and Path(file).expanduser().is_file():  # `app.py:` or `app.py:a:b`
            what = "nothing follows the colon" if not rest else f"`{rest}` is not one graph name"
            return LoadError(kind="not_found", path=path, message=(
                f"`{spec}`: {what}; write {file}:NAME (a graph defined at the file's top level) or {file} alone"))
        return LoadError(kind="not_found", path=path, message=f"{path}: no such file")
    problem = _not_source(path)
    if problem:  # /dev/zero or a pipe would be read forever, a huge file into memory
        return LoadError(kind="not_found", path=path, message=f"{path}: {problem}")
    path = path.resolve()
    from engine import compat

    compat.install()  # `import langgraph...` in the file is served by the engine
    module = _import(path)
    if isinstance(module, LoadError):
        return module
    example_input = getattr(module, "example_input", None)
    result = _find(module, path, name, example_input)
    if isinstance(result, LoadedGraph) and compat.imports_langgraph(path):
        result = dataclasses.replace(result, uses_langgraph=True)
    return result


def _find(module: ModuleType, path: Path, name: str | None, example_input: Any) -> LoadedGraph | LoadError:
    compiled, builders = _candidates(module)
    if name is not None:
        if not hasattr(module, name):
            found = tuple(compiled + builders)
            listed = ", ".join(f"`{n}`" for n in found) or "none"
            return LoadError(kind="no_graph", path=path, found=found,
                             message=f"{path} has no `{name}` (graphs in the file: {listed})")
        value = getattr(module, name)
        if _is_compiled(value):
            return LoadedGraph(path=path, name=name, graph=value, module=module, example_input=example_input)
        if _is_builder(value):
            graph = _compile_builder(value, path, name)
            if isinstance(graph, LoadError):
                return graph
            return LoadedGraph(path=path, name=name, graph=graph, module=module,
                               compiled_from_builder=True, example_input=example_input)
        return LoadError(kind="not_a_graph", path=path,
                         message=f"{path}:{name} is a {type(value).__name__}, not a compiled graph or a StateGraph")
    pool, from_builder = (compiled, False) if compiled else (builders, True)
    if not pool:
        public = sorted(n for n in vars(module) if not n.startswith("_"))
        return LoadError(
            kind="no_graph", path=path, detail="Names in the file: " + ", ".join(public),
            message=f"{path} defines no graph: assign a compiled graph (`graph = builder.compile()`) "
                    "or a StateGraph at module level, or name one as FILE.py:NAME",
        )
    chosen = _pick(pool)
    if chosen is None:
        listed = ", ".join(f"`{n}`" for n in pool)
        return LoadError(kind="ambiguous", path=path, found=tuple(pool),
                         message=f"{path} holds several graphs ({listed}): name one as {path.name}:NAME")
    value = getattr(module, chosen)
    if from_builder:
        value = _compile_builder(value, path, chosen)
        if isinstance(value, LoadError):
            return value
    return LoadedGraph(path=path, name=chosen, graph=value, module=module, compiled_from_builder=from_builder,
                       example_input=example_input, others=tuple(n for n in pool if n != chosen))

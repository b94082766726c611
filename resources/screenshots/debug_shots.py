"""Re-render the README's debugging screenshots (offscreen), from the repository root:
    QT_QPA_PLATFORM=offscreen python resources/screenshots/debug_shots.py [OUT_DIR]

The ReAct example is run once in the window (F5), then each shot drives the Debug dock as a
user would: watches, field history, a recorded replay from the first checkpoint with
`agent` answered from the recording, a search over both branches, and a conditional
breakpoint on a new run.
"""
from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSize, Qt

from studio.cli.launch import make_app, make_loop
from studio.session.session import Session
from studio.window.docks import apply_default_sizes
from studio.window.main_window import MainWindow

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "resources" / "examples" / "react_agent.py"


async def until(predicate, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("the window did not settle")
        await asyncio.sleep(0.05)


async def settle(window: MainWindow) -> None:
    await window.when_settled()
    tools = window.debug_tools
    await until(lambda: not tools.pending and not tools._refresh.isActive() and not tools._marks.isActive())
    await window.when_settled()


async def command(window: MainWindow, start) -> None:
    done = asyncio.get_running_loop().create_future()

    def finished(name, result) -> None:
        if not done.done():
            done.set_result(result)

    window.session.commandFinished.connect(finished)
    start()
    await done
    window.session.commandFinished.disconnect(finished)
    await settle(window)


def shoot(window: MainWindow, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not window.grab().save(str(path)):
        raise SystemExit(f"could not write {path}")
    print(f"wrote {path}")


async def main(out: Path, db: Path) -> None:
    session = Session(db)
    window = MainWindow(session, remember_layout=False)
    window.open_graph(str(EXAMPLE))
    window.resize(QSize(1600, 1000))
    window.show()
    apply_default_sizes(window, window.docks)
    await window.when_ready()
    tools, panel = window.debug_tools, window.debug_tools.panel
    docks = window.docks  # narrower side columns and a taller bottom row: room for the Debug dock
    window.resizeDocks([docks.inspector, docks.state], [250, 330], Qt.Orientation.Horizontal)
    window.resizeDocks([docks.timeline], [430], Qt.Orientation.Vertical)
    window.resizeDocks([docks.timeline, docks.events], [390, 640], Qt.Orientation.Horizontal)
    await command(window, session.continue_run)

    tools.show_tab(0)
    for text in ("len(messages)", "messages[-1].type", "messages[-1].content"):
        tools.add_watch(text)
    await settle(window)
    shoot(window, out / "debug_watches.png")

    tools.show_tab(2)
    panel.field_edit.setText("messages[-1].content")
    tools.ask_field("messages[-1].content")
    await settle(window)
    shoot(window, out / "debug_field_history.png")

    first = min(session.history.rows(), key=lambda r: r.step).id
    await command(window, lambda: tools.replay(first, ["agent"]))
    tools.show_tab(0)
    await settle(window)
    shoot(window, out / "debug_replay.png")

    tools.show_tab(3)
    panel.search_edit.setText("18°C")
    tools.search("18°C", "text")
    await settle(window)
    shoot(window, out / "debug_search.png")

    # a conditional breakpoint on a new run: stop when `tools` changes the messages
    tools.show_tab(1)
    tools.add_condition("expression", "len(messages) >= 4", "", "after")
    session.restart()  # a new thread, the same input (not a command: it only opens the thread)
    await settle(window)
    await command(window, session.continue_run)
    shoot(window, out / "debug_breakpoint.png")
    window.close()


if __name__ == "__main__":
    out_dir = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "resources" / "screenshots")
    app = make_app()
    loop = make_loop(app)
    with tempfile.TemporaryDirectory() as tmp, loop:
        loop.run_until_complete(main(out_dir, Path(tmp) / "runs.sqlite"))

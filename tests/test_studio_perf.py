"""How long one node step takes to show with a 10,000-message state, as a user sees it:
F10, then every panel updated and painted. The number is printed (run with -s); the
assertion is a generous bound, since timing targets belong in `python -m tests.bench`."""
from __future__ import annotations

import statistics
import time
from pathlib import Path

from test_studio_support import (  # noqa: F401 (fixtures)
    act,
    open_window,
    settings,
    studio_loop,
    wait_ready,
    write_graph,
)

MESSAGES = 10_000

CHAT = f"""
from engine import AIMessage, HumanMessage, MessagesState

FILLER = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor"

def chat(state):
    return {{"messages": [AIMessage(content=f"reply {{len(state['messages'])}}: " + FILLER)]}}

def again(state):
    return "chat"

builder = StateGraph(MessagesState)
builder.add_node("chat", chat)
builder.add_edge(START, "chat")
builder.add_conditional_edges("chat", again, ["chat", END])
graph = builder.compile()
example_input = {{"messages": [HumanMessage(content=f"message {{i}}: " + FILLER) for i in range({MESSAGES})]}}
"""


def test_a_node_step_with_10k_messages_refreshes_every_panel_quickly(open_window, qtbot, tmp_path: Path) -> None:
    from PySide6.QtWidgets import QApplication

    window = open_window(write_graph(tmp_path, "chat10k", CHAT))
    window.resize(1600, 1000)
    s, panels = window.session, window.panels
    for _ in range(3):  # the input's superstep and two warm-up steps of the node
        act(qtbot, window, "step")
    times, cpu = [], []
    for _ in range(12):
        step = s.history.get(s.head_id).step + 1
        started, started_cpu = time.perf_counter(), time.process_time()
        with qtbot.waitSignal(s.commandFinished, timeout=20_000):
            window.actions.step.trigger()  # F10
        wait_ready(qtbot, window)
        QApplication.processEvents()  # the repaint of everything that changed
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        # what the user sees: every panel shows the new step
        assert panels.timeline.model.head == s.head_id and s.history.get(s.head_id).step == step
        assert panels.diff.title.text() == f"Step {step} · 1 key written"
        assert panels.state.title.text() == f"State · step {step}"
        assert panels.events.model.events[-1].kind == "commit"
        assert panels.events.model.events[-1].step == step
        assert panels.inspector.title.text() == "chat"
    shown = panels.state.model.index(0, 2).data()
    assert shown == f"list[{MESSAGES + step}]", shown
    median, median_cpu = statistics.median(times) * 1e3, statistics.median(cpu) * 1e3
    print(f"\none node step with {MESSAGES:,} messages, F10 to every panel painted: "
          f"median {median:.1f} ms wall ({median_cpu:.1f} ms CPU), max {max(times) * 1e3:.1f} ms")

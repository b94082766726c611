"""A branch started from step N starts with a "fork" row numbered N, whether a rewind or a
recorded replay made it, and its first step is N+1 (a real window, a real SQLite file)."""
from __future__ import annotations

from pathlib import Path

from test_debug_studio import LOOP, settle
from test_studio_support import (  # noqa: F401 (fixtures)
    act,
    open_window,
    run_command,
    settings,
    studio_loop,
    wait_ready,
    write_graph,
)


def _shown_steps(window, source: str) -> list[int]:
    """The Step column of the timeline's rows of `source`, top to bottom."""
    model = window.panels.timeline.model
    out = []
    for row in range(model.rowCount()):
        cp = model.checkpoint_at(row)
        if cp is not None and cp.source == source:
            out.append(int(model.index(row, 0).data()))
    return out


def test_a_replays_fork_row_keeps_step_n_as_a_rewinds_does(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "loop", LOOP))
    s = window.session
    act(qtbot, window, "continue_")
    start = next(r for r in s.history.rows() if r.step == 2 and r.source == "loop")
    before = {r.id for r in s.history.rows()}

    known = before
    run_command(qtbot, window, lambda: s.debugging.replay(start.id, ["think"]))
    settle(qtbot, window)
    result = s.debugging.last_replay
    assert result.status == "done", result.error
    replayed = s.history.get(result.fork_id)
    assert replayed is not None and result.fork_id not in known
    assert replayed.step == start.step  # not N+1: numbered as the rewind's fork
    first = next(st for st in result.steps)
    assert s.history.get(first.checkpoint_id).step == start.step + 1
    replayed_ids = {r.id for r in s.history.rows()} - before
    s.rewind(start.id)
    wait_ready(qtbot, window)
    act(qtbot, window, "step")  # the rewound branch: its fork copy, then step 3
    rewound = [r for r in s.history.rows() if r.id not in known and r.id not in replayed_ids]
    fork = next(r for r in rewound if r.source == "fork")
    assert fork.step == start.step and fork.parent_id == start.id
    assert [r.step for r in rewound if r.parent_id == fork.id] == [start.step + 1]

    assert _shown_steps(window, "fork") == [start.step, start.step]  # what the timeline says, both alike

"""The --do script language: drive the window as a user would, for screenshots and demos."""
from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import SignalInstance

__all__ = ["wait_signal", "run_script", "screenshot_after_steps"]


async def wait_signal(signal: SignalInstance, timeout_s: float = 30.0,
                      when: Callable[..., bool] | None = None) -> tuple[Any, ...]:
    """Await the next emission of a Qt signal (that satisfies `when`)."""
    fut: asyncio.Future[tuple[Any, ...]] = asyncio.get_running_loop().create_future()

    def slot(*args: Any) -> None:
        if not fut.done() and (when is None or when(*args)):
            fut.set_result(args)

    signal.connect(slot)
    try:
        return await asyncio.wait_for(fut, timeout_s)
    finally:
        signal.disconnect(slot)


async def _command(window: Any, start: Callable[[], Any]) -> Any:
    """Start a session command and wait for it to finish; its outcome (None if refused)."""
    session = window.session
    waiting = asyncio.ensure_future(wait_signal(session.commandFinished, 120.0))
    await asyncio.sleep(0)
    if start() is False:
        waiting.cancel()
        return None
    _, result = await waiting
    await window.when_ready()
    return result


def _on_branch(window: Any, step: int) -> str | None:
    """The checkpoint of `step` on the head's branch (the newest such)."""
    history = window.session.history
    for cid in history.ancestors(window.session.head_id):
        row = history.get(cid)
        if row is not None and row.step == step:
            return cid
    return None


def _words(script: str) -> list[tuple[str, str, str]]:
    """(word, name, argument) of a --do script; a JSON argument may hold spaces and commas."""
    words, i, decoder = [], 0, json.JSONDecoder()
    while i < len(script):
        if script[i] in " ,\t\n":
            i += 1
            continue
        end = i
        while end < len(script) and script[end] not in " ,\t\n:":
            end += 1
        name, arg = script[i:end], ""
        if end < len(script) and script[end] == ":":
            if name.partition("*")[0] in ("answer", "resume"):
                _, stop = decoder.raw_decode(script, end + 1)
            else:
                stop = end + 1
                while stop < len(script) and script[stop] not in " ,\t\n":
                    stop += 1
            arg, end = script[end + 1:stop], stop
        words.append((script[i:end], name, arg))
        i = end
    return words


async def run_script(window: Any, script: str) -> None:
    """Drive the window as a user would, for screenshots and demos. Words, run in order:
    step[*N] (F10), continue (F5), rewind:STEP, view:STEP (a checkpoint of the head's
    branch), select:NODE (inspect it), answer:JSON (type it as every interrupt's resume
    value), resume:JSON (answer and press Resume), legend; superstep (Shift+F10), and the
    teaching words (each shows the teaching bar): why (the Superstep panel in front), hover:NODE (the graph's caption says why NODE runs, or not yet),
    zoom:PERCENT, contrast, focus, scrub:INDEX (view that checkpoint of the branch, 0 = the
    first; negative counts from the end), play:N (autoplay until N steps ran; it keeps playing)."""
    session = window.session
    for word, name, arg in _words(script):
        name, _, times = name.partition("*")
        for _ in range(int(times or 1)):
            if name == "step":
                result = await _command(window, session.step)
                if result is None or isinstance(result, Exception) or session.status in ("done", "failed"):
                    break
            elif name == "continue":
                await _command(window, session.continue_run)
            elif name in ("rewind", "view"):
                target = _on_branch(window, int(arg))
                if target is None:
                    raise ValueError(f"--do {word}: no checkpoint of step {arg} on this branch")
                (session.rewind if name == "rewind" else session.select_checkpoint)(target)
                await window.when_ready()
            elif name == "select":
                session.select_node(arg)
            elif name in ("answer", "resume"):
                panel = window.panels.interrupts
                for card in panel.cards():
                    card.editor.setPlainText(arg)
                if name == "answer":
                    continue
                if not panel.resume_button.isEnabled():
                    raise ValueError(f"--do {word}: Resume is disabled ({panel.resume_button.toolTip()})")
                await _command(window, panel.resume_button.click)
            elif name == "legend":
                window.actions.legend.setChecked(True)
            elif name == "superstep":
                result = await _command(window, session.step_superstep)
                if result is None or isinstance(result, Exception) or session.status in ("done", "failed"):
                    break
            elif name in ("hover", "zoom", "contrast", "focus", "scrub", "play", "why"):
                await teach_word(window, name, arg)
            else:
                raise ValueError(f"--do: unknown word {word!r}")


async def teach_word(window: Any, name: str, arg: str) -> None:
    """The teaching words of `run_script`."""
    teaching = window.teaching
    teaching.toolbar.show()
    if name == "why":  # the Superstep panel in front of the Events panel
        teaching.show_superstep()
    elif name == "hover":
        window.panels.graph.show_hover(arg)
    elif name == "zoom":
        teaching.presentation.set_zoom(int(arg) / 100)
        teaching.show_zoom()
    elif name == "contrast":
        teaching.actions.high_contrast.setChecked(True)
    elif name == "focus":
        teaching.actions.focus.setChecked(True)
    elif name == "scrub":
        ids = teaching.scrubber.ids
        index = int(arg)
        if not ids or not -len(ids) <= index < len(ids):
            raise ValueError(f"--do scrub:{arg}: the branch has {len(ids)} checkpoints")
        teaching.scrubber.slider.setValue(index % len(ids))
        await window.when_ready()
    elif name == "play":
        steps = int(arg or 1)
        teaching.speed.setValue(10.0)
        teaching.actions.play.trigger()
        for _ in range(steps):
            if not teaching.autoplay.playing:
                break
            await wait_signal(window.session.commandFinished, 60.0)
        await window.when_ready()


async def screenshot_after_steps(window: Any, steps: int, path: str | Path, script: str = "") -> bool:
    """Take `steps` node steps (as F10 would), run `script` (see `run_script`), let every
    panel settle, save a PNG."""
    await window.when_ready()
    await run_script(window, f"step*{steps}" if steps > 0 else "")
    await run_script(window, script)
    await window.when_settled()
    image = window.grab()
    ok = image.save(str(path))
    return bool(ok)

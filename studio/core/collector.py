"""Python's cyclic garbage collector kept off a long history read in bulk.

Reading a 100,000-checkpoint history makes about a million objects that all live on (its
headers, rows, tuples and tree) and none of which forms a reference cycle. As the heap grew
that fast the collector ran a full pass over the whole heap again and again: five passes of
50-80 ms each while Home read 100,000 checkpoints, a quarter of the reader thread's time, all
of it holding the interpreter lock the UI thread waits for. A read done inside
`bulk_allocation()` runs no collection, and what it made is then set aside for good
(`gc.freeze()`): later passes, on whatever thread they run, never walk the history again.
Frozen objects are still freed by reference counting when the history is let go of; only
garbage with cycles among them waits for `let_go()` (a thread opened anew).
"""
from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

__all__ = ["bulk_allocation", "let_go"]

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextlib.contextmanager
def bulk_allocation() -> Iterator[None]:
    """No cyclic collection while the block runs, and what exists when the last block ends
    is frozen (reentrant, from any thread: the collector is enabled again when the last
    block ends, if it was enabled before the first began)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                gc.freeze()  # the young objects made here too: no pass will walk them
                if _was_enabled:
                    gc.enable()


def let_go() -> None:
    """Let the collector walk what `bulk_allocation` set aside again (another thread's
    history replaces the old one: cycles among the old objects can be collected)."""
    with _lock:
        if _depth == 0:
            gc.unfreeze()

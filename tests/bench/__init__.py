"""Retrograph's benchmark suite: the engine and LangGraph side by side, in one process.

`python -m tests.bench` (see `__main__.py` for the options). Workloads, one module each:
`superstep` (per-step overhead of a loop, three checkpointers), `fanout` (Send fan-out
and join), `storage` (SQLite file size of an append-only field), `history` (loading and
listing a 10,000-step thread, step cost against history length) and `studio` (offscreen
drawing, stepping and timeline, each in a child process).
"""

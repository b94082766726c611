"""`python -m tests.crash [--kills N] [--seed S] [--postgres] [--what runs|edits|stores|all]`:
the kill harnesses at full size, on SQLite files or (--postgres) on the engine's PostgreSQL
stores with a throwaway server. `runs`: a graph's runs (harness.py); `edits`: update_state
and forks (edits.py); `stores`: the long-term memory stores' batch() (stores.py);
`maintenance`: copy_thread, delete_for_runs and prune on the sync and async savers
(maintenance.py)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .edits import run_edit_harness
from .harness import HarnessFailure, run_harness
from .maintenance import run_maintenance_harness
from .stores import run_store_harness


def _one(what: str, kills: int, seed: int | None, server: Any, progress: Any) -> str:
    if what == "runs":
        new_db = (lambda _name: server.url()) if server is not None else None
        return run_harness(kills, seed, progress=progress, new_db=new_db).summary()
    if what == "edits":
        new_db = (lambda _name: server.url()) if server is not None else None
        return run_edit_harness(kills, seed, progress=progress, new_db=new_db).summary()
    if what == "maintenance":
        kinds = ("postgres", "postgres-async") if server is not None else ("sqlite", "sqlite-async")
        new = server.url if server is not None else None
        return "\n".join(run_maintenance_harness(k, kills, seed, new_db=new).summary() for k in kinds)
    return run_store_harness(kills, seed, new_db=server.url if server is not None else None).summary()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.crash", description=__doc__)
    parser.add_argument("--kills", type=int, default=200, help="kill points to reach (default 200)")
    parser.add_argument("--seed", type=int, default=None, help="RNG seed (default: random, printed)")
    parser.add_argument("--quiet", action="store_true", help="print only the result")
    parser.add_argument("--postgres", action="store_true",
                        help="kill runs on the engine's PostgreSQL stores (a throwaway server, tests/pg_server.py)")
    parser.add_argument("--what", choices=("runs", "edits", "stores", "maintenance", "all"), default="runs",
                        help="which harness (default runs)")
    args = parser.parse_args(argv)
    progress = None if args.quiet else (lambda line: print(line, flush=True))
    server = None
    if args.postgres:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from pg_server import PgUnavailable, start

        try:
            server = start()
        except PgUnavailable as e:
            print(f"no PostgreSQL server: {e}", file=sys.stderr)
            return 2
    try:
        for what in ("runs", "edits", "stores", "maintenance") if args.what == "all" else (args.what,):
            print(_one(what, args.kills, args.seed, server, progress), flush=True)
    except HarnessFailure as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        return 1
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

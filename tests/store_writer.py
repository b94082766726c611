"""A child process for the store kill test: writes numbered batches to a store for ever,
printing each batch's number once `batch()` has returned (committed).

    python store_writer.py sqlite PATH START | python store_writer.py postgres URL START
Batch i puts ITEMS items under ("kill", "b<i>") and sets ("kill",)/"last" to i.
"""
from __future__ import annotations

import sys

from engine.store import PostgresStore, PutOp, SqliteStore

ITEMS = 5


def main() -> None:
    kind, target, start = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = SqliteStore(target) if kind == "sqlite" else PostgresStore(target)
    store.setup()
    i = start
    while True:
        ops = [PutOp(("kill", f"b{i}"), f"item{j}", {"batch": i, "n": j, "pad": "x" * 2000}) for j in range(ITEMS)]
        ops.append(PutOp(("kill",), "last", {"batch": i}))
        store.batch(ops)
        print(i, flush=True)
        i += 1


if __name__ == "__main__":
    main()

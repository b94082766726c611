"""Every store kind the contract suite runs on, sync and async, behind one calling style.

`store_factory` (a fixture; import it into a test module) is parametrised over
memory / sqlite (a real file) / postgres (the session's real server), each called through
its sync methods or its async ones (`Awaited` runs `aget` & co. on a loop of its own and
answers plainly), so one test body checks all six.
"""
from __future__ import annotations

import asyncio
import hashlib
import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings

from engine.store import (
    AsyncPostgresStore,
    AsyncSqliteStore,
    InMemoryStore,
    PostgresStore,
    SqliteStore,
)

KINDS = ["memory", "sqlite", "postgres"]
MODES = ["sync", "async"]

_ASYNC_NAMES = {"get", "put", "delete", "search", "list_namespaces", "batch"}


class Awaited:
    """A store called through its coroutines, on a private event loop, answering plainly."""

    def __init__(self, store: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.store, self.loop = store, loop

    def __getattr__(self, name: str) -> Any:
        if name in _ASYNC_NAMES:
            method = getattr(self.store, "a" + name)
            return lambda *a, **k: self.loop.run_until_complete(method(*a, **k))
        if name == "sweep_ttl":
            method = getattr(self.store, "asweep_ttl", None) or self.store.sweep_ttl
            return lambda: self._answer(method())
        return getattr(self.store, name)

    def _answer(self, value: Any) -> Any:
        return self.loop.run_until_complete(value) if asyncio.iscoroutine(value) else value


class WordEmbeddings(Embeddings):
    """A real langchain-core `Embeddings`: each word hashed to one of `dims` axes, counts
    normalised; texts sharing words are near, others far. Counts its calls."""

    def __init__(self, dims: int = 64) -> None:
        self.dims, self.calls, self.texts = dims, 0, 0

    def _one(self, text: str) -> list[float]:
        vec = [0.0] * self.dims
        for word in text.lower().split():
            vec[int(hashlib.sha1(word.encode()).hexdigest(), 16) % self.dims] += 1.0
        norm = math.sqrt(sum(x * x for x in vec)) or 1.0
        return [x / norm for x in vec]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        self.texts += len(texts)
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)


Factory = Callable[..., Any]


def _open(kind: str, mode: str, tmp_path: Any, pg_url: Callable[[], str], loop: asyncio.AbstractEventLoop,
          kwargs: dict[str, Any]) -> tuple[Any, Callable[[], None]]:
    if kind == "memory":
        store = InMemoryStore(**kwargs)
        return (Awaited(store, loop) if mode == "async" else store), store.stop_ttl_sweeper
    if kind == "sqlite":
        path = tmp_path / f"store-{id(kwargs)}.db"
        if mode == "async":
            astore = AsyncSqliteStore(str(path), **kwargs)
            loop.run_until_complete(astore.setup())
            return Awaited(astore, loop), lambda: loop.run_until_complete(astore.aclose())
        sstore = SqliteStore(str(path), **kwargs)
        sstore.setup()
        return sstore, sstore.close
    url = pg_url()
    if mode == "async":
        apg = AsyncPostgresStore(url, **kwargs)
        loop.run_until_complete(apg.setup())
        return Awaited(apg, loop), lambda: loop.run_until_complete(apg.aclose())
    pg = PostgresStore(url, **kwargs)
    pg.setup()
    return pg, pg.close


@pytest.fixture(params=[(k, m) for k in KINDS for m in MODES], ids=lambda p: f"{p[0]}-{p[1]}")
def store_factory(request: Any, tmp_path: Any) -> Iterator[Factory]:
    """`store_factory(index=..., ttl=...)` -> a set-up store of this kind, closed at the end."""
    kind, mode = request.param
    pg_url: Callable[[], str] = lambda: ""  # noqa: E731
    if kind == "postgres":
        server = request.getfixturevalue("pg_server")
        pg_url = server.url
    loop = asyncio.new_event_loop()
    closers: list[Callable[[], None]] = []

    def make(**kwargs: Any) -> Any:
        store, close = _open(kind, mode, tmp_path, pg_url, loop, kwargs)
        closers.append(close)
        return store

    make.kind = kind  # type: ignore[attr-defined]
    make.mode = mode  # type: ignore[attr-defined]
    try:
        yield make
    finally:
        for close in reversed(closers):
            close()
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()

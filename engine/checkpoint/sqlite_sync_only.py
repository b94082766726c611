"""What `SqliteSaver` says to an awaited LangGraph read, as LangGraph's does: `aget`,
`aget_tuple` and `alist` raise NotImplementedError pointing at `AsyncSqliteSaver`, the
saver for async code (`AsyncSqliteSaver` has them back). The run itself never calls
them: an async run on a `SqliteSaver` goes through the engine's own protocol."""
from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

__all__ = ["SyncOnlyReads", "aio_error"]


def aio_error(saver: Any, method: str) -> NotImplementedError:
    return NotImplementedError(
        f"{type(saver).__name__}.{method}: the sync SqliteSaver has no async reads; use AsyncSqliteSaver "
        "(`from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver`; "
        "`async with AsyncSqliteSaver.from_conn_string(path) as saver:`), or call the sync method")


class SyncOnlyReads:
    """aget, aget_tuple, alist: NotImplementedError naming AsyncSqliteSaver."""

    async def aget_tuple(self, config: Mapping[str, Any]) -> Any:
        raise aio_error(self, "aget_tuple")

    async def aget(self, config: Mapping[str, Any]) -> Any:
        raise aio_error(self, "aget")

    async def alist(self, config: Mapping[str, Any] | None, *, filter: Mapping[str, Any] | None = None,
                    before: Mapping[str, Any] | None = None, limit: int | None = None) -> AsyncIterator[Any]:
        raise aio_error(self, "alist")
        yield  # an async generator, as LangGraph's alist

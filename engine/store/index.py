"""A store's semantic index: which texts of an item are embedded, and the embedding calls.

Every store embeds a batch's puts in one call before it writes anything, so an
embeddings function that raises (or answers the wrong shape) leaves the store as it was.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .embed import EmbeddingError, checked_vectors, ensure_embeddings, get_text_at_path, tokenize_path
from .ops import PutOp

__all__ = ["Index", "make_index", "EmbeddingError"]

Texts = list[tuple[int, str, str]]
"""(position of the put in its batch, field path, text) for each text to embed."""


class Index:
    """`dims`, the embeddings object and the field paths (default "$": the whole value)."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        if not isinstance(config, Mapping) or "dims" not in config:
            raise ValueError("index= is a dict such as {'dims': 1536, 'embed': my_embed, 'fields': ['text']}")
        dims = config["dims"]
        if not isinstance(dims, int) or isinstance(dims, bool) or dims <= 0:
            raise ValueError(f"index dims={dims!r}: a positive number of vector dimensions")
        self.dims = dims
        self.embeddings = ensure_embeddings(config.get("embed"))
        self.fields: list[str] = list(config.get("fields") or ["$"])
        self.config: dict[str, Any] = {**config, "embed": config.get("embed"), "fields": self.fields}

    def texts(self, ops: Sequence[PutOp]) -> Texts:
        """The texts the puts contribute (none for deletes and `index=False`)."""
        out: Texts = []
        for i, op in enumerate(ops):
            if op.value is None or op.index is False:
                continue
            for path in (self.fields if op.index is None else list(op.index)):
                for text in get_text_at_path(dict(op.value), tokenize_path(path)):
                    out.append((i, path, text))
        return out

    def _failed(self, exc: Exception, what: str = "nothing was written") -> EmbeddingError:
        return EmbeddingError(f"the index's embeddings ({self.embeddings!r:.60}) raised "
                              f"{type(exc).__name__}: {exc}; {what}")

    def embed(self, texts: Texts) -> list[list[float]]:
        if not texts:
            return []
        try:
            vectors = self.embeddings.embed_documents([t for _, _, t in texts])
        except Exception as exc:
            raise self._failed(exc) from exc
        return checked_vectors(vectors, len(texts), self.dims)

    async def aembed(self, texts: Texts) -> list[list[float]]:
        if not texts:
            return []
        try:
            vectors = await self.embeddings.aembed_documents([t for _, _, t in texts])
        except Exception as exc:
            raise self._failed(exc) from exc
        return checked_vectors(vectors, len(texts), self.dims)

    def embed_query(self, query: str) -> list[float]:
        try:
            vector = self.embeddings.embed_query(query)
        except Exception as exc:
            raise self._failed(exc, f"cannot search for {query!r:.40}") from exc
        return checked_vectors([vector], 1, self.dims)[0]

    async def aembed_query(self, query: str) -> list[float]:
        try:
            vector = await self.embeddings.aembed_query(query)
        except Exception as exc:
            raise self._failed(exc, f"cannot search for {query!r:.40}") from exc
        return checked_vectors([vector], 1, self.dims)[0]


def make_index(config: Mapping[str, Any] | None) -> Index | None:
    return Index(config) if config is not None else None

"""Embeddings for a store's semantic index: the user's function or `Embeddings` object,
the text an item contributes (paths into its value), and cosine similarity.

An embeddings object is anything with `embed_documents(texts)` and `embed_query(text)`
(langchain-core's `Embeddings` is one); a plain function `texts -> vectors`, sync or
async, is wrapped. Nothing here imports langchain-core.
"""
from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

__all__ = ["Embeddings", "EmbeddingsFunction", "ensure_embeddings", "tokenize_path", "get_text_at_path",
           "cosine", "EmbeddingError"]


class EmbeddingError(RuntimeError):
    """The embeddings function raised or answered something that is not one vector per text."""


class Embeddings:
    """The interface a store calls: documents in a batch, one query; async twins run the
    sync methods in a worker thread unless a subclass does better."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise NotImplementedError

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        return (await self.aembed_documents([text]))[0]


class EmbeddingsFunction(Embeddings):
    """A user's function `list[str] -> list[list[float]]` (sync, async, or one of each)."""

    def __init__(self, func: Callable[[list[str]], Any] | None,
                 afunc: Callable[[list[str]], Awaitable[Any]] | None = None) -> None:
        if func is not None and asyncio.iscoroutinefunction(func):
            func, afunc = None, func
        self.func, self.afunc = func, afunc

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if self.func is None:
            raise ValueError("this store's embeddings function is async: use the store's async methods "
                             "(aput, asearch), or give a sync function too")
        return list(self.func(texts))

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        if self.afunc is not None:
            return list(await self.afunc(texts))
        return await super().aembed_documents(texts)

    def __repr__(self) -> str:
        return f"EmbeddingsFunction({getattr(self.func or self.afunc, '__name__', '?')})"


def ensure_embeddings(embed: Any, *, aembed: Callable[[list[str]], Awaitable[Any]] | None = None) -> Any:
    """An object with `embed_documents`/`embed_query` (returned as is) from what a user gave."""
    if embed is None and aembed is None:
        raise ValueError("an index needs an embeddings function: index={'dims': N, 'embed': my_embed}")
    if embed is not None and hasattr(embed, "embed_documents") and hasattr(embed, "embed_query"):
        return embed
    if isinstance(embed, str):
        raise ValueError(f"index embed={embed!r}: a model name is not supported by Retrograph; "
                         "pass an embeddings object or a function texts -> vectors")
    if embed is not None and not callable(embed):
        raise TypeError(f"index embed={embed!r:.60}: not an embeddings object nor a function texts -> vectors")
    return EmbeddingsFunction(embed, aembed)


def checked_vectors(vectors: Any, count: int, dims: int | None) -> list[list[float]]:
    """The answer of an embeddings call, checked: `count` vectors of `dims` floats."""
    try:
        out = [[float(x) for x in v] for v in vectors]
    except (TypeError, ValueError) as exc:
        raise EmbeddingError(f"the embeddings function returned something that is not a list of vectors: {exc}") from exc
    if len(out) != count:
        raise EmbeddingError(f"the embeddings function returned {len(out)} vectors for {count} texts")
    if dims is not None and any(len(v) != dims for v in out):
        bad = next(len(v) for v in out if len(v) != dims)
        raise EmbeddingError(f"the embeddings function returned a vector of {bad} numbers; the index says dims={dims}")
    return out


def tokenize_path(path: str) -> list[str]:
    """"a.b[0].{c,d}" -> ["a", "b", "[0]", "{c,d}"]: dots split outside brackets and braces."""
    if not path:
        return []
    tokens: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in path:
        if ch in "[{":
            if ch == "[" and depth == 0 and cur:
                tokens.append("".join(cur))
                cur = []
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "." and depth == 0:
            if cur:
                tokens.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
        if ch == "]" and depth == 0:
            tokens.append("".join(cur))
            cur = []
    if cur:
        tokens.append("".join(cur))
    return tokens


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return str(value)


def _step(obj: Any, token: str) -> list[Any]:
    """The values one path token reaches from `obj` (none when it does not apply)."""
    if token.startswith("[") and token.endswith("]"):
        inner = token[1:-1]
        if not isinstance(obj, list):
            return []
        if inner == "*":
            return list(obj)
        try:
            index = int(inner)
        except ValueError:
            return []
        return [obj[index]] if -len(obj) <= index < len(obj) else []
    if token.startswith("{") and token.endswith("}"):
        out: list[Any] = []
        for sub in token[1:-1].split(","):
            out.extend(_walk(obj, tokenize_path(sub.strip())))
        return out
    if token == "*":
        if isinstance(obj, dict):
            return list(obj.values())
        return list(obj) if isinstance(obj, list) else []
    if isinstance(obj, dict) and token in obj:
        return [obj[token]]
    return []


def _walk(obj: Any, tokens: Sequence[str]) -> list[Any]:
    found = [obj]
    for token in tokens:
        found = [v for f in found for v in _step(f, token)]
    return found


def get_text_at_path(obj: Any, path: str | list[str]) -> list[str]:
    """The texts at `path` in `obj` ("$" or "" is the whole value); non-strings as JSON or str()."""
    tokens = tokenize_path(path) if isinstance(path, str) else list(path)
    if not tokens or tokens == ["$"]:
        return [_as_text(obj)]
    return [_as_text(v) for v in _walk(obj, tokens) if v is not None]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity (0.0 when either vector is all zeros)."""
    dot = sum(x * y for x, y in zip(a, b))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0

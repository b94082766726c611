"""Semantic search with a user's embeddings (a real langchain-core `Embeddings`, a plain
function, an async function) on every store: ranked by cosine similarity."""
from __future__ import annotations

import asyncio

import pytest
from store_kinds import WordEmbeddings, store_factory  # noqa: F401  (the parametrised fixture)

from engine.store import EmbeddingError, InMemoryStore
from engine.store.embed import cosine

DOCS = {
    "fruit": {"text": "red apples and green pears", "kind": "food"},
    "car": {"text": "a fast red car on the road", "kind": "thing"},
    "code": {"text": "python code with async functions", "kind": "thing"},
}


def _index(emb, **extra):
    return {"dims": emb.dims, "embed": emb, "fields": ["text"], **extra}


def test_search_ranks_by_similarity_to_the_query(store_factory):
    emb = WordEmbeddings()
    store = store_factory(index=_index(emb))
    for key, value in DOCS.items():
        store.put(("docs",), key, value)
    found = store.search(("docs",), query="async python functions")
    assert [r.key for r in found] == ["code", "car", "fruit"] or found[0].key == "code"
    assert found[0].score == pytest.approx(cosine(emb.embed_query("async python functions"),
                                                  emb.embed_query(DOCS["code"]["text"])), abs=1e-5)
    assert all(a.score >= b.score for a, b in zip(found, found[1:]))
    assert store.search(("docs",), query="red apples pears", limit=1)[0].key == "fruit"


def test_query_with_filter_and_paging(store_factory):
    emb = WordEmbeddings()
    store = store_factory(index=_index(emb))
    for key, value in DOCS.items():
        store.put(("docs",), key, value)
    things = store.search(("docs",), query="red car road", filter={"kind": "thing"})
    assert [r.key for r in things][0] == "car" and {r.key for r in things} == {"car", "code"}
    all_ranked = [r.key for r in store.search(("docs",), query="red car road")]
    assert [r.key for r in store.search(("docs",), query="red car road", limit=1, offset=1)] == all_ranked[1:2]


def test_a_put_embeds_once_per_batch_and_index_false_embeds_nothing(store_factory):
    emb = WordEmbeddings()
    store = store_factory(index=_index(emb))
    store.put(("docs",), "a", {"text": "alpha beta"})
    assert (emb.calls, emb.texts) == (1, 1)
    store.put(("docs",), "skip", {"text": "alpha beta"}, index=False)
    assert emb.texts == 1
    found = {r.key: r.score for r in store.search(("docs",), query="alpha beta")}
    assert found["a"] == pytest.approx(1.0, abs=1e-5)
    assert found["skip"] is None  # kept, listed after the scored items
    store.put(("docs",), "paths", {"text": "x", "title": "alpha beta"}, index=["title"])
    assert store.search(("docs",), query="alpha beta", limit=2)[1].key in {"a", "paths"}


def test_updating_an_item_replaces_its_vectors(store_factory):
    emb = WordEmbeddings()
    store = store_factory(index=_index(emb))
    store.put(("docs",), "k", {"text": "old words here"})
    store.put(("docs",), "k", {"text": "brand new subject"})
    (hit,) = store.search(("docs",), query="brand new subject")
    assert hit.score == pytest.approx(1.0, abs=1e-5)
    (miss,) = store.search(("docs",), query="old words here")
    assert miss.score < 0.5


def test_fields_reach_into_lists_and_the_best_field_counts(store_factory):
    emb = WordEmbeddings()
    store = store_factory(index={"dims": emb.dims, "embed": emb, "fields": ["sections[*].body"]})
    store.put(("d",), "k", {"sections": [{"body": "cats and dogs"}, {"body": "stock market prices"}]})
    assert emb.texts == 2
    (hit,) = store.search(("d",), query="stock market prices")
    assert hit.score == pytest.approx(1.0, abs=1e-5)


def test_a_plain_function_and_an_async_function_embed_too():
    words = WordEmbeddings()

    def embed(texts):
        return [words.embed_query(t) for t in texts]

    async def aembed(texts):
        await asyncio.sleep(0)
        return [words.embed_query(t) for t in texts]

    sync_store = InMemoryStore(index={"dims": words.dims, "embed": embed, "fields": ["text"]})
    sync_store.put(("d",), "k", {"text": "hello world"})
    assert sync_store.search(("d",), query="hello world")[0].score == pytest.approx(1.0, abs=1e-5)

    async_store = InMemoryStore(index={"dims": words.dims, "embed": aembed, "fields": ["text"]})

    async def run():
        await async_store.aput(("d",), "k", {"text": "hello world"})
        return await async_store.asearch(("d",), query="hello world")

    assert asyncio.run(run())[0].score == pytest.approx(1.0, abs=1e-5)
    with pytest.raises(EmbeddingError, match="embeddings function is async"):
        async_store.put(("d",), "k2", {"text": "sync call"})


def test_a_search_without_query_on_an_indexed_store_is_unscored(store_factory):
    emb = WordEmbeddings()
    store = store_factory(index=_index(emb))
    store.put(("docs",), "a", {"text": "alpha"})
    assert [r.score for r in store.search(("docs",))] == [None]

"""Bad input to a store: one clear error naming the culprit, and nothing written half-way."""
from __future__ import annotations

import glob
import sqlite3
from pathlib import Path

import pytest
from store_kinds import WordEmbeddings, store_factory  # noqa: F401  (the parametrised fixture)

from engine.store import (
    EmbeddingError,
    InvalidNamespaceError,
    ItemTooLargeError,
    ItemValueError,
    PgVectorMissingError,
    PostgresStore,
    PutOp,
    SqliteStore,
    StoreConnectionError,
    StoreNotSetUpError,
)


def test_a_raising_embeddings_function_names_itself_and_writes_nothing(store_factory):
    def broken(texts):
        if any("boom" in t for t in texts):
            raise ConnectionError("embedding service unreachable")
        return [[1.0, 0.0] for _ in texts]

    store = store_factory(index={"dims": 2, "embed": broken, "fields": ["text"]})
    store.put(("n",), "kept", {"text": "before"})
    with pytest.raises(EmbeddingError, match="raised ConnectionError: embedding service unreachable; nothing"):
        store.batch([PutOp(("n",), "kept", {"text": "changed"}), PutOp(("n",), "new", {"text": "boom"})])
    assert store.get(("n",), "kept").value == {"text": "before"}
    assert store.get(("n",), "new") is None


def test_embeddings_of_the_wrong_size_are_refused(store_factory):
    store = store_factory(index={"dims": 3, "embed": lambda texts: [[1.0, 2.0] for _ in texts]})
    with pytest.raises(EmbeddingError, match="vector of 2 numbers; the index says dims=3"):
        store.put(("n",), "k", {"text": "x"})
    assert store.get(("n",), "k") is None


def test_an_item_too_large_is_refused_before_anything_is_written(store_factory):
    if store_factory.kind == "memory":
        pytest.skip("the in-memory store keeps values as given, without encoding them")
    store = store_factory(max_item_bytes=1000)
    with pytest.raises(ItemTooLargeError, match=r"\('big',\)/'k2' is [\d,]+ bytes of JSON, more than this "
                                                 r"store's max_item_bytes=1,000"):
        store.batch([PutOp(("big",), "k1", {"v": "small"}), PutOp(("big",), "k2", {"v": "x" * 2000})])
    assert store.list_namespaces() == []


def test_a_value_that_is_not_json_is_refused_by_key(store_factory):
    if store_factory.kind == "memory":
        pytest.skip("the in-memory store keeps values as given, without encoding them")
    store = store_factory()
    with pytest.raises(ItemValueError, match=r"\('n',\)/'k' is not JSON"):
        store.put(("n",), "k", {"v": {1, 2}})
    with pytest.raises(TypeError, match="a store value is a dict, got list"):
        store.put(("n",), "k", [1, 2])
    assert store.get(("n",), "k") is None


def test_a_reserved_namespace_label_is_refused(store_factory):
    store = store_factory()
    with pytest.raises(InvalidNamespaceError, match="root label 'langgraph' is reserved"):
        store.put(("langgraph", "memories"), "k", {"v": 1})
    assert store.list_namespaces() == []


def test_a_sqlite_file_without_tables_says_to_call_setup(tmp_path):
    path = tmp_path / "fresh.db"
    with SqliteStore.from_conn_string(str(path)) as store:
        with pytest.raises(StoreNotSetUpError, match="call store.setup"):
            store.get(("n",), "k")


def test_a_store_file_that_cannot_be_opened_is_named(tmp_path):
    with pytest.raises(sqlite3.OperationalError, match="cannot open the store file .*nowhere"):
        SqliteStore(str(tmp_path / "nowhere" / "x.db"))


@pytest.mark.parametrize("url,culprit", [
    ("postgresql://postgres@127.0.0.1:1/postgres", "cannot connect to PostgreSQL at `postgresql://postgres@127"),
    ("postgresql://ann:s3cret@127.0.0.1:1/db", r"ann:\*\*\*@127.0.0.1:1/db"),
    ("mysql://127.0.0.1/x", "is not a PostgreSQL URL"),
])
def test_a_wrong_postgres_url_is_one_clear_error(url, culprit):
    with pytest.raises(StoreConnectionError, match=culprit) as err:
        PostgresStore(url)
    assert "s3cret" not in str(err.value)


def _debian_bin_without_pgvector() -> Path | None:
    from pg_server import has_pgvector

    for b in sorted(glob.glob("/usr/lib/postgresql/*/bin")):
        if (Path(b) / "postgres").exists() and not has_pgvector(Path(b)):
            return Path(b)
    return None


def test_an_index_on_a_server_without_pgvector_names_pgvector():
    from pg_server import PgUnavailable, in_ci, start

    bin_dir = _debian_bin_without_pgvector()
    if bin_dir is None:
        pytest.skip("no PostgreSQL build without pgvector here to show the error on")
    try:
        server = start(bin_dir=bin_dir)
    except PgUnavailable as exc:
        if in_ci():
            raise
        pytest.skip(str(exc))
    try:
        emb = WordEmbeddings()
        with PostgresStore.from_conn_string(server.url(), index={"dims": emb.dims, "embed": emb}) as store:
            with pytest.raises(PgVectorMissingError, match=r"needs the pgvector extension \(`vector`\)"):
                store.setup()
            with pytest.raises(PgVectorMissingError, match="no pgvector extension"):
                store.put(("n",), "k", {"text": "x"})
        with PostgresStore.from_conn_string(server.url()) as plain:  # without an index: fine
            plain.setup()
            plain.put(("n",), "k", {"v": 1})
            assert plain.get(("n",), "k").value == {"v": 1}
    finally:
        server.stop()

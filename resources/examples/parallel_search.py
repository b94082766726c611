"""Parallel search: web and database searches run side by side, then a merge.

Teaches: fan-out (two edges from START run both branches in the same superstep), a list
reducer (`Annotated[list, operator.add]`) collecting both branches' results, and a
waiting edge `add_edge(["rank_web", "search_db"], "merge")`. The web branch has two steps
and the database branch one, so without the waiting edge `merge` would run twice; with
it, `merge` runs once, after both branches finish.
"""

import operator
from typing import Annotated, TypedDict

from engine import END, START, StateGraph

WEB = {
    "python": [{"site": "python.org", "score": 0.9}, {"site": "a blog about snakes", "score": 0.2},
               {"site": "docs.python.org", "score": 0.8}],
    "graphviz": [{"site": "graphviz.org", "score": 0.95}, {"site": "a forum thread", "score": 0.4}],
}
DB = {
    "python": ["internal wiki: Python style guide"],
    "graphviz": ["internal wiki: drawing graphs"],
}


class SearchState(TypedDict, total=False):
    query: str
    web_hits: list[dict]
    results: Annotated[list[str], operator.add]
    summary: str


def search_web(state: SearchState) -> dict:
    """Fetch raw web hits with a relevance score."""
    return {"web_hits": WEB.get(state["query"].lower(), [])}


def rank_web(state: SearchState) -> dict:
    """Keep the relevant web hits, best first."""
    ranked = sorted((h for h in state["web_hits"] if h["score"] >= 0.5), key=lambda h: -h["score"])
    return {"results": [f"web: {hit['site']}" for hit in ranked]}


def search_db(state: SearchState) -> dict:
    """Look the query up in the company database."""
    return {"results": [f"db: {row}" for row in DB.get(state["query"].lower(), [])]}


def merge(state: SearchState) -> dict:
    """Summarise what both branches found."""
    results = sorted(state["results"])
    return {"summary": f"{len(results)} results for {state['query']!r}: " + "; ".join(results)}


builder = StateGraph(SearchState)
builder.add_node("search_web", search_web)
builder.add_node("rank_web", rank_web)
builder.add_node("search_db", search_db)
builder.add_node("merge", merge)
builder.add_edge(START, "search_web")
builder.add_edge(START, "search_db")
builder.add_edge("search_web", "rank_web")
builder.add_edge(["rank_web", "search_db"], "merge")
builder.add_edge("merge", END)
graph = builder.compile()

example_input = {"query": "python"}

if __name__ == "__main__":
    for update in graph.stream(example_input, stream_mode="updates"):
        print(update)

"""A subgraph: a compiled graph used as a node of another graph.

Teaches: `add_node("research", research_graph)` with a compiled graph. The subgraph runs
its own nodes (fetch -> extract) on the keys it shares with the parent (`topic`, `facts`)
and hands its result back as the node's update; its private key `pages` stays inside. Draw with `get_graph(xray=True)` to see
the inside as a cluster; step into it in the studio with F11.
"""

import operator
from typing import Annotated, TypedDict

from engine import END, START, StateGraph

LIBRARY = {
    "octopus": [
        "An octopus has three hearts.",
        "Octopuses can change colour in milliseconds.",
        "Each arm of an octopus has its own cluster of neurons.",
    ],
}


class ResearchState(TypedDict, total=False):
    topic: str
    pages: list[str]
    facts: list[str]


def fetch(state: ResearchState) -> dict:
    """Get the pages about the topic from an offline library."""
    return {"pages": LIBRARY.get(state["topic"].lower(), [f"Nothing is known about {state['topic']}."])}


def extract(state: ResearchState) -> dict:
    """One numbered fact per page."""
    return {"facts": [f"{i + 1}. {page}" for i, page in enumerate(state["pages"])]}


research_builder = StateGraph(ResearchState)
research_builder.add_node("fetch", fetch)
research_builder.add_node("extract", extract)
research_builder.add_edge(START, "fetch")
research_builder.add_edge("fetch", "extract")
research_builder.add_edge("extract", END)
research_graph = research_builder.compile(name="research")


class ArticleState(TypedDict, total=False):
    topic: str
    log: Annotated[list[str], operator.add]
    facts: list[str]
    article: str


def plan(state: ArticleState) -> dict:
    return {"topic": state["topic"].strip().lower(), "log": [f"planned an article about {state['topic']}"]}


def write(state: ArticleState) -> dict:
    """Turn the researched facts into the article."""
    body = " ".join(fact.split(". ", 1)[1] for fact in state["facts"])
    return {"article": f"{state['topic'].title()}: {body}", "log": [f"wrote {len(state['facts'])} facts"]}


builder = StateGraph(ArticleState)
builder.add_node("plan", plan)
builder.add_node("research", research_graph)
builder.add_node("write", write)
builder.add_edge(START, "plan")
builder.add_edge("plan", "research")
builder.add_edge("research", "write")
builder.add_edge("write", END)
graph = builder.compile()

example_input = {"topic": "octopus"}

if __name__ == "__main__":
    for update in graph.stream(example_input, stream_mode="updates"):
        print(update)

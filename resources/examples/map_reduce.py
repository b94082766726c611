"""Map-reduce with `Send`: one task per document, then a single reduce.

Teaches: a router returning a list of `Send("summarize", {...})`, which starts one
`summarize` task per document in the same superstep, each with its own input instead of
the graph state; a list reducer gathering their outputs; and a reduce step that runs
once after all of them. The router's path_map (`["summarize"]`) tells the drawing where
the Sends go.
"""

import operator
from typing import Annotated, TypedDict

from engine import END, START, Send, StateGraph


class MapReduceState(TypedDict, total=False):
    documents: list[str]
    summaries: Annotated[list[dict], operator.add]
    report: str


class DocumentInput(TypedDict):
    index: int
    text: str


def split(state: MapReduceState) -> dict:
    """Clean the documents up before the fan-out (drop blanks, trim whitespace)."""
    return {"documents": [d.strip() for d in state["documents"] if d.strip()]}


def fan_out(state: MapReduceState) -> list[Send]:
    """One `summarize` task per document."""
    return [Send("summarize", {"index": i, "text": text}) for i, text in enumerate(state["documents"])]


def summarize(doc: DocumentInput) -> dict:
    """Map: the document's first three words and its word count."""
    words = doc["text"].split()
    return {"summaries": [{"index": doc["index"], "gist": " ".join(words[:3]), "words": len(words)}]}


def reduce_summaries(state: MapReduceState) -> dict:
    """Reduce: one report over every summary, in document order."""
    summaries = sorted(state["summaries"], key=lambda s: s["index"])
    total = sum(s["words"] for s in summaries)
    lines = [f"{s['index'] + 1}. {s['gist']}... ({s['words']} words)" for s in summaries]
    return {"report": f"{len(summaries)} documents, {total} words\n" + "\n".join(lines)}


builder = StateGraph(MapReduceState)
builder.add_node("split", split)
builder.add_node("summarize", summarize)
builder.add_node("reduce", reduce_summaries)
builder.add_edge(START, "split")
builder.add_conditional_edges("split", fan_out, ["summarize"])
builder.add_edge("summarize", "reduce")
builder.add_edge("reduce", END)
graph = builder.compile()

example_input = {
    "documents": [
        "Graphs make agent control flow explicit and easy to inspect.",
        "Checkpoints let a debugger rewind a run to any earlier step.",
        "   ",
        "Send starts one task per item with its own input.",
    ]
}

if __name__ == "__main__":
    for update in graph.stream(example_input, stream_mode="updates"):
        print(update)

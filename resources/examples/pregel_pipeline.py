"""A LangGraph low-level (Pregel API) graph: nodes triggered by the channels they subscribe to.

`clean` runs when `text` is written, `count` and `shout` both run on `words` in one superstep,
and every node appends a line to the `log` Topic. Written with LangGraph's imports; on Retrograph
(`retrograph studio resources/examples/pregel_pipeline.py`) it runs on the engine's `Run` and
steps in the studio like any graph.
"""
from langgraph.channels import LastValue, Topic
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.pregel import NodeBuilder, Pregel


def clean(text: str) -> list[str]:
    return [w.strip(".,!?").lower() for w in text.split() if w.strip(".,!?")]


def count(words: list[str]) -> int:
    return len(words)


def shout(words: list[str]) -> str:
    return " ".join(words).upper()


graph = Pregel(
    nodes={
        "clean": NodeBuilder().subscribe_only("text").do(clean).write_to("words", log=lambda w: f"clean: {len(w)} words"),
        "count": NodeBuilder().subscribe_only("words").do(count).write_to("count", log=lambda n: f"count: {n}"),
        "shout": NodeBuilder().subscribe_only("words").do(shout).write_to("loud", log=lambda s: f"shout: {s}"),
    },
    channels={
        "text": LastValue(str),
        "words": LastValue(list),
        "count": LastValue(int),
        "loud": LastValue(str),
        "log": Topic(str, accumulate=True),
    },
    input_channels=["text"],
    output_channels=["count", "loud", "log"],
    checkpointer=InMemorySaver(),
)
example_input = {"text": "Hello, Pregel world!"}

if __name__ == "__main__":
    for chunk in graph.stream(example_input, {"configurable": {"thread_id": "demo"}}, stream_mode="updates"):
        print(chunk)

"""A single "LLM" node: the smallest useful graph.

Teaches: a `MessagesState` graph with one node, START -> llm -> END, and how the
`add_messages` reducer appends the model's reply to the conversation. The model is
scripted (canned answers keyed by words in the question), so it runs offline and
always gives the same answer.
"""
from engine import END, START, AIMessage, MessagesState, StateGraph

CANNED_ANSWERS = {
    "capital": "The capital of France is Paris.",
    "hello": "Hello! I am a scripted model; ask me about capitals or colours.",
    "colour": "The sky looks blue because air scatters blue light more than red.",
}


def llm(state: MessagesState) -> dict:
    """Answer the last message from the canned answers."""
    question = state["messages"][-1].text.lower()
    for word, answer in CANNED_ANSWERS.items():
        if word in question:
            return {"messages": [AIMessage(answer)]}
    return {"messages": [AIMessage("I only know about capitals and colours, sorry.")]}


builder = StateGraph(MessagesState)
builder.add_node("llm", llm)
builder.add_edge(START, "llm")
builder.add_edge("llm", END)
graph = builder.compile()

example_input = {"messages": [{"role": "user", "content": "What is the capital of France?"}]}

if __name__ == "__main__":
    for update in graph.stream(example_input, stream_mode="updates"):
        print(update)

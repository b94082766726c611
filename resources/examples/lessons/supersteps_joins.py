"""Lesson 1: supersteps and joins (the text the studio shows is supersteps_joins.md).

Three searches start together from START; the flight search takes two steps, the hotel
and weather lookups one. `itinerary` waits for all three with a waiting edge, so it runs
once, in the superstep after the last of them finishes.
"""

import operator
from typing import Annotated, TypedDict

from engine import END, START, StateGraph


class Trip(TypedDict, total=False):
    city: str
    log: Annotated[list[str], operator.add]
    flights: list[str]
    cheapest: str
    hotel: str
    weather: str
    plan: str


def find_flights(state: Trip) -> dict:
    """Step 1 of the flight branch: every flight to the city."""
    return {"flights": [f"{state['city']} 09:10 €120", f"{state['city']} 17:45 €95"],
            "log": ["find_flights"]}


def cheapest_flight(state: Trip) -> dict:
    """Step 2 of the flight branch: it sees the flights written in the step before."""
    best = min(state["flights"], key=lambda f: int(f.rsplit("€", 1)[1]))
    return {"cheapest": best, "log": ["cheapest_flight"]}


def book_hotel(state: Trip) -> dict:
    return {"hotel": f"Hotel Central, {state['city']}", "log": ["book_hotel"]}


def check_weather(state: Trip) -> dict:
    return {"weather": "sunny, 24°C", "log": ["check_weather"]}


def itinerary(state: Trip) -> dict:
    """Runs once, after the three branches: the join waited for all of them."""
    return {"plan": f"{state['cheapest']} · {state['hotel']} · {state['weather']}", "log": ["itinerary"]}


builder = StateGraph(Trip)
builder.add_node("find_flights", find_flights)
builder.add_node("cheapest_flight", cheapest_flight)
builder.add_node("book_hotel", book_hotel)
builder.add_node("check_weather", check_weather)
builder.add_node("itinerary", itinerary)
for first in ("find_flights", "book_hotel", "check_weather"):
    builder.add_edge(START, first)
builder.add_edge("find_flights", "cheapest_flight")
builder.add_edge(["cheapest_flight", "book_hotel", "check_weather"], "itinerary")
builder.add_edge("itinerary", END)
graph = builder.compile()

example_input = {"city": "Lisbon"}

if __name__ == "__main__":
    print(graph.invoke(example_input)["plan"])

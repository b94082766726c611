"""The expression language of watches, conditional breakpoints, field history and search.

Python expression syntax over the state: each state key is a name (`len(messages) > 3`,
`route == "search"`, `messages[-1].content`, `plan.steps[0]`), `state` is the whole
state, and a dict's keys also read as attributes (`plan.steps` is `plan["steps"]`).
Comparisons, boolean logic, arithmetic, `in`, indexing, slicing, comprehensions and a few
pure functions (len, str, int, float, bool, abs, min, max, sum, any, all, sorted, round,
list, tuple, set, type_name) are allowed; assignments, imports, lambdas, method calls and
private (`_x`, `__x__`) attributes are not.

It is evaluated by `simpleeval` (a small, well-kept restricted evaluator: it walks the
parsed tree itself and never calls eval()), with method calls refused on top, so a watch
cannot change the state it reads. Expressions are typed by the user in the studio (or
given on the command line) and evaluated in the process that already runs the graph's
code; none is ever read from a database.
"""
from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import simpleeval

__all__ = ["Expression", "ExpressionError", "MISSING_VALUE", "FUNCTIONS"]

MAX_LENGTH = 2_000
"""Longer text is refused (an expression is a line a person types)."""


class ExpressionError(ValueError):
    """An expression that cannot be parsed or evaluated; the message quotes it."""


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING_VALUE: Any = _Missing()
"""What a path or expression gives where the state has no such key or item."""


def _type_name(value: Any) -> str:
    return type(value).__name__


FUNCTIONS: dict[str, Any] = {
    "len": len, "str": str, "int": int, "float": float, "bool": bool, "abs": abs, "min": min, "max": max,
    "sum": sum, "any": any, "all": all, "sorted": sorted, "round": round, "list": list, "tuple": tuple,
    "set": set, "type_name": _type_name,
}


class _Evaluator(simpleeval.EvalWithCompoundTypes):  # type: ignore[misc]
    """simpleeval with calls limited to FUNCTIONS (a method call could change the state)."""

    def _eval_call(self, node: ast.Call) -> Any:
        if not isinstance(node.func, ast.Name):
            raise simpleeval.FeatureNotAvailable(
                "method calls are not allowed (use a function such as len(x), or compare values)")
        return super()._eval_call(node)


@dataclass(frozen=True)
class Expression:
    """A parsed expression, evaluated against one state at a time."""

    text: str
    tree: Any
    """The parsed expression (an `ast` node)."""
    _kept: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def parse(cls, text: str) -> Expression:
        """Parse `text`, or raise ExpressionError saying what is wrong with it."""
        if not isinstance(text, str) or not text.strip():
            raise ExpressionError("the expression is empty: write one such as len(messages) > 3")
        text = text.strip()
        if len(text) > MAX_LENGTH:
            raise ExpressionError(f"the expression is {len(text)} characters long; at most {MAX_LENGTH}")
        try:
            tree = ast.parse(text, mode="eval").body
        except SyntaxError as e:
            where = f" at column {e.offset}" if e.offset else ""
            raise ExpressionError(f"`{text}` is not a valid expression: {e.msg}{where}") from None
        except (UnicodeError, ValueError) as e:  # a lone surrogate (pasted bytes), a NUL
            shown = text.encode("utf-8", "backslashreplace").decode()
            raise ExpressionError(f"`{shown}` is not a valid expression: {type(e).__name__}: {e}") from None
        for node in ast.walk(tree):
            if isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)):
                raise ExpressionError(f"`{text}`: {type(node).__name__.lower()} is not allowed in an expression")
            if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                raise ExpressionError(f"`{text}`: private attributes such as `{node.attr}` are not allowed")
            if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS):
                shown = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
                raise ExpressionError(f"`{text}`: `{shown}(...)` cannot be called; the functions are "
                                      f"{', '.join(sorted(FUNCTIONS))}")
        return cls(text, tree)

    def evaluate(self, values: Mapping[str, Any], *, reuse: bool = False) -> Any:
        """The value on `values`; MISSING_VALUE where a name, key or index is absent.
        Raises ExpressionError for any other failure (a type error, say).

        `reuse`: evaluate with one evaluator kept on this expression (a scan of many states
        on one thread, such as a history search, saves building one per state); an
        expression evaluated with `reuse` must be used on one thread at a time."""
        names = dict(values)
        names.setdefault("state", dict(values))
        if reuse:
            evaluator = self._kept.get("evaluator")
            if evaluator is None:
                evaluator = self._kept["evaluator"] = _Evaluator(names=names, functions=dict(FUNCTIONS))
            evaluator.names = names
            evaluator._max_count = 0  # the comprehension budget is per evaluation
        else:
            evaluator = _Evaluator(names=names, functions=dict(FUNCTIONS))
        try:
            return evaluator._eval(self.tree)
        except (simpleeval.NameNotDefined, KeyError, IndexError, simpleeval.AttributeDoesNotExist):
            return MISSING_VALUE
        except AttributeError:
            return MISSING_VALUE
        except simpleeval.InvalidExpression as e:
            raise ExpressionError(f"`{self.text}`: {e}") from None
        except RecursionError:
            raise ExpressionError(f"`{self.text}`: the value is nested too deeply") from None
        except ValueError as e:
            if "integer string conversion" in str(e):  # Python's advice (set_int_max_str_digits) is not the user's
                raise ExpressionError(f"`{self.text}`: an int of more than 4,300 digits cannot be made into text; "
                                      "compare it as a number instead") from None
            raise ExpressionError(f"`{self.text}`: {type(e).__name__}: {e}") from None
        except Exception as e:  # a TypeError comparing str and int, a ZeroDivisionError...
            raise ExpressionError(f"`{self.text}`: {type(e).__name__}: {e}") from None

    def truth(self, values: Mapping[str, Any], *, reuse: bool = False) -> bool:
        """Whether the expression holds (a missing value does not)."""
        value = self.evaluate(values, reuse=reuse)
        return value is not MISSING_VALUE and bool(value)

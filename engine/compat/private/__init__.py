"""LangGraph private names that libraries and many users import, each served from a module
named after LangGraph's (layout.SERVED_PRIVATE / OVERRIDES), only where the engine's
behaviour is exactly LangGraph's."""
__all__: list[str] = []

"""PLACEHOLDER: replaced by the shapes work (Polygon, factories, hull, decompose, mass)."""

MAX_VERTICES = 16


class GeometryError(ValueError):
    """Invalid geometry: the message names the argument, the vertex and the reason."""


class Polygon:
    def __init__(self, vertices):  # type: ignore[no-untyped-def]
        raise NotImplementedError


def decompose(outline):  # type: ignore[no-untyped-def]
    raise NotImplementedError

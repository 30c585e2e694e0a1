"""Records: named tuples of arrays and scalars handed whole to compiled code.

A record (the body store's rows, a step's context, a solver's state between steps) reaches a
compiled kernel as one argument, and the kernel reads its fields by name. numba works out the
type of each argument at every call; for a tuple of twenty arrays that costs more than the rest
of a small world's step overhead (measured: 7.6 us per call against 2.6 us with the type known).
The records here always hold fields of the same dtype, shape rank and layout, so their numba type
is computed once, from the first record seen, and reused.
"""

from __future__ import annotations

from typing import Any, TypeVar

from numba.core import types
from numba.core.typing.typeof import Purpose, typeof
from numba.extending import typeof_impl

R = TypeVar("R", bound=type)


def compiled_record(cls: R) -> R:
    """Class decorator for a NamedTuple whose fields never change type: numba's type of the
    first instance passed to a compiled function is kept for every later one.

    Only for records built by this package with fixed dtypes (a field that changed type would
    be read with the wrong layout); C-contiguous arrays stay C-contiguous when sliced by rows.
    """
    known: list[Any] = []

    @typeof_impl.register(cls)
    def _typeof_record(value: Any, context: Any) -> Any:
        if not known:
            fields = [typeof(field, Purpose.argument) for field in value]
            known.append(types.BaseTuple.from_types(fields, cls))
        return known[0]

    return cls

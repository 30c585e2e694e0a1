"""Records handed across numba's parallel loop, so that two tasks can run side by side.

A parallel loop (``for task in prange(2)``, each iteration a different task) runs its body as
a function of its own whose arguments are the variables the body reads: arrays, numbers, and
tuples of them one level deep. A record (a named tuple, collision.records) or a tuple nested
in one of those tuples does not get through (numba 0.68 cannot pass it, or rebuild it when
it was unpacked from a tuple). So the tasks' arguments go across as the flat tuple of every
array and number in them (:func:`leaves`) and a one-byte token whose type is their nesting
(:func:`nesting`); the body rebuilds the arguments from the two (:func:`rebuilt`). The arrays
are the same arrays (no copy). Tasks that share out work as they come free take its pieces'
numbers from one counter (:func:`fetch_increment`). Kernels call them as :func:`flat_leaves`,
:func:`nesting_token`, :func:`rebuilt_value` and :func:`take_next`, which run in Python too
(interpreted, or with ``NUMBA_DISABLE_JIT``).
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.core import config
from numba.extending import intrinsic, models, register_model

from collision import interpreter
from collision.kernels import compiled_only


class Nesting(types.Type):
    """The type of :func:`nesting`'s token: ``nested``, the type of the value it was taken of."""

    def __init__(self, nested: Any) -> None:
        self.nested = nested
        super().__init__(name=f"Nesting({nested})")


@register_model(Nesting)
class _NestingModel(models.PrimitiveModel):
    """A byte: the token carries its nesting in its type alone."""

    def __init__(self, dmm: Any, fe_type: Any) -> None:
        super().__init__(dmm, fe_type, ir.IntType(8))


def _parts(nested: Any) -> tuple[Any, ...] | None:
    """The types of the parts of ``nested`` (a numba type) if it is a tuple or a record, else
    None (an array or a number)."""
    if not isinstance(nested, types.BaseTuple):
        return None
    tuple_type: Any = nested  # every kind of numba tuple lists its parts' types
    return tuple(tuple_type.types)


def _leaf_types(nested: Any) -> list[Any]:
    """The types of the arrays and numbers in ``nested`` (a numba type), depth first."""
    parts = _parts(nested)
    if parts is None:
        return [nested]
    return [leaf for part in parts for leaf in _leaf_types(part)]


@intrinsic
def leaves(typingctx: Any, value: Any) -> Any:
    """The arrays and numbers of ``value`` (tuples and records nested in any way) as one flat
    tuple, depth first."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        found: list[Any] = []

        def walk(nested: Any, part: Any) -> None:
            inners = _parts(nested)
            if inners is not None:
                for k, inner in enumerate(inners):
                    walk(inner, builder.extract_value(part, k))
            else:
                # The tuple returned holds new references (the argument's are borrowed).
                context.nrt.incref(builder, nested, part)
                found.append(part)

        walk(signature.args[0], args[0])
        return context.make_tuple(builder, signature.return_type, found)

    return types.Tuple(_leaf_types(value))(value), codegen


@intrinsic
def nesting(typingctx: Any, value: Any) -> Any:
    """A token of ``value``'s nesting, for :func:`rebuilt` (one byte; nothing of ``value`` is
    read)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return ir.Constant(ir.IntType(8), 0)

    return Nesting(value)(value), codegen


@intrinsic
def rebuilt(typingctx: Any, flat: Any, token: Any) -> Any:
    """The value that :func:`leaves` made ``flat`` of and :func:`nesting` made ``token`` of."""
    if not isinstance(token, Nesting) or list(_parts(flat) or ()) != _leaf_types(token.nested):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        parts = [builder.extract_value(args[0], k) for k in range(len(_parts(signature.args[0]) or ()))]
        at = [0]

        def build(nested: Any) -> Any:
            inners = _parts(nested)
            if inners is not None:
                return context.make_tuple(builder, nested, [build(inner) for inner in inners])
            part = parts[at[0]]
            at[0] += 1
            context.nrt.incref(builder, nested, part)
            return part

        return build(signature.return_type)

    return token.nested(flat, token), codegen


@intrinsic
def fetch_increment(typingctx: Any, counter: Any) -> Any:
    """``counter[0]`` (an int64 array's first element) before adding one to it, in one atomic
    step (LLVM's ``atomicrmw add``): threads that take numbers from the same counter each get a
    number of their own."""
    if not isinstance(counter, types.Array) or counter.dtype != types.int64:
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        array = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.atomic_rmw("add", array.data, ir.Constant(ir.IntType(64), 1), "seq_cst")

    return types.int64(counter), codegen


def _leaves_interpreted(value: Any) -> tuple[Any, ...]:
    """:func:`leaves` in Python."""
    if isinstance(value, tuple):
        return tuple(leaf for part in value for leaf in _leaves_interpreted(part))
    return (value,)


def _nesting_interpreted(value: Any) -> Any:
    """:func:`nesting` in Python: the value itself, a pattern of its nesting."""
    return value


def _rebuilt_interpreted(flat: tuple[Any, ...], token: Any) -> Any:
    """:func:`rebuilt` in Python: ``token``'s nesting filled from ``flat``."""
    remaining = iter(flat)

    def build(pattern: Any) -> Any:
        if isinstance(pattern, tuple):
            parts = [build(part) for part in pattern]
            return type(pattern)(*parts) if hasattr(pattern, "_fields") else tuple(parts)
        return next(remaining)

    return build(token)


def _take_interpreted(counter: Any) -> int:
    """:func:`fetch_increment` in Python (one thread: a parallel loop runs as a loop)."""
    taken = int(counter[0])
    counter[0] = taken + 1
    return taken


if config.DISABLE_JIT:  # type: ignore[attr-defined]

    def flat_leaves(value: Any) -> tuple[Any, ...]:
        """:func:`leaves`, the JIT off."""
        return _leaves_interpreted(value)

    def nesting_token(value: Any) -> Any:
        """:func:`nesting`, the JIT off."""
        return _nesting_interpreted(value)

    def rebuilt_value(flat: tuple[Any, ...], token: Any) -> Any:
        """:func:`rebuilt`, the JIT off."""
        return _rebuilt_interpreted(flat, token)

    def take_next(counter: Any) -> int:
        """:func:`fetch_increment`, the JIT off."""
        return _take_interpreted(counter)

else:

    @compiled_only(forceinline=True)
    def flat_leaves(value: Any) -> tuple[Any, ...]:
        """:func:`leaves` as a kernel (the interpreter runs its Python form in its place)."""
        return leaves(value)  # type: ignore[call-arg]  # numba supplies typingctx

    @compiled_only(forceinline=True)
    def nesting_token(value: Any) -> Any:
        """:func:`nesting` as a kernel."""
        return nesting(value)  # type: ignore[call-arg]

    @compiled_only(forceinline=True)
    def rebuilt_value(flat: tuple[Any, ...], token: Any) -> Any:
        """:func:`rebuilt` as a kernel."""
        return rebuilt(flat, token)  # type: ignore[call-arg]

    @compiled_only(forceinline=True)
    def take_next(counter: Any) -> int:
        """:func:`fetch_increment` as a kernel."""
        return fetch_increment(counter)  # type: ignore[call-arg]

    interpreter.stand_in(flat_leaves, _leaves_interpreted)
    interpreter.stand_in(nesting_token, _nesting_interpreted)
    interpreter.stand_in(rebuilt_value, _rebuilt_interpreted)
    interpreter.stand_in(take_next, _take_interpreted)

"""numba's own costs in a cold compile and in a call, trimmed without changing what it does.

Importing this module (collision.kernels does) trims nine of numba's own costs, each a few
hundredths of a cold compile, without changing what it compiles: the typing of a call by every
template of the function called, again at each call with the same types
(:func:`remembered_call_types`); comparisons of compile flags
(:func:`quick_flag_comparisons`); a rewrite for ``with`` blocks that every function's
bytecode went through (:func:`quick_with_rewrite`); the C wrapper numba built for each of its
own functions' implementations (``np.empty`` and the like), which only compiled code calls
(:func:`overloads_without_c_wrappers`); the search for reference counts in values that hold
none (:func:`quick_reference_counts`); reading again the body of a function numba inlines at
each place it is inlined (:func:`read_inlined_once`); copying source positions with the IR it
inlines (:func:`shared_source_positions`); copying that IR block by block, which copied
what the blocks share once per block (:func:`one_copy_per_inlining`); and a stack slot for
every array an operation reads (:func:`arrays_read_in_registers`). One more is a cost of
every call from Python: the Python type of each array a kernel returns, unpickled at each
call (:func:`arrays_boxed_with_their_type_kept`). Each is tested against numba's own result.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from llvmlite import ir
from numba.core import boxing, cgutils, inline_closurecall, interpreter, pythonapi, targetconfig, types
from numba.core import ir as numba_ir
from numba.core.inline_closurecall import InlineWorker
from numba.core.runtime.context import NRTContext
from numba.core.types import functions
from numba.core.typing import signature, templates
from numba.np import arraymath, arrayobj, linalg, numpy_support


def _replaced(owner: Any, name: str) -> bool:
    """Whether ``owner.name`` is already one of this module's replacements (a second import of
    this module, as under a reload, leaves numba's one replacement in place)."""
    return getattr(getattr(owner, name), "_polycolly_quick", False)


def _replace(owner: Any, name: str, quick: Callable[..., Any]) -> None:
    """``quick`` in place of numba's ``owner.name``, marked as a replacement, with numba's kept
    as its ``__wrapped__`` (tests compare the two)."""
    quick._polycolly_quick = True  # type: ignore[attr-defined]
    quick.__wrapped__ = getattr(owner, name)  # type: ignore[attr-defined]
    setattr(owner, name, quick)


def quick_flag_comparisons() -> None:
    """numba's ``TargetConfig.values``, ``__hash__`` and ``__eq__`` with the same results, cheaper.

    numba looks up every typed call's overload implementation in a dict keyed by the compile
    flags in force (tens of thousands of lookups in a cold compile), and each lookup builds
    the flags' dict of values through a property per option, twice (hash, then equality).
    Here the values are the class's defaults updated with the options set, and the hash,
    which numba takes of the sorted option names alone, is computed once per class. The
    default scene's cold compile, one process: 4.6% of its samples were in ``values``."""
    config = targetconfig.TargetConfig
    if getattr(config, "_polycolly_quick", False):
        return

    known: dict[type, tuple[dict[str, Any], int]] = {}

    def defaults(cls: type) -> tuple[dict[str, Any], int]:
        if cls not in known:
            options = cls.options  # type: ignore[attr-defined]
            values = {name: option.default for name, option in options.items()}
            known[cls] = values, hash(tuple(sorted(options)))
        return known[cls]

    def values(self: Any) -> dict[str, Any]:
        out = dict(defaults(type(self))[0])
        out.update(self._values)
        return out

    def same(self: Any, other: Any) -> bool:
        if not isinstance(other, config):
            return NotImplemented
        return values(self) == values(other)

    config.values = values  # type: ignore[method-assign]
    config.__hash__ = lambda self: defaults(type(self))[1]  # type: ignore[method-assign]
    config.__eq__ = same  # type: ignore[method-assign]
    config._polycolly_quick = True  # type: ignore[attr-defined]


quick_flag_comparisons()


#: The prefix of the variables numba's bytecode reader makes for a ``with`` block's exit.
_WITH_EXIT = "$setup_with_exitfn"


def remembered_call_types() -> None:
    """numba's ``BaseFunction.get_call_type`` remembered per function type, typing context,
    argument types, compile flags and number of templates, with the same results.

    numba types a call of a function (``a * b``, ``x[i]``, ``np.empty(n)``) by asking each of
    its templates in turn until one answers, and asks again at every call with the same types
    and again when it lowers an operator: the default scene's cold compile typed 19717 such
    calls, 1449 of them different, in 2.65 s. An answer is the signature and the template's
    implementation key, which numba files under the signature's argument types for lowering;
    a remembered answer files it again, as numba's own search does when it ends at the same
    template. A template of numba's ``@overload`` compiles its implementation with the flags
    of the kernel being compiled (its own cache is keyed by them), and the templates asked
    depend on the templates registered: the flags and the templates' count are part of the
    key. A call no template answers is not remembered (numba raises)."""
    owner = functions.BaseFunction
    if _replaced(owner, "get_call_type"):
        return
    numba_call_type = owner.get_call_type
    known: dict[tuple[Any, ...], tuple[Any, Any]] = {}

    def get_call_type(self: Any, context: Any, args: Any, kws: dict[str, Any]) -> Any:
        flags = targetconfig.ConfigStack.top_or_none()
        key = (self, context, flags, len(self.templates), tuple(args), tuple(sorted(kws.items())))
        try:
            answer = known.get(key)
        except TypeError:  # an argument type that cannot be hashed
            return numba_call_type(self, context, args, kws)
        if answer is not None:
            typed, implementation = answer
            self._impl_keys[typed.args] = implementation
            return typed
        found = numba_call_type(self, context, args, kws)
        if found is not None:
            known[key] = (found, self._impl_keys[found.args])
        return found

    _replace(owner, "get_call_type", get_call_type)


remembered_call_types()


def quick_with_rewrite() -> None:
    """numba's ``peep_hole_delete_with_exit`` only for functions that have a ``with`` block.

    numba runs it on every function it reads: it lists the variables of every statement, twice,
    to drop the ones that use a ``with`` block's exit function, which its bytecode reader
    assigns to a variable of its own (``_WITH_EXIT``); in a function without such an
    assignment there is nothing to drop. The engine's kernels have no ``with`` blocks, and
    listing their variables was 2.5% of the default scene's cold compile (one process)."""
    if _replaced(interpreter, "peep_hole_delete_with_exit"):
        return
    rewrite = interpreter.peep_hole_delete_with_exit

    def delete_with_exit(func_ir: Any) -> Any:
        for block in func_ir.blocks.values():
            for statement in block.body:
                if isinstance(statement, numba_ir.Assign) and statement.target.name.startswith(_WITH_EXIT):
                    return rewrite(func_ir)
        return func_ir

    _replace(interpreter, "peep_hole_delete_with_exit", delete_with_exit)


quick_with_rewrite()


#: The options numba's implementations of its functions (``@overload``) are compiled with
#: unless they set their own (see :func:`overloads_without_c_wrappers`; collision.kernels adds
#: one).
OVERLOAD_OPTIONS: dict[str, Any] = {"no_cfunc_wrapper": True}


def overloads_without_c_wrappers() -> None:
    """numba's implementations of its functions and methods (``@overload``: ``np.empty``,
    ``min``, array methods, ...) compiled without the C wrapper numba otherwise gives each
    (with the options of ``OVERLOAD_OPTIONS``).

    numba already builds them without the Python wrapper, since only compiled code calls
    them; it still built a C-callable wrapper for each specialisation, which compiled code
    does not use either (it is for a function handed to C as a pointer, which the engine never
    does): 3% of the default scene's cold compile, one process. An implementation that sets
    an option itself keeps its own."""
    template = templates._OverloadFunctionTemplate
    if _replaced(template, "_get_jit_decorator"):
        return
    decorator = template._get_jit_decorator

    def jit_decorator(self: Any) -> Callable[..., Any]:
        jitter = decorator(self)

        def with_options(*args: Any, **options: Any) -> Any:
            return jitter(*args, **{**OVERLOAD_OPTIONS, **options})

        return with_options

    _replace(template, "_get_jit_decorator", jit_decorator)


overloads_without_c_wrappers()


def quick_reference_counts() -> None:
    """numba's ``NRTContext.get_meminfos`` without visiting the parts of a value that hold no
    reference count.

    Wherever compiled code copies or drops a value, numba lists the reference counts inside it
    (the arrays in a tuple, ...) to count them up or down, reading out every member of every
    tuple on the way, a float's as an array's: the engine's records are tuples of up to 24
    fields, and this was 6% of the default scene's cold compile (one process). Here a member
    is read out only if its type can hold a reference count (found the way numba's own search
    goes, once per type); the counts found, and their order, are numba's."""
    if _replaced(NRTContext, "get_meminfos"):
        return
    # By identities (a type's hash is its key's, rehashed at every use); each entry keeps its
    # type, so that the identity is not reused.
    counted: dict[tuple[int, int], tuple[Any, bool]] = {}

    def holds(context: Any, builder: Any, kind: Any) -> bool:
        """Whether a value of numba type ``kind`` holds a reference count, where numba's search
        would look: in itself or in the members its data model lists (a type met again while
        its own answer is pending, were there such, counts as holding one: searched)."""
        models = context.data_model_manager
        key = (id(models), id(kind))
        entry = counted.get(key)
        if entry is not None:
            return entry[1]
        counted[key] = (kind, True)
        model = models[kind]
        members = model.traverse(builder)
        found = model.has_nrt_meminfo() or any(holds(context, builder, t) for t, _ in members)
        counted[key] = (kind, found)
        return found

    def get_meminfos(self: Any, builder: Any, kind: Any, value: Any) -> list[tuple[Any, Any]]:
        if not holds(self._context, builder, kind):
            return []
        model = self._context.data_model_manager[kind]
        found = [(kind, model.get_nrt_meminfo(builder, value))] if model.has_nrt_meminfo() else []
        for member, read in model.traverse(builder):
            if holds(self._context, builder, member):
                found.extend(self.get_meminfos(builder, member, read(value)))
        return found

    _replace(NRTContext, "get_meminfos", get_meminfos)


quick_reference_counts()


def read_inlined_once() -> None:
    """numba's ``InlineWorker.run_untyped_passes`` once per function and compile settings.

    To inline a function (``inline="always"``), numba reads its bytecode into IR and runs its
    untyped passes, the inlining of what it calls included, at every place it is inlined, and
    then works on a copy of that IR (its ``inline_ir`` copies before it changes anything). The
    engine inlines small helpers (``slot``, a row's loads) at hundreds of places: the IR read
    the first time, for the same function, flags and local types, serves the others. The pass
    also sets the caller's ``enable_ssa`` flag, as numba's does."""
    if _replaced(InlineWorker, "run_untyped_passes"):
        return
    read = InlineWorker.run_untyped_passes
    known: dict[tuple[Any, ...], list[tuple[Any, Any]]] = {}

    def run_untyped_passes(self: Any, func: Any, enable_ssa: bool = False) -> Any:
        self.flags.enable_ssa = enable_ssa
        if self.locals:
            return read(self, func, enable_ssa)
        # numba makes a target context for each compile from the flags (compared here).
        key = (func, id(self.typingctx), type(self.targetctx))
        entries = known.setdefault(key, [])
        for flags, func_ir in entries:
            if flags == self.flags:
                return func_ir
        flags = type(self.flags)(copy_from=self.flags)
        func_ir = read(self, func, enable_ssa)
        entries.append((flags, func_ir))
        return func_ir

    _replace(InlineWorker, "run_untyped_passes", run_untyped_passes)


read_inlined_once()


def shared_source_positions() -> None:
    """Copies of numba's IR share its source positions (``ir.Loc``) instead of copying them.

    numba copies a function's IR (``copy.deepcopy``) at every place it inlines it, and every
    statement and expression carries a position: a file name, a line and a column, which
    nothing changes once made (numba's own copies of variables and constants already keep
    their positions). The line cache a position fills when an error message quotes it is the
    same for every copy."""
    if "__deepcopy__" in vars(numba_ir.Loc):
        return

    def keep(self: Any, memo: dict[int, Any]) -> Any:
        return self

    numba_ir.Loc.__deepcopy__ = keep  # type: ignore[attr-defined]


shared_source_positions()


class _OneCopyOfEach:
    """Stands for the ``copy`` module inside numba's ``InlineWorker.inline_ir`` (see
    :func:`one_copy_per_inlining`): a block of ``first`` (the function's IR as given) is copied
    with the other blocks of that IR, and any other block (the copy of that copy numba keeps)
    with the others of its own."""

    def __init__(self, first: set[int]) -> None:
        self._first = first
        self._memos: tuple[dict[int, Any], dict[int, Any]] = ({}, {})

    def deepcopy(self, value: Any, memo: Any = None) -> Any:
        return copy.deepcopy(value, self._memos[0] if id(value) in self._first else self._memos[1])

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)


def one_copy_per_inlining() -> None:
    """numba's ``InlineWorker.inline_ir`` copies a function's IR once for all its blocks, not once
    per block, where it inlines without types (``inline="always"`` on a kernel).

    numba deep-copies the function's IR block by block, twice per place it is inlined, so what
    the blocks share is copied once for each block: above all the function's scope, which holds
    every variable of the function (those of what it inlined itself included). A function of
    many blocks and variables cost tens of milliseconds per place (the default scene's cold
    compile, one process: 1.7-1.9 s in inlining, 0.8-0.9 s with this). Here each of the two
    copies is one copy of all the blocks, which share what they shared in the IR copied. numba
    then gives every inlined block the caller's scope: the caller's IR is the same (tested
    against numba's). Inlining with types (numba's overloads) stays numba's own."""
    if _replaced(InlineWorker, "inline_ir") or not hasattr(inline_closurecall, "copy"):
        return
    inline_ir = InlineWorker.inline_ir

    def inline_ir_copying_once(
        self: Any,
        caller_ir: Any,
        block: Any,
        i: int,
        callee_ir: Any,
        callee_freevars: Any,
        arg_typs: Any = None,
    ) -> Any:
        if arg_typs is not None:
            return inline_ir(self, caller_ir, block, i, callee_ir, callee_freevars, arg_typs)
        # numba compiles under its global lock: one inlining at a time uses the stand-in.
        inline_closurecall.copy = _OneCopyOfEach({id(b) for b in callee_ir.blocks.values()})  # type: ignore[assignment]
        try:
            return inline_ir(self, caller_ir, block, i, callee_ir, callee_freevars, arg_typs)
        finally:
            inline_closurecall.copy = copy

    _replace(InlineWorker, "inline_ir", inline_ir_copying_once)


one_copy_per_inlining()


def arrays_read_in_registers() -> None:
    """numba's view of an array's fields (``make_array(type)(context, builder, value)``, made
    wherever an operation reads an array: each index, each ``.shape``) reads them out of the
    value, where numba's stores the value in a stack slot and loads each field back.

    numba allocates the slot in the function's entry block, zero-fills it there and at the use,
    stores the value and reads a field by an address computation and a load: four
    instructions for each view and two for each field read, which LLVM's first passes then
    fold back to the value's field. Here a view made from a value holds the value and a field read is one
    ``extractvalue``. A view that is written to, whose address is taken or whose whole value
    is asked for gets numba's slot and goes on as numba's: the value stored where the view was
    made, and the reads already made read the slot where they are, so a read that runs after
    a write (in a loop) sees it, as numba's does. Views made without a value,
    and those of array-likes with an ``__array__`` conversion, are numba's from the start.
    The shape read from the value carries no range metadata (numba marks its loads of the
    shape non-negative; its comment: the metadata improves nothing). The default scene's cold
    compile, one process, alternating with numba's: 28.3, 29.3 CPU s -> 26.8, 26.9; the
    step's results the same bits."""
    if _replaced(arrayobj, "make_array"):
        return
    numba_make_array = arrayobj.make_array
    made: dict[Any, type] = {}

    def make_array(array_type: Any) -> type:
        view = made.get(array_type)
        if view is None:
            view = made[array_type] = _array_view_in_registers(numba_make_array(array_type), array_type)
        return view

    for module in (arrayobj, arraymath, linalg):
        if getattr(module, "make_array", None) is numba_make_array:
            _replace(module, "make_array", make_array)


def _array_view_in_registers(numba_view: type, array_type: Any) -> type:
    """numba's array view class ``numba_view`` (of ``array_type``) whose views made from a
    value read their fields out of it (see :func:`arrays_read_in_registers`)."""
    numba_shape = numba_view.shape  # type: ignore[attr-defined]
    converts: list[bool] = []  # whether array_type has an __array__ conversion, once known

    class ArrayView(numba_view):
        def __init__(self, context: Any, builder: Any, value: Any = None, ref: Any = None) -> None:
            self._value_kept = None
            if value is None or ref is not None or _converts(context):
                super().__init__(context, builder, value, ref)
                return
            self._context = context
            self._datamodel = context.data_model_manager[self._fe_type]
            self._builder = builder
            self._be_type = self._get_be_type(self._datamodel)
            if value.type != self._be_type:
                raise AssertionError(f"bad value type: expected {self._be_type}, got {value.type}")
            self._value_kept = value
            self._made_at = _insertion_point(builder)
            self._reads: list[Any] = []

        def _in_memory(self) -> None:
            """numba's slot for the view: the value stored where the view was made, and each
            read made so far reading the slot's value where it is."""
            kept = self._value_kept
            if kept is None:
                return
            builder = self._builder
            here = _insertion_point(builder)
            slot = cgutils.alloca_once(builder, self._be_type)
            _move_to(builder, self._made_at)
            builder.store(kept, slot)
            for read in self._reads:
                builder.position_before(read)
                whole = builder.load(slot)
                read.replace_usage(kept, whole)  # its operands
                read.aggregate = whole  # what it prints
            _move_to(builder, here)
            self._value = self._outer_ref = slot
            self._value_kept = None
            self._reads = []

        def __getitem__(self, index: int) -> Any:
            if self._value_kept is None:
                return super().__getitem__(index)
            read = self._builder.extract_value(self._value_kept, index)
            self._reads.append(read)
            return self._cast_member_to_value(index, read)

        def __setitem__(self, index: int, value: Any) -> None:
            self._in_memory()
            super().__setitem__(index, value)

        def _get_ptr_by_index(self, index: int) -> Any:
            self._in_memory()
            return super()._get_ptr_by_index(index)

        def _getpointer(self) -> Any:
            self._in_memory()
            return super()._getpointer()

        def _getvalue(self) -> Any:
            self._in_memory()
            return super()._getvalue()

        def _setvalue(self, value: Any) -> None:
            self._in_memory()
            super()._setvalue(value)

        @property
        def shape(self) -> Any:
            if self._value_kept is None:
                return numba_shape.fget(self)
            return self[self._datamodel.get_field_position("shape")]

    def _converts(context: Any) -> bool:
        if not converts:
            try:
                context.get_function("__array__", signature(array_type.as_array, array_type))
                converts.append(True)
            except NotImplementedError:
                converts.append(False)
        return converts[0]

    ArrayView.__name__ = ArrayView.__qualname__ = numba_view.__name__
    return ArrayView


def _insertion_point(builder: Any) -> Any:
    """Where ``builder`` inserts: after an instruction, or at the start of a block."""
    anchor = builder._anchor
    return builder.block.instructions[anchor - 1] if anchor else builder.block


def _move_to(builder: Any, point: Any) -> None:
    """``builder`` to an :func:`_insertion_point`."""
    if isinstance(point, ir.Block):
        builder.position_at_start(point)
    else:
        builder.position_after(point)


arrays_read_in_registers()


def arrays_boxed_with_their_type_kept() -> None:
    """numba's boxing of an array a kernel returns to Python, with the array's Python type
    (``np.ndarray``) read from the kernel's constants, as numba reads its dtype, instead of
    unpickled at every call.

    numba embeds the type in the kernel as pickled bytes and calls back into Python for each
    array it returns (``numba_unpickle``: bytes objects made, a Python function called, a memo
    looked up), and keeps the reference it gets, so ``np.ndarray``'s reference count grows by
    one per array returned. The iterative solver's step returns six arrays: a call of a kernel
    taking the step's arguments and returning as many took 5.0 us, 2.9 so (2.7 of them the
    arguments'), and a 1-box world's step 16.0 -> 14.6 us. Boxing without the kernel's
    environment (numba's own uses) stays numba's."""
    boxers = pythonapi._boxers.functions
    if getattr(boxers[types.Array], "_polycolly_quick", False):
        return
    numba_box = boxing.box_array  # numba's, registered for types.Array by numba.core.boxing

    def box_array(array_type: Any, value: Any, c: Any) -> Any:
        if not c.context.enable_nrt or c.env_manager is None:
            return numba_box(array_type, value, c)
        dtype = c.env_manager.read_const(c.env_manager.add_const(numpy_support.as_dtype(array_type.dtype)))
        python_type = c.env_manager.read_const(c.env_manager.add_const(array_type.box_type))
        int32 = ir.IntType(32)
        pyapi = c.pyapi
        signature = ir.FunctionType(pyapi.pyobj, [pyapi.voidptr, pyapi.pyobj, int32, int32, pyapi.pyobj])
        adapt = pyapi._get_function(signature, name="NRT_adapt_ndarray_to_python_acqref")
        slot = cgutils.alloca_once_value(c.builder, value)
        boxed = c.builder.call(
            adapt,
            [
                c.builder.bitcast(slot, pyapi.voidptr),
                python_type,
                ir.Constant(int32, array_type.ndim),
                ir.Constant(int32, int(array_type.mutable)),
                dtype,
            ],
        )
        # The Python array acquired its own reference; the kernel's goes (numba's way).
        c.context.nrt.decref(c.builder, array_type, value)
        return boxed

    box_array._polycolly_quick = True  # type: ignore[attr-defined]
    box_array.__wrapped__ = numba_box  # type: ignore[attr-defined]
    boxers[types.Array] = box_array


arrays_boxed_with_their_type_kept()

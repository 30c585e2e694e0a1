"""How the engine's kernels are compiled: kernels only compiled code calls, and compiling what a
function calls without compiling the function.

numba gives every kernel two wrappers: one Python calls it through (unboxing each argument, a
few hundred lines of IR for a tuple of arrays) and one C can call. A kernel only other kernels
call needs neither, and building them was a sixth of a cold start's compile (the default
scene's step, ``python -m demo bench --compile --lanes 1``: 107 CPU s with them, 91 without,
the two run side by side). :func:`compiled_only` leaves them out. Such a kernel cannot be
called from Python: :class:`CompiledOnly` says so (numba would call a null pointer); its
``py_func`` is the plain function, and :func:`python_entry` a kernel that calls it (for tests
that run one stage of the step on its own: a stage only tests call from Python is
compiled-only, and the default scene's first step compiles it without the wrappers).

Nor is such a kernel's own code optimised as a whole and compiled to machine code
(:class:`_LinkOnlyLibrary`): numba links its IR into every kernel that calls it, which
optimises and compiles the linked whole again, so that work was done once per level of the
call tree and its result never ran (the default scene's step with one lane, alternating:
43.5 and 40.9 CPU s with it, 38.0 and 33.5 without; the answers are bit-identical).

The step's stages (broadphase, narrowphase, the soft step, ...: :func:`stage`) are the other
way round: each is optimised with what it calls and compiled to machine code once, in the
process that compiles it first, and the kernels that call it link only its declaration, so the
step's own kernel no longer optimises and compiles the whole step again after its parts (the
default scene's step after its two parts, ``python -m demo bench --compile --lanes 2``: 5.5 s
of compiling alone, now 1.5-1.7 s). The machine code of a kernel that calls a stage holds only the
call, which the JIT resolves when it loads it: its cache entry names the stages, and loading it
loads (or compiles) them first (:func:`stages_loaded_first`).

:func:`compile_calls` types a plain function's body for given arguments, which compiles (or
loads from numba's cache) every kernel the body calls, for the types it calls them with,
without compiling the function itself: how the step's parts are compiled at the same time in
separate processes (``World.precompile``) without running them.

Three more of numba's ways are changed for the engine: its records go into a call as one
argument (:func:`records_passed_whole`); numba's own implementations (``np.empty``, ...)
are compiled as compiled-only kernels are (:func:`overloads_link_only`); and a kernel borrows
the arrays in its arguments instead of counting their references up on entry and down on exit
(:class:`_BorrowingLower`: compiled-only kernels, stages, numba's implementations, and the
solvers' steps, ``BorrowingCompiler``). A step called its stages with records of tens of
arrays, each counted twice per call: 1900 counts a step of the 210-box pyramid (atomic
operations, and calls LLVM could not optimise across), 400 borrowing; the pyramid's step
5.6% faster, the 1000-body pile's 3.4% (the median of alternating rounds, same answers bit
for bit).

Importing this module applies collision.numba_trims (nine of numba's own costs in a cold
compile and one in every call trimmed, each giving numba's own result).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import weakref
from collections.abc import Callable
from typing import Any

import llvmlite.binding as llvm
from llvmlite import ir
from numba import njit, typeof
from numba.core import caching, compiler, lowering, typed_passes, types
from numba.core import ir as numba_ir
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler_lock import global_compiler_lock
from numba.core.compiler_machinery import AnalysisPass, register_pass
from numba.core.datamodel import models
from numba.core.datamodel.registry import default_manager
from numba.core.registry import CPUDispatcher, cpu_target
from numba.core.typing.typeof import Purpose

from collision.numba_trims import OVERLOAD_OPTIONS, _replace, _replaced


class _WholeArgument:
    """A data model mixin: a value goes into and out of a call as one LLVM argument, an
    aggregate, rather than as every scalar inside it (numba's way for a tuple, each array in it
    a further seven)."""

    def get_argument_type(self) -> Any:
        return self.get_value_type()  # type: ignore[attr-defined]

    def as_argument(self, builder: Any, value: Any) -> Any:
        return value

    def from_argument(self, builder: Any, value: Any) -> Any:
        return value


class _RecordModel(_WholeArgument, models.TupleModel):
    """An engine record of fields of different types, passed whole (see :func:`records_passed_whole`)."""


class _UniformRecordModel(_WholeArgument, models.UniTupleModel):
    """An engine record whose fields share one type, passed whole."""


#: The package whose named tuples :func:`records_passed_whole` passes whole.
_RECORDS_PACKAGE = __name__.partition(".")[0]


def records_passed_whole() -> None:
    """The engine's records (named tuples defined in this package, collision.records) go into
    a compiled call as one argument each.

    numba passes a tuple to a compiled function member by member, an array in it as seven
    scalars more: every call of a stage with the body store's rows (21 arrays) and the
    solver's state, settings and context wrote some three hundred ``extractvalue``
    instructions, each spelling out the record's whole type, and the function rebuilt the
    record from them. Passed whole, the call holds the record as it is; LLVM splits it into the
    same registers and stack slots when it compiles the call, and inlines it away in a kernel
    that links the callee. The default scene's step, one process, empty cache: 22.9 MB of
    LLVM IR text where it was 29.5 MB (with :func:`overloads_link_only`, three runs
    alternating: 32.0, 29.0, 31.0 CPU s against 34.2, 31.3, 31.2). Other named tuples (other
    packages' kernels, whose cached code may call or be called with numba's layout) keep
    numba's model."""
    for kind, whole in ((types.NamedTuple, _RecordModel), (types.NamedUniTuple, _UniformRecordModel)):
        numba_model = default_manager._handlers[kind]
        if getattr(numba_model, "_polycolly_quick", False):
            continue

        def model(manager: Any, record: Any, whole: type = whole, numba_model: Any = numba_model) -> Any:
            module = getattr(record.instance_class, "__module__", "") or ""
            if module.partition(".")[0] == _RECORDS_PACKAGE:
                return whole(manager, record)
            return numba_model(manager, record)

        model._polycolly_quick = True  # type: ignore[attr-defined]
        model.__wrapped__ = numba_model  # type: ignore[attr-defined]
        default_manager.register(kind, model)


records_passed_whole()


class _LinkOnlyLibrary(JITCodeLibrary):
    """The code of a kernel only other kernels call (see the module docstring): its functions
    are optimised one by one, as numba does on lowering, and kept as IR for its callers to link
    and optimise with their own. Only its environment's slot, which numba fills when it builds
    the kernel, is compiled (a module of its own); numba caches that object beside the IR."""

    def _optimize_final_module(self) -> None:
        """Left to the kernels that link this one."""

    def _finalize_final_module(self) -> None:
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        slots = _environment_slots(self._codegen, self._final_module)
        # numba's object-code hooks find the library through this attribute (name-mangled).
        slots._CPUCodeLibrary__library = weakref.proxy(self)
        self._codegen._add_module(slots)
        self._codegen._engine.finalize_object()
        self._finalized = True


def _environment_slots(codegen: Any, module: Any) -> Any:
    """A module defining only ``module``'s environment slots (numba's ``_ZN08NumbaEnv`` globals,
    pointers numba sets when it builds the kernel)."""
    slots = codegen._create_empty_module(f"{module.name}.env")
    for variable in module.global_variables:
        if variable.name.startswith("_ZN08NumbaEnv") and not variable.is_declaration:
            slot = ir.GlobalVariable(slots, ir.IntType(8).as_pointer(), name=variable.name)
            slot.linkage = "common"
            slot.initializer = ir.Constant(slot.type.pointee, None)
    return llvm.parse_assembly(str(slots))


class _StageLibrary(JITCodeLibrary):
    """The code of a stage (see :func:`stage`): optimised as a whole with what it calls and
    compiled to machine code once, as numba does for any kernel, but the kernels that call it
    link only its functions' declarations; the JIT links their calls to its machine code."""

    def _get_module_for_linking(self) -> Any:
        self._ensure_finalized()
        if self._shared_module is None:
            self._shared_module = _declarations(self._codegen, self._final_module)
        return self._shared_module


def _declarations(codegen: Any, module: Any) -> Any:
    """A module declaring ``module``'s exported functions (defined there, external linkage),
    defining nothing."""
    lines = [str(codegen._create_empty_module(f"{module.name}.declared"))]
    for function in module.functions:
        if not function.is_declaration and function.linkage == llvm.Linkage.external:
            returns, _, parameters = str(function.global_value_type).partition(" (")
            lines.append(f'declare {returns} @"{function.name}"({parameters}')
    return llvm.parse_assembly("\n".join(lines))


#: The number in the name of a stage's function (see :func:`_library_pass`); numba counts its
#: own from 1.
STAGE_NAME_NUMBER = 0


def _library_pass(library_class: type, name: str, fixed_name: bool = False) -> type:
    """A numba pass that gives the kernel a ``library_class`` library before numba lowers it;
    with ``fixed_name``, a name that any process gives it: numba names a compiled function by
    its module, name and argument types and a number counted in the process that compiles it,
    and the machine code of a stage's callers calls it by that name, whichever process compiled
    the stage and whichever compiled them (two may compile one stage at once: the cache keeps
    the last one written)."""

    class LibraryPass(AnalysisPass):
        _name = name

        def __init__(self) -> None:
            AnalysisPass.__init__(self)

        def run_pass(self, state: Any) -> bool:
            if state.library is None:
                codegen = state.targetctx.codegen()
                state.library = library_class(codegen, state.func_id.func_qualname)
                state.library.enable_object_caching()
            if fixed_name:
                state.func_ir.func_id.unique_id = STAGE_NAME_NUMBER
            return False

    LibraryPass.__qualname__ = LibraryPass.__name__ = f"_{library_class.__name__}Pass"
    return register_pass(mutates_CFG=False, analysis_only=True)(LibraryPass)


class _BorrowingLower(lowering.Lower):
    """numba's lowering, except that a kernel borrows the arrays its arguments hold instead of
    counting them (see the module docstring).

    numba counts up the arrays in a variable when it is assigned and down after its last use:
    two atomic operations per array, and calls LLVM cannot see through, which keep it from
    optimising the code around them. For an argument they count nothing, because the caller's
    reference keeps the value alive for the whole call; nor for what the argument holds: a
    record or tuple cannot change, so the arrays in it stay alive while it does.

    Borrowed, and never counted: a variable assigned in one place (a loop may run it many
    times) from an argument, from a borrowed variable, from a field or the items of a borrowed
    record or tuple, or as a record or tuple of borrowed values. Everything else is counted as
    numba counts it; a value returned or put into something is counted up there as before.
    """

    _borrowed: frozenset[str] = frozenset()

    def pre_lower(self) -> None:
        super().pre_lower()
        assigned: dict[str, int] = {}
        sources: dict[str, Any] = {}
        for block in self.blocks.values():
            for inst in block.body:
                if isinstance(inst, numba_ir.Assign):
                    name = inst.target.name
                    assigned[name] = assigned.get(name, 0) + 1
                    sources[name] = inst.value
        borrowed: set[str] = set()
        changed = True
        while changed:
            changed = False
            for name, value in sources.items():
                if name in borrowed or assigned[name] != 1:
                    continue
                if self._borrows(value, borrowed):
                    borrowed.add(name)
                    changed = True
        self._borrowed = frozenset(borrowed)

    def _borrows(self, value: Any, borrowed: set[str]) -> bool:
        """Whether the value assigned, ``value`` (numba IR), is kept alive by the arguments
        alone, given the variables already found ``borrowed``."""
        if isinstance(value, numba_ir.Arg):
            return not isinstance(self.typeof("arg." + value.name), types.Omitted)
        if isinstance(value, numba_ir.Var):
            return value.name in borrowed
        if isinstance(value, numba_ir.Expr) and value.op in ("getattr", "static_getitem", "exhaust_iter"):
            return value.value.name in borrowed and isinstance(self.typeof(value.value.name), types.BaseTuple)
        if isinstance(value, numba_ir.Expr) and value.op == "build_tuple":
            return all(item.name in borrowed for item in value.items)
        if isinstance(value, numba_ir.Expr) and value.op == "call":
            # A record made of borrowed values holds nothing they do not.
            if not isinstance(self.typeof(value.func.name), types.NamedTupleClass) or value.kws:
                return False
            parts = [*value.args, *([value.vararg] if value.vararg is not None else [])]
            return all(part.name in borrowed for part in parts)
        return False

    def lower_assign(self, ty: Any, inst: Any) -> Any:
        name = inst.target.name
        if name not in self._borrowed:
            return super().lower_assign(ty, inst)
        value = inst.value
        if isinstance(value, numba_ir.Arg):
            argty = self.typeof("arg." + value.name)
            return self.context.cast(self.builder, self.fnargs[value.index], argty, ty)
        if isinstance(value, numba_ir.Var):
            return self.context.cast(self.builder, self.loadvar(value.name), self.typeof(value.name), ty)
        # numba's lowering counts a field up; counted down at once, LLVM's reference count
        # pruning (numba's RefPrune pass) takes the pair out.
        result = super().lower_assign(ty, inst)
        self.decref(ty, result)
        return result

    def storevar(self, value: Any, name: str, argidx: Any = None) -> None:
        if name not in self._borrowed or argidx is not None:
            super().storevar(value, name, argidx)
            return
        # numba's, without counting down the value it replaces (borrowed too).
        self._alloca_var(name, self.typeof(name))
        if name in self._singly_assigned_vars and not self._disable_sroa_like_opt:
            self._blk_local_varmap[name] = value
        else:
            self.builder.store(value, self.getvar(name))

    def delvar(self, name: str) -> None:
        if name not in self._borrowed:
            super().delvar(name)


@register_pass(mutates_CFG=True, analysis_only=False)
class _BorrowingLowering(typed_passes.NativeLowering):
    """numba's lowering pass with :class:`_BorrowingLower`."""

    _name = "polycolly_borrowing_lowering"

    @property
    def lowering_class(self) -> type:
        return _BorrowingLower


def _compiler_with(library_pass: type | None) -> type:
    """numba's pipeline, with the kernel's code in the library ``library_pass`` gives it (None:
    numba's) and lowered borrowing its arguments (:class:`_BorrowingLower`), unless it runs
    loops on threads (``parallel=True``: numba builds their bodies as functions of its own)."""

    class WithLibrary(compiler.Compiler):
        def define_pipelines(self) -> list[Any]:
            pipelines = super().define_pipelines()
            for manager in pipelines:
                if library_pass is not None:
                    manager.add_pass_after(library_pass, typed_passes.AnnotateTypes)
                if not self.state.flags.auto_parallel.enabled:
                    manager.passes = [
                        (_BorrowingLowering, str(_BorrowingLowering))
                        if kind is typed_passes.NativeLowering
                        else (kind, text)
                        for kind, text in manager.passes
                    ]
                manager.finalize()
            return pipelines

    return WithLibrary


_LinkOnlyCompiler = _compiler_with(_library_pass(_LinkOnlyLibrary, "polycolly_link_only_code"))
_StageCompiler = _compiler_with(_library_pass(_StageLibrary, "polycolly_stage_code", fixed_name=True))
#: numba's pipeline for a kernel Python calls (``njit(pipeline_class=BorrowingCompiler)``),
#: lowered borrowing its arguments (:class:`_BorrowingLower`): Python's references to them
#: outlast the call.
BorrowingCompiler = _compiler_with(None)


#: The parts of numba's code library that :class:`_LinkOnlyLibrary` overrides or calls (numba's
#: internals, as in numba 0.68): a numba without them compiles compiled-only kernels as any
#: other, with machine code of their own.
_LIBRARY_PARTS = ("_finalize_dynamic_globals", "_verify_declare_only_symbols", "_optimize_final_module")

#: numba's options for a kernel without the two wrappers.
WITHOUT_WRAPPERS: dict[str, Any] = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
if all(hasattr(JITCodeLibrary, part) for part in _LIBRARY_PARTS):
    WITHOUT_WRAPPERS["pipeline_class"] = _LinkOnlyCompiler


def overloads_link_only() -> None:
    """numba's implementations of its functions and methods (``@overload``: ``np.empty``,
    ``min``, ...) compiled as compiled-only kernels are: kept as IR for the kernels that call
    them, not optimised as a whole nor compiled to machine code of their own.

    Only compiled code calls them (numba builds them without the Python wrapper, and
    collision.numba_trims without the C one), and numba links their IR into every kernel that
    calls them, which optimises and compiles it again: their own machine code never ran. The
    default scene's step compiles 64 of them, whose own optimisation and machine code took
    about 0.4 CPU s. An implementation that names its own pipeline keeps it."""
    OVERLOAD_OPTIONS["pipeline_class"] = _LinkOnlyCompiler


if "pipeline_class" in WITHOUT_WRAPPERS:
    overloads_link_only()


class CompiledOnly(CPUDispatcher):
    """A kernel built without the wrappers Python calls it through (see :func:`compiled_only`);
    compiled code calls it as any kernel."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = f"{self.py_func.__module__}.{self.py_func.__qualname__}"
        raise TypeError(f"{name} is called from compiled code only; {name}.py_func is its plain form")


def compiled_only(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``njit(cache=True, **options)`` for a kernel that only other kernels call: no Python or C
    wrapper (see the module docstring). With ``NUMBA_DISABLE_JIT`` the plain function."""

    def wrap(func: Callable[..., Any]) -> Any:
        kernel = njit(cache=True, **WITHOUT_WRAPPERS, **options)(func)
        if isinstance(kernel, CPUDispatcher):
            kernel.__class__ = CompiledOnly
        return kernel

    return wrap


#: The symbols of the stages' compiled functions (:func:`stage`) in this process: ``{symbol:
#: (module, qualified name, argument types)}``, what a kernel that calls one loads it by.
_STAGES: dict[str, tuple[str, str, tuple[Any, ...]]] = {}

#: The stages defined, by (module, qualified name).
_STAGE_KERNELS: dict[tuple[str, str], Any] = {}

#: A stage's machine code is its own only if numba keeps a library's linking module as this
#: module expects (numba 0.68) and its cache can be told to load the stages first.
_STAGES_APART = hasattr(JITCodeLibrary, "_get_module_for_linking") and hasattr(
    caching.CompileResultCacheImpl, "rebuild"
)


class Stage(CompiledOnly):
    """A compiled-only kernel with machine code of its own (see :func:`stage`)."""

    def add_overload(self, cres: Any) -> None:
        super().add_overload(cres)
        _STAGES[cres.fndesc.mangled_name] = (
            self.py_func.__module__,
            self.py_func.__qualname__,
            tuple(cres.signature.args),
        )


def stage(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """:func:`compiled_only` for a stage of a step, a kernel big enough to be optimised and
    compiled to machine code as a whole on its own (in whichever process compiles it first):
    the kernels that call it call that machine code instead of linking its code and compiling
    it once more (see the module docstring). Their cache entries name the stages they call,
    which are loaded before them (:func:`stages_loaded_first`)."""

    def wrap(func: Callable[..., Any]) -> Any:
        if not _STAGES_APART:
            return compiled_only(**options)(func)
        kernel = njit(cache=True, **{**WITHOUT_WRAPPERS, **options, "pipeline_class": _StageCompiler})(func)
        if isinstance(kernel, CPUDispatcher):
            kernel.__class__ = Stage
            # By name, not by the module's attribute, which the interpreter swaps while it runs.
            _STAGE_KERNELS[(func.__module__, func.__qualname__)] = kernel
        return kernel

    return wrap


def _stages_called(library: Any) -> tuple[tuple[str, tuple[str, str, tuple[Any, ...]]], ...]:
    """The stages whose functions ``library``'s code calls (it declares them): ``(symbol,
    (module, qualified name, argument types))`` each."""
    return tuple(
        (function.name, _STAGES[function.name])
        for function in library._final_module.functions
        if function.is_declaration and function.name in _STAGES
    )


def _load_stage(symbol: str, key: tuple[str, str, tuple[Any, ...]]) -> bool:
    """Compile, or load from the cache, stage ``module.qualname`` for ``argtypes`` (``key``);
    whether its function is now ``symbol``, the name its callers' machine code calls (a stage's
    name is fixed, :func:`_library_pass`, but a cache written by another version of this
    module may hold other names)."""
    module, qualname, argtypes = key
    if (module, qualname) not in _STAGE_KERNELS:
        try:
            importlib.import_module(module)
        except ImportError:
            return False
    kernel = _STAGE_KERNELS.get((module, qualname))
    if kernel is None:
        return False
    kernel.compile(argtypes)
    return _STAGES.get(symbol) == key


#: What a cache entry that names the stages its kernel calls starts with.
_WITH_STAGES = "polycolly-stages"


def stages_loaded_first() -> None:
    """numba's cache entries of kernels that call stages (:func:`stage`) name those stages, and
    loading such an entry loads (or compiles) them first.

    A stage's machine code is loaded on its own, and the machine code of a kernel that calls
    it holds only the call, resolved when it is loaded: were the stage not there yet, the call
    would jump nowhere. Entries of kernels that call no stage are numba's own."""
    impl = caching.CompileResultCacheImpl
    if _replaced(impl, "rebuild"):
        return
    reduce, rebuild = impl.reduce, impl.rebuild

    def reduce_naming_stages(self: Any, cres: Any) -> Any:
        payload = reduce(self, cres)
        stages = _stages_called(cres.library)
        return (_WITH_STAGES, stages, payload) if stages else payload

    def rebuild_after_stages(self: Any, target_context: Any, payload: Any) -> Any:
        if isinstance(payload[0], str) and payload[0] == _WITH_STAGES:
            _, stages, payload = payload
            if not all(_load_stage(symbol, key) for symbol, key in stages):
                return None  # numba compiles the kernel again, calling the stages there are
        return rebuild(self, target_context, payload)

    _replace(impl, "reduce", reduce_naming_stages)
    _replace(impl, "rebuild", rebuild_after_stages)


@functools.cache
def python_entry(kernel: Any) -> Callable[..., Any]:
    """A kernel Python can call, with ``kernel``'s parameters, that calls the compiled-only
    ``kernel`` and returns what it returns: for tests and tools that run one stage on its own
    (the program's step reaches its stages from compiled code only). Compiled on first call,
    not cached on disk; ``kernel`` itself is. Without the JIT, ``kernel`` (a plain function)."""
    if not isinstance(kernel, CompiledOnly):
        return kernel
    names = ", ".join(inspect.signature(kernel.py_func).parameters)
    scope: dict[str, Any] = {"kernel": kernel}
    exec(f"def entry({names}):\n    return kernel({names})\n", scope)  # noqa: S102 - names from a signature
    return njit(scope["entry"])


@register_pass(mutates_CFG=False, analysis_only=True)
class _StopAfterTyping(AnalysisPass):
    """Ends the pipeline once the body is typed: nothing is lowered or compiled for it."""

    _name = "polycolly_stop_after_typing"

    def __init__(self) -> None:
        AnalysisPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        raise compiler._EarlyPipelineCompletion(state.return_type)


class _TypingOnly(compiler.CompilerBase):
    """numba's untyped passes (kernels marked ``inline="always"`` are inlined, as in a kernel)
    and its type inference, which compiles each kernel the body calls; then stop."""

    def define_pipelines(self) -> list[Any]:
        manager = compiler.DefaultPassBuilder.define_untyped_pipeline(self.state)
        manager.add_pass(typed_passes.NopythonTypeInference, "types every call")
        manager.add_pass(_StopAfterTyping, "no lowering")
        manager.finalize()
        return [manager]


def compile_calls(func: Callable[..., Any], *args: Any) -> Any:
    """Compile (or load from numba's cache) every kernel that plain function ``func`` calls, as
    a kernel with the body of ``func`` called with ``args`` would: the same types, so the
    kernel that holds such a body finds them all compiled. ``func`` itself is only typed.
    Returns the numba type of what ``func`` returns."""
    argtypes = tuple(typeof(a, Purpose.argument) for a in args)
    with global_compiler_lock:
        cpu_target.target_context.refresh()
        cpu_target.typing_context.refresh()
        return compiler.compile_extra(
            cpu_target.typing_context,
            cpu_target.target_context,
            func,
            argtypes,
            None,
            cpu_target.options.parse_as_flags(compiler.Flags(), {}),  # a kernel's: numba's NRT on
            {},
            pipeline_class=_TypingOnly,
        )


if _STAGES_APART:
    stages_loaded_first()

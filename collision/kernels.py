"""How the engine's kernels are compiled: kernels only compiled code calls, and compiling what a
function calls without compiling the function.

numba gives every kernel two wrappers: one Python calls it through (unboxing each argument, a
few hundred lines of IR for a tuple of arrays) and one C can call. A kernel only other kernels
call needs neither, and building them was a sixth of a cold start's compile (the default
scene's step, ``python -m demo bench --compile --lanes 1``: 107 CPU s with them, 91 without,
the two run side by side). :func:`compiled_only` leaves them out. Such a kernel cannot be
called from Python: :class:`CompiledOnly` says so (numba would call a null pointer); its
``py_func`` is the plain function.

:func:`compile_calls` types a plain function's body for given arguments, which compiles (or
loads from numba's cache) every kernel the body calls, for the types it calls them with,
without compiling the function itself: how the step's parts are compiled at the same time in
separate processes (``World.precompile``) without running them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import njit, typeof
from numba.core import compiler, typed_passes
from numba.core.compiler_lock import global_compiler_lock
from numba.core.compiler_machinery import AnalysisPass, register_pass
from numba.core.registry import CPUDispatcher, cpu_target
from numba.core.typing.typeof import Purpose

#: numba's options for a kernel without the two wrappers.
WITHOUT_WRAPPERS: dict[str, Any] = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}


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

"""The engine's kernels run as plain Python while their compiled forms are not ready.

A cold start compiles every kernel a step calls before the first step can run: over a minute
on two cores. Every kernel is also valid Python that gives the same answers bit for bit (the
engine is tested with ``NUMBA_DISABLE_JIT``), slower but fast enough for a scene of a few
dozen bodies (milliseconds a step). While the interpreter is installed, each kernel that any
loaded module refers to is replaced, in that module, by a :class:`Switch`: a call from Python
runs the kernel's plain-Python form, whose calls to other kernels run theirs, so nothing is
compiled. A thread inside :func:`compiled_here` calls the compiled kernels instead (it can
load them from numba's cache, or compile them, while other threads run interpreted).
:func:`uninstall` puts the compiled kernels back everywhere.

    interpreter.install()
    world.step(dt)                      # plain Python: no compile
    with interpreter.compiled_here():
        other_world.step(dt)            # loads or compiles the kernels, in this thread only
    interpreter.uninstall()             # every thread: compiled

A kernel whose Python form cannot run in Python (it calls an LLVM intrinsic) names the plain
function that stands for it with :func:`stand_in`.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from numba.core.registry import CPUDispatcher
from numba.extending import typeof_impl

#: Plain functions standing in for kernels whose Python form cannot run (see stand_in).
_STAND_INS: dict[Any, Callable[..., Any]] = {}
_local = threading.local()
_lock = threading.Lock()
_installed = False


class Switch:
    """Stands in a module for kernel ``dispatcher`` while the interpreter is installed: called,
    it runs ``python`` (the kernel's plain form, calling the other kernels' plain forms), or the
    compiled kernel in a thread inside :func:`compiled_here`. Other attributes are the kernel's
    (``py_func``, ``signatures``, ...)."""

    __slots__ = ("dispatcher", "python")

    def __init__(self, dispatcher: Any, python: Callable[..., Any]) -> None:
        self.dispatcher = dispatcher
        self.python = python

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if getattr(_local, "compiled", False):
            return self.dispatcher(*args, **kwargs)
        return self.python(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.dispatcher, name)

    def __repr__(self) -> str:
        return f"<interpreted {self.dispatcher.py_func.__module__}.{self.dispatcher.py_func.__qualname__}>"


# A kernel compiled while the interpreter is installed (in compiled_here) finds Switches among
# its globals: numba types each as the kernel it stands for.
@typeof_impl.register(Switch)
def _typeof_switch(value: Switch, context: Any) -> Any:
    return typeof_impl(value.dispatcher, context)


def stand_in(kernel: Any, python: Callable[..., Any]) -> None:
    """While installed, ``python`` runs where ``kernel`` (a compiled engine function) is called."""
    _STAND_INS[kernel] = python


def is_installed() -> bool:
    """Whether the kernels are interpreted (outside :func:`compiled_here`)."""
    return _installed


def _engine_kernel(value: Any) -> bool:
    if not isinstance(value, CPUDispatcher):
        return False
    # A function made by exec (collision.kernels.python_entry's) has no module.
    return (value.py_func.__module__ or "").partition(".")[0] == "collision"


def _import_engine() -> None:
    """Every module of the engine, so that no kernel is left outside the switch."""
    package = importlib.import_module("collision")
    for info in pkgutil.walk_packages(package.__path__, "collision."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)


def _plain_forms(kernels: list[Any]) -> dict[Any, Callable[..., Any]]:
    """Each kernel's Python form, its globals a copy of its module's with every kernel replaced
    by that kernel's Python form (calls between plain forms pay no switch)."""
    forms: dict[Any, Callable[..., Any]] = {}
    namespaces: dict[str, dict[str, Any]] = {}
    for kernel in kernels:
        if kernel in _STAND_INS:
            forms[kernel] = _STAND_INS[kernel]
            continue
        func = kernel.py_func
        namespace = namespaces.setdefault(func.__module__, dict(func.__globals__))
        plain = types.FunctionType(
            func.__code__, namespace, func.__name__, func.__defaults__, func.__closure__
        )
        plain.__kwdefaults__ = func.__kwdefaults__
        plain.__qualname__ = func.__qualname__
        plain.__doc__ = func.__doc__
        forms[kernel] = plain
    for namespace in namespaces.values():
        for name, value in namespace.items():
            if _engine_kernel(value) and value in forms:
                namespace[name] = forms[value]
    return forms


def _modules() -> list[types.ModuleType]:
    return [module for module in list(sys.modules.values()) if isinstance(module, types.ModuleType)]


def install() -> None:
    """Interpret the engine's kernels (see the module docstring): every module loaded now, and
    every one that imports a kernel later from an engine module, calls the Switch. Imports the
    whole engine first. Installing twice is installing once."""
    global _installed
    with _lock:
        if _installed:
            return
        _import_engine()
        kernels = {
            id(value): value
            for module in _modules()
            for value in list(vars(module).values())
            if _engine_kernel(value)
        }
        forms = _plain_forms(list(kernels.values()))
        switches = {key: Switch(kernel, forms[kernel]) for key, kernel in kernels.items()}
        for module in _modules():
            namespace = vars(module)
            for name, value in list(namespace.items()):
                if _engine_kernel(value) and id(value) in switches:
                    namespace[name] = switches[id(value)]
        _installed = True


def uninstall() -> None:
    """Back to the compiled kernels, in every module and thread."""
    global _installed
    with _lock:
        for module in _modules():
            namespace = vars(module)
            for name, value in list(namespace.items()):
                if isinstance(value, Switch):
                    namespace[name] = value.dispatcher
        _installed = False


@contextmanager
def compiled_here() -> Iterator[None]:
    """Within: this thread calls the compiled kernels, installed or not."""
    before = getattr(_local, "compiled", False)
    _local.compiled = True
    try:
        yield
    finally:
        _local.compiled = before

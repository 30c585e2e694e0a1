"""Kernels built without their Python wrapper (collision.kernels): a call from Python is a clear
TypeError, never a call through a null pointer; no Python code of the project calls one; and
typing a plain function compiles what it calls without running or compiling it."""

from __future__ import annotations

import ast
import importlib
import os
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest

import collision
from collision.kernels import CompiledOnly

ROOT = Path(__file__).resolve().parents[2]
JIT = os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0")


def engine_kernels() -> dict[str, list[CompiledOnly]]:
    """Every compiled-only kernel of the engine, by name."""
    found: dict[str, list[CompiledOnly]] = {}
    for info in pkgutil.walk_packages(collision.__path__, "collision."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, CompiledOnly) and value.py_func.__module__ == info.name:
                found.setdefault(value.py_func.__name__, []).append(value)
    return found


@pytest.mark.skipif(not JIT, reason="kernels are plain functions without the JIT")
def test_the_step_s_inner_kernels_are_compiled_only() -> None:
    kernels = engine_kernels()
    # The solver's stages and the deepest helpers of the narrowphase, for a start.
    for name in ("collide", "apply_restitution", "propagate_shock", "face_separation", "_pass"):
        assert name in kernels, name
    assert len(kernels) > 60


@pytest.mark.skipif(not JIT, reason="kernels are plain functions without the JIT")
def test_a_call_from_python_is_a_type_error_naming_the_kernel() -> None:
    from collision.solvers.iterative.restitution import _lcp2

    with pytest.raises(TypeError, match=r"restitution\._lcp2 is called from compiled code only"):
        _lcp2(1.0, 1.0, 2.0, 0.0, 2.0, 0.5, 0.0, 0.5)
    # Its plain form answers: both rows separating, no impulse.
    assert _lcp2.py_func(1.0, 1.0, 2.0, 0.0, 2.0, 0.5, 0.0, 0.5) == (0.0, 0.0)


def _typed_only(tree: ast.Module) -> set[str]:
    """Plain functions of a module that are handed to compile_calls: typed, never run."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "compile_calls" and node.args:
            first = node.args[0]
            if isinstance(first, ast.Name):
                names.add(first.id)
            elif isinstance(first, ast.Attribute) and first.attr == "py_func":
                names.add(getattr(first.value, "id", ""))
    return names


def _is_kernel(fn: ast.FunctionDef) -> bool:
    for decorator in fn.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if getattr(target, "id", None) in ("njit", "compiled_only", "stage"):
            return True
    return False


@pytest.mark.skipif(not JIT, reason="kernels are plain functions without the JIT")
def test_no_python_code_calls_a_compiled_only_kernel() -> None:
    """A name of a compiled-only kernel appears in Python code (outside kernels and the plain
    functions compile_calls types) only as ``kernel.py_func``, as ``python_entry(kernel)``, as
    ``interpreter.stand_in(kernel, ...)`` or in an import."""
    names = set(engine_kernels())
    offences = []
    for folder in ("collision", "demo", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == Path(__file__).resolve():
                continue  # calls one on purpose, to see the error
            tree = ast.parse(path.read_text(), str(path))
            skip: set[int] = set()
            typed = _typed_only(tree)
            for fn in ast.walk(tree):
                if isinstance(fn, ast.FunctionDef) and (_is_kernel(fn) or fn.name in typed):
                    skip.update(id(node) for node in ast.walk(fn))
            parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
            for node in ast.walk(tree):
                if id(node) in skip:
                    continue
                name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
                if name not in names or isinstance(node, ast.Attribute) and name == "py_func":
                    continue
                parent = parents.get(id(node))
                if isinstance(parent, ast.Attribute) and parent.attr == "py_func":
                    continue
                if isinstance(parent, ast.Call) and getattr(parent.func, "id", None) == "python_entry":
                    continue  # called through a kernel of its own
                if isinstance(parent, ast.Call) and getattr(parent.func, "attr", None) == "stand_in":
                    continue  # what the interpreter runs in its place: named, not called
                offences.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    assert not offences, "Python code refers to compiled-only kernels:\n" + "\n".join(offences)


@pytest.mark.skipif(not JIT, reason="kernels are plain functions without the JIT")
def test_compile_calls_compiles_what_a_body_calls_without_running_it(tmp_path: Path) -> None:
    """In a fresh process with an empty cache: the kernel a plain function calls is compiled for
    the types the body passes, the plain function never runs (it would raise: a call from Python
    to a compiled-only kernel), and a kernel with the same body then compiles only itself."""
    (tmp_path / "typed_module.py").write_text(
        textwrap.dedent(
            """
            import numpy as np
            from numba import njit
            from collision.kernels import compiled_only

            @compiled_only()
            def double(a, k):
                return 2.0 * a[k]

            def body(a):
                scratch = np.empty((a.shape[0], 2))  # an allocation is typed as a kernel's
                scratch[0, 0] = double(a, a.shape[0] - 1)
                return scratch[0, 0] + 1.0

            kernel = njit(cache=True)(body)
            """
        )
    )
    script = textwrap.dedent(
        """
        import numpy as np
        from numba.core import event
        from collision.kernels import compile_calls
        import typed_module as m

        compiled = []
        class Listener(event.Listener):
            def on_start(self, ev):
                func = ev.data["dispatcher"].py_func
                if func.__module__ == "typed_module":  # not numba's own overloads
                    compiled.append(func.__name__)
            def on_end(self, ev):
                pass
        event.register("numba:compile", Listener())
        returned = compile_calls(m.body, np.arange(3.0))
        print(str(returned), [str(s) for s in m.double.signatures], compiled)
        compiled.clear()
        print(m.kernel(np.arange(3.0)), compiled)
        """
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": f"{ROOT}:{tmp_path}"}
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
    )
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.strip().splitlines()
    assert first == """float64 ["(Array(float64, 1, 'C', False, aligned=True), int64)"] ['double']"""
    assert second == "5.0 ['body']"


@pytest.mark.skipif(not JIT, reason="kernels are plain functions without the JIT")
def test_a_compiled_only_kernel_is_never_compiled_to_machine_code_yet_links_from_the_cache(
    tmp_path: Path,
) -> None:
    """Its callers run it (answers and raises), numba's engine holds no machine code of its
    own, and a second process with the same cache links it, loaded, into a new caller."""
    (tmp_path / "linked_module.py").write_text(
        textwrap.dedent(
            """
            from numba import njit
            from collision.kernels import compiled_only

            @compiled_only()
            def scaled(a, k):
                if k < 0:
                    raise ValueError("negative row")
                return 3.0 * a[k] + 1.0

            @njit(cache=True)
            def first(a, k):
                return scaled(a, k) + 1.0
            """
        )
    )
    script = textwrap.dedent(
        """
        import sys
        import numpy as np
        from numba import njit
        from numba.core import event
        import linked_module as m

        compiled = []
        class Listener(event.Listener):
            def on_start(self, ev):
                func = ev.data["dispatcher"].py_func
                if func.__module__ in ("linked_module", "__main__"):
                    compiled.append(func.__name__)
            def on_end(self, ev):
                pass
        event.register("numba:compile", Listener())
        a = np.arange(4.0)
        if sys.argv[1] == "first":
            answer = m.first(a, 2)
        else:
            second = njit(lambda a, k: m.scaled(a, k) * 2.0)
            answer = second(a, 3)
        try:
            m.first(a, -1)
            raised = ""
        except ValueError as error:
            raised = str(error)
        (cres,) = m.scaled.overloads.values()
        own = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
        (caller,) = m.first.overloads.values()
        callers = caller.library.get_pointer_to_function(caller.fndesc.llvm_func_name)
        print(answer, raised, own == 0, callers != 0, sorted(set(compiled)))
        """
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": f"{ROOT}:{tmp_path}"}
    lines = []
    for which in ("first", "second"):
        out = subprocess.run(
            [sys.executable, "-c", script, which],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        lines.append(out.stdout.strip())
    # 3 * 2 + 1 + 1; then (3 * 3 + 1) * 2 with scaled and first loaded from the cache.
    assert lines[0] == "8.0 negative row True True ['first', 'scaled']"
    assert lines[1] == "20.0 negative row True True ['<lambda>']"


@pytest.mark.skipif(not JIT, reason="kernels are plain functions without the JIT")
def test_a_stage_has_machine_code_of_its_own_and_is_loaded_before_its_callers(tmp_path: Path) -> None:
    """A stage's callers hold only a declaration of it and call its own machine code (answers
    and raises); a second process loads a caller from the cache with the stage loaded first
    (nothing compiled), also with the interpreter installed; a third, whose cache lost the
    stage, compiles the stage (under the same name, whichever process compiles it) and loads
    the caller; a fourth, whose stage is compiled under another name, compiles the caller
    again. A kernel that calls no stage keeps numba's own cache entry."""
    (tmp_path / "staged_module.py").write_text(
        textwrap.dedent(
            """
            from numba import njit
            from collision.kernels import compiled_only, stage

            @compiled_only()
            def scaled(a, k):
                if k < 0:
                    raise ValueError("negative row")
                return 3.0 * a[k] + 1.0

            @stage()
            def staged(a, k):
                return scaled(a, k) + 1.0

            @njit(cache=True)
            def first(a, k):
                return staged(a, k) * 2.0

            @njit(cache=True)
            def plain(a):
                return a[0] + 1.0
            """
        )
    )
    script = textwrap.dedent(
        """
        import contextlib, sys
        from pathlib import Path
        import numpy as np
        from numba.core import event
        import collision.kernels
        from collision import interpreter
        import staged_module as m

        if sys.argv[1] == "fourth":  # as another version of the engine would name it
            collision.kernels.STAGE_NAME_NUMBER = 7

        compiled = []
        class Listener(event.Listener):
            def on_start(self, ev):
                func = ev.data["dispatcher"].py_func
                if func.__module__ == "staged_module":
                    compiled.append(func.__name__)
            def on_end(self, ev):
                pass
        event.register("numba:compile", Listener())
        a = np.arange(4.0)
        here = contextlib.nullcontext()
        if sys.argv[1] == "interpreted":  # the module's kernels swapped for the interpreter's
            interpreter.install()
            here = interpreter.compiled_here()
        with here:
            answer = m.first(a, 2)
            try:
                m.first(a, -1)
                raised = ""
            except ValueError as error:
                raised = str(error)
        (stage,) = m.staged.overloads.values()
        own = stage.library._codegen._engine.get_function_address(stage.fndesc.mangled_name)
        declared = "?"
        if sys.argv[1] == "first":
            (caller,) = m.first.overloads.values()
            functions = {f.name: f.is_declaration for f in caller.library._final_module.functions}
            declared = bool(functions.get(stage.fndesc.mangled_name))
            m.plain(a)
        entries = {}
        for path in Path(sys.argv[2]).rglob("*.nbc"):
            entries[path.name.split(".")[1].split("-")[0]] = b"polycolly-stages" in path.read_bytes()
        staged = sorted(name for name, named in entries.items() if named)
        print(answer, raised, own != 0, declared, sorted(set(compiled)), staged)
        """
    )
    cache = tmp_path / "cache"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": f"{ROOT}:{tmp_path}"}
    lines = []
    for which in ("first", "second", "interpreted", "third", "fourth"):
        if which in ("third", "fourth"):
            for path in cache.rglob("staged_module.staged-*"):
                path.unlink()
        out = subprocess.run(
            [sys.executable, "-c", script, which, str(cache)],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        lines.append(out.stdout.strip())
    # (3 * 2 + 1 + 1) * 2; only first's entry names a stage. The stage compiled again in
    # another process has the name first's machine code calls: first is loaded as it is.
    assert lines[0] == "16.0 negative row True True ['first', 'plain', 'scaled', 'staged'] ['first']"
    assert lines[1] == "16.0 negative row True ? [] ['first']"
    # The same while the interpreter has the module's kernels (the stage's name there is not
    # the stage): loaded all the same.
    assert lines[2] == "16.0 negative row True ? [] ['first']"
    assert lines[3] == "16.0 negative row True ? ['staged'] ['first']"
    # A stage compiled under another name: first's entry calls a name that is not there, so
    # first is compiled again (calling the new one), not loaded.
    assert lines[4] == "16.0 negative row True ? ['first', 'staged'] ['first']"


def test_quick_flag_comparisons_give_numba_s_own_answers() -> None:
    """The flags' values, hash and equality after collision.numba_trims replaced them: what numba's
    own definitions give (written out here as numba writes them), for flags left at their
    defaults, set to them, set away from them, and copied."""
    from numba.core import targetconfig
    from numba.core.compiler import Flags

    def numba_values(config: targetconfig.TargetConfig) -> dict:
        return {name: getattr(config, name) for name in config.options}

    assert getattr(targetconfig.TargetConfig, "_polycolly_quick", False)
    plain = Flags()
    nrt_default = Flags()
    nrt_default.nrt = Flags().nrt
    nrt_on = Flags()
    nrt_on.nrt = not Flags().nrt
    no_wrapper = Flags()
    no_wrapper.no_cpython_wrapper = True
    copied = Flags(copy_from=no_wrapper)
    configs = [plain, nrt_default, nrt_on, no_wrapper, copied]
    for config in configs:
        values = config.values()
        assert values == numba_values(config)
        assert list(values) == list(config.options)  # numba's order too
        assert hash(config) == hash(tuple(sorted(numba_values(config))))
    for a in configs:
        for b in configs:
            assert (a == b) == (numba_values(a) == numba_values(b))
    assert plain == nrt_default and copied == no_wrapper and plain != nrt_on and plain != no_wrapper
    # As a key, a flags object finds what an equal one stored.
    assert {nrt_default: 1}[plain] == 1 and nrt_on not in {plain: 1}


def test_remembered_call_types_give_numba_s_own_answers() -> None:
    """Typing a call (collision.numba_trims.remembered_call_types) gives, the first time and
    when remembered, numba's own signature and files numba's own implementation key for
    lowering, under two sets of compile flags (``np.empty``'s implementation is compiled for
    each, and a remembered answer files its own again); a call no template types raises each
    time."""
    import operator

    from numba.core import errors, targetconfig, types
    from numba.core.compiler import Flags
    from numba.core.registry import cpu_target
    from numba.core.types import functions

    get_call_type = functions.BaseFunction.get_call_type
    assert getattr(get_call_type, "_polycolly_quick", False)
    numba_own = get_call_type.__wrapped__
    context = cpu_target.typing_context
    context.refresh()
    checked, unchecked = Flags(), Flags()
    checked.nrt = unchecked.nrt = True
    checked.boundscheck = True
    unchecked.boundscheck = False
    calls = [
        (operator.mul, (types.float64, types.float64)),
        (operator.mul, (types.int64, types.float64)),
        (operator.getitem, (types.float64[:, ::1], types.UniTuple(types.int64, 2))),
        (np.empty, (types.int64,)),
        (min, (types.float64, types.float64)),
    ]
    empty_keys = []
    for flags in (checked, unchecked):
        with targetconfig.ConfigStack().enter(flags):
            for function, args in calls:
                fnty = context.resolve_value_type(function)
                first = get_call_type(fnty, context, args, {})
                remembered = get_call_type(fnty, context, args, {})
                filed = fnty._impl_keys[remembered.args]
                own = numba_own(fnty, context, args, {})
                assert first == remembered == own
                assert fnty._impl_keys[own.args] is filed
                if function is np.empty:
                    empty_keys.append(filed)
            fnty = context.resolve_value_type(operator.mul)
            for _ in range(2):
                with pytest.raises(errors.TypingError):
                    get_call_type(fnty, context, (types.unicode_type, types.float64), {})
    assert empty_keys[0] is not empty_keys[1]  # the flags matter, and are part of the key
    # Remembered after the other flags' typing filed their key: its own key is filed again.
    empty = context.resolve_value_type(np.empty)
    with targetconfig.ConfigStack().enter(checked):
        remembered = get_call_type(empty, context, (types.int64,), {})
    assert empty._impl_keys[remembered.args] is empty_keys[0]


@pytest.mark.skipif(not JIT, reason="numba reads no bytecode without the JIT")
def test_quick_with_rewrite_gives_numba_s_result(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a function's IR as numba reads it (before its rewrites): the quick rewrite gives what
    numba's own gives, with a ``with`` block (whose exit numba drops) and without one (where
    numba's own changes nothing, and the quick one does not run it); both compile and run."""
    from numba import njit, objmode
    from numba.core import interpreter
    from numba.core.bytecode import ByteCode, FunctionIdentity

    import collision.numba_trims as trims

    quick = interpreter.peep_hole_delete_with_exit
    assert getattr(quick, "_polycolly_quick", False)
    original = quick.__wrapped__  # numba's own, which the quick one calls
    assert original.__module__ == "numba.core.interpreter" and original is not quick

    def read(func: Any) -> Any:
        """The IR before the rewrite (the bytecode reader's other rewrites done)."""
        with monkeypatch.context() as patch:
            patch.setattr(interpreter, "peep_hole_delete_with_exit", lambda func_ir: func_ir)
            identity = FunctionIdentity.from_function(func)
            return interpreter.Interpreter(identity).interpret(ByteCode(func_id=identity))

    def with_block(x: float) -> float:
        with objmode(y="float64"):
            y = x * 2.0
        return y

    def without(x: np.ndarray) -> float:
        total = 0.0
        for i in range(x.shape[0]):
            total += x[i] if x[i] > 0 else -x[i]
        return total

    raw = read(with_block).dump_to_string()
    assert trims._WITH_EXIT in raw
    by_numba = original(read(with_block)).dump_to_string()
    assert by_numba != raw and trims._WITH_EXIT not in by_numba
    assert quick(read(with_block)).dump_to_string() == by_numba
    plain = read(without)
    raw = plain.dump_to_string()
    assert original(read(without)).dump_to_string() == raw
    assert quick(plain) is plain and plain.dump_to_string() == raw
    assert njit(with_block)(3.0) == 6.0 and njit(without)(np.array([1.0, -2.0])) == 3.0


@pytest.mark.skipif(not JIT, reason="nothing is compiled without the JIT")
def test_overload_implementations_are_compiled_without_a_c_wrapper() -> None:
    """An ``@overload``'s implementation, as numba compiles it for a kernel that calls it: no C
    wrapper (collision.numba_trims.overloads_without_c_wrappers), unless its own options ask for
    one; the kernel's answers are the implementation's."""
    from numba import njit, types
    from numba.extending import overload

    def twice(x: float) -> float:
        raise NotImplementedError  # stands for its overloads

    def thrice(x: float) -> float:
        raise NotImplementedError

    # numba holds an implementation's parameters to its typing function's, annotations too.
    @overload(twice)
    def _twice(x: Any) -> Any:
        def impl(x: Any) -> Any:
            return 2.0 * x

        return impl

    @overload(thrice, jit_options={"no_cfunc_wrapper": False})
    def _thrice(x: Any) -> Any:
        def impl(x: Any) -> Any:
            return 3.0 * x

        return impl

    @njit
    def use(x: float) -> float:
        return twice(x) + thrice(x) + np.empty(1).shape[0]

    assert use(1.5) == 2.0 * 1.5 + 3.0 * 1.5 + 1
    result = use.overloads[use.signatures[0]]
    found, kinds = {}, {}
    for value in result.type_annotation.typemap.values():
        if isinstance(value, types.Function) and value.templates[0].key in (twice, thrice):
            template = value.templates[0]
            (dispatcher, _), *_ = template._impl_cache.values()
            (impl,) = dispatcher.overloads.values()
            found[template.key] = impl.fndesc.llvm_cfunc_wrapper_name in impl.library.get_llvm_str()
            kinds[template.key] = type(impl.library).__name__
    assert found == {twice: False, thrice: True}
    # Kept as IR for the kernels that link it (collision.kernels.overloads_link_only).
    assert kinds == {twice: "_LinkOnlyLibrary", thrice: "_LinkOnlyLibrary"}


@pytest.mark.skipif(not JIT, reason="nothing is compiled without the JIT")
def test_quick_reference_counts_find_numba_s_counts_in_numba_s_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference counts inside values of the engine's kinds of types (tuples of arrays and
    scalars, nested, records, optional arrays): the quick search finds those numba's own
    finds, of the same types, read out along the same members, in the same order."""
    from llvmlite import ir as llvm_ir
    from numba.core import types
    from numba.core.registry import cpu_target
    from numba.core.runtime.context import NRTContext

    from collision.bodies import Bodies

    context = cpu_target.target_context
    array = types.float64[:, ::1]
    kinds = [
        types.float64,
        array,
        types.Tuple((types.float64, array, types.int64, types.boolean[::1])),
        types.UniTuple(types.float64, 24),
        types.Tuple((types.UniTuple(array, 3), types.float64, types.Tuple((types.int64, array)))),
        types.Optional(array),
        types.NamedTuple((array, types.float64), Bodies),
        types.Tuple(()),
    ]

    def path(value: Any) -> Any:
        """How ``value`` is computed from the function's argument (its names left out)."""
        if isinstance(value, llvm_ir.Argument):
            return "argument"
        if isinstance(value, llvm_ir.Constant):
            return str(value)
        indices = getattr(value, "indices", None)
        return (value.opname, indices, tuple(path(operand) for operand in value.operands))

    def search(kind: Any) -> list:
        module = llvm_ir.Module()
        value_type = context.get_value_type(kind)
        function = llvm_ir.Function(module, llvm_ir.FunctionType(llvm_ir.VoidType(), [value_type]), "f")
        builder = llvm_ir.IRBuilder(function.append_basic_block())
        # Not ``context.nrt``: numba caches that on the context, off, and the contexts made
        # from it for every compile would copy it.
        found = NRTContext(context, True).get_meminfos(builder, kind, function.args[0])
        return [(str(t), path(v)) for t, v in found]

    quick = [search(kind) for kind in kinds]
    with monkeypatch.context() as patch:
        patch.setattr(NRTContext, "get_meminfos", NRTContext.get_meminfos.__wrapped__)
        assert not getattr(NRTContext.get_meminfos, "_polycolly_quick", False)
        numba_s = [search(kind) for kind in kinds]
    assert quick == numba_s
    assert [len(found) for found in quick] == [0, 1, 2, 0, 4, 1, 1, 0]


@pytest.mark.skipif(not JIT, reason="nothing is compiled without the JIT")
def test_an_inlined_function_is_read_once_for_every_place_it_is_inlined() -> None:
    """A function numba inlines in three places of two kernels compiled with the same flags is
    read into IR once (collision.numba_trims.read_inlined_once), each place gets its own copy (the
    kernels' answers are right), and a kernel with other flags reads it again."""
    from numba import njit
    from numba.core.inline_closurecall import InlineWorker

    reads: list[Any] = []
    quick = InlineWorker.run_untyped_passes
    assert getattr(quick, "_polycolly_quick", False)
    read = quick.__wrapped__

    def counting(self: Any, func: Any, enable_ssa: bool = False) -> Any:
        reads.append(func)
        return read(self, func, enable_ssa)

    cells = [cell for cell in quick.__closure__ if cell.cell_contents is read]
    assert len(cells) == 1

    def scaled(x: float, k: float) -> float:
        y = x * k
        return y + 1.0 if y > 0.0 else y - 1.0

    inlined = njit(inline="always")(scaled)

    def first(x: float) -> float:
        return inlined(x, 2.0) + inlined(-x, 3.0)

    def second(x: float) -> float:
        return inlined(x, 5.0)

    cells[0].cell_contents = counting
    try:
        assert njit(first)(1.5) == (3.0 + 1.0) + (-4.5 - 1.0)
        assert njit(second)(1.5) == 7.5 + 1.0
        assert njit(fastmath=True)(second)(-2.0) == -10.0 - 1.0
    finally:
        cells[0].cell_contents = read
    assert reads == [scaled, scaled]  # once for the default flags, once for fastmath's


def test_copies_of_numba_ir_share_source_positions() -> None:
    """A deep copy of a function's IR (as numba makes to inline it) has its statements, new
    objects, at the same source positions, the very position objects
    (collision.numba_trims.shared_source_positions); the original is left as it was."""
    import copy

    from numba.core import interpreter
    from numba.core.bytecode import ByteCode, FunctionIdentity

    def sample(x: float) -> float:
        y = 2.0 * x
        return y + 1.0 if y > 0.0 else y - 1.0

    identity = FunctionIdentity.from_function(sample)
    func_ir = interpreter.Interpreter(identity).interpret(ByteCode(func_id=identity))
    before = func_ir.dump_to_string()
    for label, block in func_ir.blocks.items():
        copied = copy.deepcopy(block)
        assert [str(s) for s in copied.body] == [str(s) for s in block.body]
        for mine, theirs in zip(copied.body, block.body, strict=True):
            assert mine is not theirs and mine.loc is theirs.loc and mine.loc.line > 0
        assert copied.loc is block.loc, label
    assert func_ir.dump_to_string() == before


@pytest.mark.skipif(not JIT, reason="kernels are plain functions without the JIT")
def test_a_stage_is_found_by_its_name_while_the_interpreter_holds_its_module() -> None:
    """Loading a kernel's cache entry loads the stages it names even while the interpreter has
    swapped the engine's kernels in their modules (the program's first run loads the compiled
    engine then): a stage is found by its module and name, not by the module's attribute."""
    from collision import Polygon, World, interpreter, kernels
    from collision import bodies as bodies_module

    world = World()
    world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.0))
    world.step(1 / 60)  # the step's stages, compiled or loaded
    key = next(
        (symbol, key)
        for symbol, key in kernels._STAGES.items()
        if key[:2] == ("collision.bodies", "close_step")
    )
    interpreter.install()
    try:
        assert isinstance(bodies_module.close_step, interpreter.Switch)
        assert kernels._load_stage(*key)
    finally:
        interpreter.uninstall()


def _caller_ir_after_inlining(caller: Any, inline_ir: Any) -> list[str]:
    """``caller``'s IR right after numba's pass that inlines ``inline="always"`` kernels, with
    ``inline_ir`` as InlineWorker's: its statements block by block, the blocks numbered in
    topological order (numba numbers them from a counter of the process)."""
    from numba import typeof
    from numba.core import compiler, ir, ir_utils, untyped_passes
    from numba.core.compiler_machinery import AnalysisPass, register_pass
    from numba.core.inline_closurecall import InlineWorker
    from numba.core.registry import cpu_target

    @register_pass(mutates_CFG=False, analysis_only=True)
    class Record(AnalysisPass):
        _name = "polycolly_test_record_inlined"

        def __init__(self) -> None:
            AnalysisPass.__init__(self)

        def run_pass(self, state: Any) -> bool:
            blocks = state.func_ir.blocks
            order = ir_utils.find_topo_order(blocks)
            number = {label: k for k, label in enumerate(order)}
            lines = []
            for label in order:
                lines.append(f"block {number[label]}")
                for statement in blocks[label].body:
                    if isinstance(statement, ir.Jump):
                        lines.append(f"jump {number[statement.target]}")
                    elif isinstance(statement, ir.Branch):
                        lines.append(
                            f"branch {statement.cond} {number[statement.truebr]} {number[statement.falsebr]}"
                        )
                    else:
                        lines.append(str(statement))
            raise compiler._EarlyPipelineCompletion(lines)

    class UpToInlining(compiler.CompilerBase):
        def define_pipelines(self) -> list[Any]:
            manager = compiler.DefaultPassBuilder.define_untyped_pipeline(self.state)
            manager.add_pass_after(Record, untyped_passes.InlineInlinables)
            manager.finalize()
            return [manager]

    saved = InlineWorker.inline_ir
    InlineWorker.inline_ir = inline_ir
    try:
        flags = cpu_target.options.parse_as_flags(compiler.Flags(), {})
        return compiler.compile_extra(
            cpu_target.typing_context, cpu_target.target_context, caller,
            (typeof(np.zeros(3)),), None, flags, {}, pipeline_class=UpToInlining,
        )  # fmt: skip
    finally:
        InlineWorker.inline_ir = saved


@pytest.mark.skipif(not JIT, reason="nothing is compiled without the JIT")
def test_an_inlined_function_s_blocks_are_copied_together_and_the_caller_is_numba_s() -> None:
    """A function of several blocks (a loop, a branch) inlined at two places: the caller's IR
    after inlining is the one numba's own InlineWorker.inline_ir gives (statement by statement,
    blocks in topological order), the kernel's answer is right, and a copy of the function's
    blocks (collision.numba_trims.one_copy_per_inlining) is new blocks that share one new scope."""
    import copy

    from numba import njit
    from numba.core.inline_closurecall import InlineWorker

    from collision.numba_trims import _OneCopyOfEach

    quick = InlineWorker.inline_ir
    assert getattr(quick, "_polycolly_quick", False)

    def helper(a: np.ndarray, k: float) -> float:
        total = 0.0
        for j in range(a.shape[0]):
            if a[j] > k:
                total += a[j] - k
            else:
                total -= 1.0
        return total

    inlined = njit(inline="always")(helper)

    def caller(a: np.ndarray) -> float:
        return inlined(a, 1.0) + 2.0 * inlined(a, 2.0)

    numba_s = _caller_ir_after_inlining(caller, quick.__wrapped__)
    assert len(numba_s) > 40 and sum(line.startswith("block") for line in numba_s) > 6
    assert _caller_ir_after_inlining(caller, quick) == numba_s
    a = np.array([0.5, 1.5, 3.0])
    assert njit(caller)(a) == helper(a, 1.0) + 2.0 * helper(a, 2.0)

    from numba.core import interpreter
    from numba.core.bytecode import ByteCode, FunctionIdentity

    identity = FunctionIdentity.from_function(helper)
    func_ir = interpreter.Interpreter(identity).interpret(ByteCode(func_id=identity))
    blocks = list(func_ir.blocks.values())
    stand_in = _OneCopyOfEach({id(b) for b in blocks})
    copied = [stand_in.deepcopy(b) for b in blocks]
    assert [[str(s) for s in b.body] for b in copied] == [[str(s) for s in b.body] for b in blocks]
    assert all(c is not b for c, b in zip(copied, blocks, strict=True))
    assert len({id(c.scope) for c in copied}) == 1 and copied[0].scope is not blocks[0].scope
    # numba's own copies give each block a scope of its own (the copies kept alive while their
    # scopes' ids are compared: a freed copy's id can be the next one's).
    numba_copies = [copy.deepcopy(b) for b in blocks]
    assert len({id(c.scope) for c in numba_copies}) == len(blocks)


class _Elsewhere(NamedTuple):
    """A named tuple of another package's kind (defined outside collision)."""

    ids: np.ndarray
    weights: np.ndarray


@pytest.mark.skipif(not JIT, reason="nothing is compiled without the JIT")
def test_an_engine_record_goes_into_a_call_whole_and_other_named_tuples_as_numba_passes_them() -> None:
    """A compiled function's parameters in LLVM: an engine record (collision.kernels.
    records_passed_whole) is one aggregate, whatever its arrays; a named tuple from elsewhere is
    numba's member by member, seven per array. The answers are the same either way."""
    from numba import njit

    from collision.solvers.iterative.points import Points

    def weighted(p: Any) -> float:
        total = 0.0
        for i in range(p.pair_index.shape[0]):
            total += p.separation[i] * (p.pair_index[i] + 1)
        return total

    def elsewhere(p: Any) -> float:
        total = 0.0
        for i in range(p.ids.shape[0]):
            total += p.weights[i] * (p.ids[i] + 1)
        return total

    rows, vectors = np.arange(3, dtype=np.int64), np.zeros((3, 2))
    points = Points(rows, rows, vectors, vectors, vectors, np.array([0.5, -1.0, 2.0]))
    other = _Elsewhere(rows, np.array([0.5, -1.0, 2.0]))
    expected = 0.5 * 1 - 1.0 * 2 + 2.0 * 3
    kernel, plain = njit(weighted), njit(elsewhere)
    assert kernel(points) == expected
    assert plain(other) == expected

    def parameters(dispatcher: Any) -> list[str]:
        (result,) = dispatcher.overloads.values()
        module = result.library._final_module
        (function,) = [f for f in module.functions if f.name == result.fndesc.mangled_name]
        return [str(a.type) for a in function.arguments]

    # numba's calling convention puts the return slot and the exception slot first.
    record = parameters(kernel)[2:]
    assert len(record) == 1 and record[0].startswith("{")
    assert record[0].count("{ ptr, ptr, i64, i64, ptr,") == len(points)  # its six arrays
    assert len(parameters(plain)[2:]) == 2 * 7

    # A record whose fields share one type (numba's NamedUniTuple) goes whole too.
    from collision.solvers.iterative.restitution import Motion

    def speeds(m: Any) -> float:
        return m.velocity[0] + m.angular_velocity[1] + m.inv_mass[2] + m.inv_inertia[0]

    column = np.array([1.0, 2.0, 4.0])
    uniform = njit(speeds)
    assert uniform(Motion(column, column, column, column)) == 1.0 + 2.0 + 4.0 + 1.0
    (motion,) = parameters(uniform)[2:]
    assert motion.startswith("[4 x { ptr, ptr, i64, i64, ptr,")


@pytest.mark.skipif(not JIT, reason="kernels are plain functions without the JIT")
def test_arrays_boxed_with_their_type_kept_are_numba_s_arrays_without_its_leak() -> None:
    """Arrays a kernel returns (new, views, transposed, of an argument, read-only, of several
    dtypes and dimensions): what numba's own boxing gives, with ``np.ndarray``'s reference
    count left alone (numba's grows by one per array returned)."""
    from numba import njit
    from numba.core import pythonapi, types

    quick = pythonapi._boxers.functions[types.Array]
    assert getattr(quick, "_polycolly_quick", False)

    def arrays(given: np.ndarray, frozen: np.ndarray, n: int) -> tuple:
        made = np.arange(n * 3.0).reshape(n, 3)
        flags = np.zeros(n, dtype=np.bool_)
        keys = np.arange(n, dtype=np.int64) * 7
        small = np.ones((2, n, 2), dtype=np.int8)
        return made, made.T, made[1:, ::2], flags, keys, small, given, given[::2], frozen

    frozen = np.arange(2.0)
    frozen.flags.writeable = False
    given = np.arange(6.0)

    def kernel_boxed_by(boxer: object) -> object:
        pythonapi._boxers.functions[types.Array] = boxer
        try:
            kernel = njit(arrays)
            kernel(given, frozen, 3)  # compiled while ``boxer`` boxes
        finally:
            pythonapi._boxers.functions[types.Array] = quick
        assert len(kernel.overloads) == 1
        return kernel

    ours = kernel_boxed_by(quick)
    numba_s = kernel_boxed_by(quick.__wrapped__)
    for n in (1, 4):
        mine = ours(given, frozen, n)
        theirs = numba_s(given, frozen, n)
        for a, b in zip(mine, theirs, strict=True):
            assert type(a) is type(b) is np.ndarray
            assert (a.dtype, a.shape, a.strides) == (b.dtype, b.shape, b.strides)
            assert a.flags.writeable == b.flags.writeable and a.flags.c_contiguous == b.flags.c_contiguous
            np.testing.assert_array_equal(a, b)
        assert mine[6] is given and mine[8] is frozen  # an argument comes back as itself
        assert np.shares_memory(mine[7], given) and np.shares_memory(mine[1], mine[0])

    def growth(kernel: object) -> int:
        before = sys.getrefcount(np.ndarray)
        for _ in range(100):
            kernel(given, frozen, 2)  # type: ignore[operator]
        return sys.getrefcount(np.ndarray) - before

    assert growth(ours) <= 1 and len(ours.overloads) == len(numba_s.overloads) == 1
    assert growth(numba_s) >= 100 * 7  # numba's: one more per array it makes for Python

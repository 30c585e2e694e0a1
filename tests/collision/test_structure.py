"""The engine's shape: small functions, small modules, no import cycles, no private reads.

Limits (measured from the source with ``ast``, so they hold for every function, compiled or not):

- at most ``MAX_PARAMETERS`` parameters per function in collision/ (kernels take the body store
  and a step context, not dozens of arrays);
- at most ``MAX_FUNCTION_LINES`` code lines per function (lines with code, not blank lines,
  comments or the docstring);
- at most ``MAX_MODULE_LINES`` lines per module;
- no import cycle between collision's modules, counting imports inside functions (they hide a
  cycle, they do not remove it); a name imported from a package counts as an import of the
  package's ``__init__``, a submodule imported by name as an import of that submodule;
- demo/ reads no private attribute of the engine's objects.

``python -m tests.collision.test_structure`` prints the numbers.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "collision"
DEMO = ROOT / "demo"

MAX_PARAMETERS = 12
MAX_FUNCTION_LINES = 120
MAX_MODULE_LINES = 600


def _modules(package: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module of ``package``."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def parameter_count(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Every parameter, ``self`` and ``cls`` included (numba passes them all)."""
    a = fn.args
    return (
        len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)
    )


def code_lines(fn: ast.FunctionDef | ast.AsyncFunctionDef, source: list[str]) -> int:
    """Lines of ``fn``'s body that hold code: no blank lines, comments or docstring."""
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        if isinstance(body[0].value.value, str):
            body = body[1:]
    if not body:
        return 0
    first = body[0].lineno
    last = max(getattr(node, "end_lineno", node.lineno) or node.lineno for node in body)
    count = 0
    for line in source[first - 1 : last]:
        text = line.strip()
        if text and not text.startswith("#"):
            count += 1
    return count


def engine_imports() -> dict[str, set[str]]:
    """For each collision module, the collision modules it imports (anywhere in the file)."""
    modules = _modules(ENGINE)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")
                    parent = parent[: len(parent) - node.level + 1]
                    base = ".".join(parent + ([base] if base else []))
                # A submodule imported by name is that module; any other name is read from base.
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                    for alias in node.names
                ]
            for target in targets:
                # The deepest collision module named by the import.
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name and target.startswith("collision"):
                    graph[name].add(target)
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def engine_functions() -> list[tuple[str, str, int, int]]:
    """(module, function, parameters, code lines) of every function in collision/."""
    out = []
    for name, path in _modules(ENGINE).items():
        text = path.read_text()
        source = text.splitlines()
        for fn in _functions(ast.parse(text)):
            out.append((name, fn.name, parameter_count(fn), code_lines(fn, source)))
    return out


#: Engine objects the program holds (a world, a solver, a primitive) followed by a private name.
PRIVATE_READ = re.compile(r"\b(world|solver|prim|primitives|collision|bodies|settings)\._[a-z]\w*")


def demo_private_reads() -> list[str]:
    """``file:line: text`` of every place demo/ reads a private engine attribute."""
    found = []
    for path in sorted(DEMO.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if PRIVATE_READ.search(line) or "_solver_object" in line:
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


def test_no_function_takes_more_than_twelve_parameters() -> None:
    wide = [f"{m}.{f}: {p}" for m, f, p, _ in engine_functions() if p > MAX_PARAMETERS]
    assert not wide, f"functions with more than {MAX_PARAMETERS} parameters: {wide}"


def test_no_function_is_longer_than_120_code_lines() -> None:
    long = [f"{m}.{f}: {n}" for m, f, _, n in engine_functions() if n > MAX_FUNCTION_LINES]
    assert not long, f"functions longer than {MAX_FUNCTION_LINES} code lines: {long}"


def test_no_module_is_longer_than_600_lines() -> None:
    sizes = {name: len(path.read_text().splitlines()) for name, path in _modules(ENGINE).items()}
    big = {name: lines for name, lines in sizes.items() if lines > MAX_MODULE_LINES}
    assert not big, f"modules over {MAX_MODULE_LINES} lines: {big}"


def test_no_import_cycles_in_the_engine() -> None:
    cycles = import_cycles(engine_imports())
    assert not cycles, f"import cycles (imports inside functions count): {cycles}"


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles(graph) == [["a", "b", "c"]]


def test_the_measures_count_what_they_say() -> None:
    source = '''
def f(a, b, /, c, *d, e, **g):
    """Doc.

    More doc.
    """
    # a comment

    x = 1
    return (x +
            2)
'''
    fn = _functions(ast.parse(source))[0]
    assert parameter_count(fn) == 6
    assert code_lines(fn, source.splitlines()) == 3


def test_demo_reads_no_private_engine_attribute() -> None:
    reads = demo_private_reads()
    assert not reads, "demo/ reads private engine state:\n" + "\n".join(reads)


def main() -> None:
    functions = engine_functions()
    sizes = sorted(
        ((len(path.read_text().splitlines()), name) for name, path in _modules(ENGINE).items()), reverse=True
    )
    widest = sorted(functions, key=lambda f: -f[2])[:5]
    longest = sorted(functions, key=lambda f: -f[3])[:5]
    print(f"functions in collision/: {len(functions)}")
    print("most parameters: " + ", ".join(f"{m}.{f} {p}" for m, f, p, _ in widest))
    print(
        f"functions over {MAX_PARAMETERS} parameters: {sum(p > MAX_PARAMETERS for _, _, p, _ in functions)}"
    )
    print("most code lines: " + ", ".join(f"{m}.{f} {n}" for m, f, _, n in longest))
    print("largest modules: " + ", ".join(f"{name} {lines}" for lines, name in sizes[:6]))
    print(f"modules: {len(sizes)}, total lines {sum(lines for lines, _ in sizes)}")
    print(f"import cycles: {import_cycles(engine_imports())}")
    print(f"demo private reads: {len(demo_private_reads())}")


if __name__ == "__main__":
    main()

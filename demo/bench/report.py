"""``python -m demo bench --physics``: every physics case in ours (each solver), Box2D v3 and
pymunk, beside its exact answer.

One row per measured quantity: the expected value with its tolerance, then each engine's
value, marked ``!`` where it misses. Ours' columns say ``exempt`` where the law does not apply
to that solver, and mark a known defect (a strict xfail in tests/physics) ``!d``. Engines whose
package is missing are left out with one line saying so.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from demo.bench import engines
from demo.bench.physics import Case, Check, cases

#: Report columns: (engine, our solver or None).
COLUMNS = (*(("ours", s) for s in engines.OUR_SOLVERS), ("box2d", None), ("pymunk", None))

PASS, MISS, DEFECT, EXEMPT = "pass", "miss", "known defect", "exempt"


def _status(c: Case, engine: str, solver: str | None, ok: bool) -> str:
    if ok:
        return PASS
    if engine == "ours" and solver in c.defects:
        return DEFECT
    return MISS


def run_case(c: Case, columns: Sequence[tuple[str, str | None]]) -> list[dict[str, Any]]:
    """One record per check of ``c``: expectation and, per column, value and status."""
    rows = [
        {
            "case": c.name,
            "law": c.law,
            "key": key,
            "quantity": check.quantity,
            "unit": check.unit,
            "expected": check.expected,
            "tolerance": check.tolerance,
            "kind": check.kind,
            "results": {},
        }
        for key, check in c.checks.items()
    ]
    for engine, solver in columns:
        column = engines.label(engine, solver or "iterative")
        if engine == "ours" and solver is not None and not c.applies_to(solver):
            for row in rows:
                row["results"][column] = {"value": None, "status": EXEMPT, "why": c.exempt[solver]}
            continue
        values = c.run(engine, solver or "iterative")
        for row in rows:
            value = float(values[row["key"]])
            ok = c.checks[row["key"]].passes(value)
            row["results"][column] = {"value": value, "status": _status(c, engine, solver, ok)}
    return rows


def _cell(result: dict[str, Any]) -> str:
    if result["status"] == EXEMPT:
        return "exempt"
    mark = {PASS: "", MISS: " !", DEFECT: " !d"}[result["status"]]
    return f"{result['value']:.4g}{mark}"


def print_table(rows: list[dict[str, Any]], labels: Sequence[str], out: TextIO) -> None:
    """The rows as a text table, grouped by case."""
    width = 14
    head = f"{'quantity':58s} {'expected':>18s} " + " ".join(f"{name:>{width}s}" for name in labels)
    print(head, file=out)
    print("-" * len(head), file=out)
    current = None
    for row in rows:
        if row["case"] != current:
            current = row["case"]
            print(f"{row['case']}: {row['law']}", file=out)
        check_text = _expected_text(row)
        unit = f" [{row['unit']}]" if row["unit"] else ""
        cells = " ".join(f"{_cell(row['results'][name]):>{width}s}" for name in labels)
        print(f"  {(row['quantity'] + unit)[:56]:56s} {check_text:>18s} {cells}", file=out)


def _expected_text(row: dict[str, Any]) -> str:
    check = Check(row["quantity"], row["unit"], row["expected"], row["tolerance"], "", row["kind"])
    return check.describe_expected()


def summary(rows: list[dict[str, Any]], labels: Sequence[str]) -> list[str]:
    """Per column: checks met out of those that apply, and the known defects among the misses."""
    lines = []
    for name in labels:
        results = [row["results"][name] for row in rows if row["results"][name]["status"] != EXEMPT]
        met = sum(r["status"] == PASS for r in results)
        defects = sum(r["status"] == DEFECT for r in results)
        extra = f" ({defects} misses are known defects)" if defects else ""
        lines.append(f"{name}: {met} of {len(results)} checks met{extra}")
    return lines


def main(names: Sequence[str], as_json: bool, out: TextIO | None = None) -> int:
    """Run the cases called ``names`` (all if empty) in every available engine and print them
    to ``out`` (standard output by default); returns the exit status."""
    out = sys.stdout if out is None else out
    chosen = [c for c in cases() if not names or c.name in names]
    unknown = sorted(set(names) - {c.name for c in cases()})
    if unknown:
        print(
            f"--case {', '.join(unknown)}: no such physics case; known: {', '.join(c.name for c in cases())}",
            file=sys.stderr,
        )
        return 2
    columns = []
    for engine, solver in COLUMNS:
        problem = engines.missing(engine)
        if problem is None:
            columns.append((engine, solver))
        elif solver in (None, engines.OUR_SOLVERS[0]):
            print(f"left out: {problem}", file=sys.stderr)
    labels = [engines.label(e, s or "iterative") for e, s in columns]
    rows = [row for c in chosen for row in run_case(c, columns)]
    if as_json:
        for row in rows:
            print(json.dumps(row), file=out)
        return 0
    print_table(rows, labels, out)
    print("", file=out)
    print("! misses the expected value; !d a known defect of ours (tests/physics: strict xfail).", file=out)
    for line in summary(rows, labels):
        print(line, file=out)
    return 0

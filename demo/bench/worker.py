"""One timed run in its own process: ``python -m demo.bench.worker ENGINE SCENE SIZE STEPS [--profile]``.

Prints one JSON line (see :func:`demo.bench.speed.time_run`); ``python -m demo bench --vs``
starts these, never the user.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence

from demo.bench import engines
from demo.bench.speed import SPEED_SCENES, time_run


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    profile = args[4:] == ["--profile"]
    if profile:
        args = args[:4]
    if len(args) != 4 or args[0] not in engines.ENGINES or args[1] not in SPEED_SCENES:
        print(
            f"usage: python -m demo.bench.worker {{{','.join(engines.ENGINES)}}} "
            f"{{{','.join(SPEED_SCENES)}}} SIZE STEPS [--profile]",
            file=sys.stderr,
        )
        return 2
    result = time_run(args[0], args[1], int(args[2]), int(args[3]), profile)
    print(json.dumps(result), flush=True)
    return 0 if math.isfinite(result["total_s"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())

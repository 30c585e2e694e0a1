"""PLACEHOLDER: replaced by the SAT work (intersect, find_mtd, sweep)."""


class Hit:
    pass


def intersect(a, b):  # type: ignore[no-untyped-def]
    raise NotImplementedError


def find_mtd(a, b):  # type: ignore[no-untyped-def]
    raise NotImplementedError


def sweep(a, b, velocity, t_max=1.0):  # type: ignore[no-untyped-def]
    raise NotImplementedError

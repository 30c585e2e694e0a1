"""Solver settings: documented, checked attributes that compiled code reads as one record.

A solver's settings class lists its settings as :class:`Setting` attributes (kind, default,
range and a docstring each, shown by ``help()``). Setting one checks the value (a ValueError
naming the setting, the old value kept) and refreshes ``values``, a record of every setting
that the solver hands whole to its compiled step.

>>> from collision.solvers.arcade import ArcadeSettings
>>> settings = ArcadeSettings()
>>> settings.ordered = False
>>> settings.values.ordered
False
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from collision import checks

#: What a setting holds, and the type compiled code reads it as.
KINDS: dict[str, type] = {"bool": bool, "int": int, "real": float}


class Setting:
    """One setting: ``kind`` ("bool", "int" or "real"), ``default``, the least and greatest
    value allowed (ints and reals), and ``doc``, what it does and its unit."""

    def __init__(
        self, kind: str, default: Any, doc: str, minimum: float | None = None, maximum: float | None = None
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"kind = {kind!r}: must be one of {', '.join(KINDS)}")
        self.kind = kind
        self.default = default
        self.minimum = minimum
        self.maximum = maximum
        bounds = "" if minimum is None or maximum is None else f", in [{minimum:g}, {maximum:g}]"
        self.__doc__ = f"{doc} ({kind}, default {default!r}{bounds})"
        self.name = ""
        self.owner = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.owner = owner.__name__

    def check(self, value: Any) -> Any:
        """``value`` checked for this setting (ValueError naming it), as bool, int or float."""
        label = f"{self.owner}.{self.name}"
        if self.kind == "bool":
            return checks.boolean(value, label)
        if self.kind == "int":
            assert self.minimum is not None and self.maximum is not None
            return checks.integer(value, label, int(self.minimum), int(self.maximum))
        return checks.number(value, label, minimum=self.minimum, maximum=self.maximum)

    def __get__(self, settings: Any, owner: type | None = None) -> Any:
        if settings is None:
            return self
        return getattr(settings.values, self.name)

    def __set__(self, settings: Any, value: Any) -> None:
        settings.values = settings.values._replace(**{self.name: self.check(value)})


class Settings:
    """Base of the solvers' settings classes: each subclass lists its :class:`Setting`
    attributes and gets ``Values``, the record type of them all (made here, one per class,
    named ``<Class>.Values`` so that numba's cache can find it again)."""

    Values: ClassVar[type]
    values: Any
    #: ``values`` as a plain tuple, what compiled code takes (numba takes a named tuple in
    #: several times the time), made when ``values`` changes rather than at every step.
    fields: tuple

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields = [(name, KINDS[s.kind]) for name, s in vars(cls).items() if isinstance(s, Setting)]
        values = NamedTuple(f"{cls.__name__}Values", fields)  # type: ignore[misc]
        values.__module__ = cls.__module__
        values.__qualname__ = f"{cls.__qualname__}.Values"
        cls.Values = values

    def __init__(self, **values: Any) -> None:
        """Every setting at its default, then ``values`` (by name) set as attributes."""
        defaults = {name: KINDS[s.kind](s.default) for name, s in self.settings().items()}
        self.values = self.Values(**defaults)
        for name, value in values.items():
            if name not in defaults:
                raise ValueError(f"{name} = {checks.show(value)}: {type(self).__name__} has no such setting")
            setattr(self, name, value)

    @classmethod
    def settings(cls) -> dict[str, Setting]:
        """Every setting of the class by name, in order."""
        return {name: s for name, s in vars(cls).items() if isinstance(s, Setting)}

    def __setattr__(self, name: str, value: Any) -> None:
        # Settings are few and named: a misspelt one must not pass silently.
        if name != "values" and name not in self.settings():
            raise AttributeError(f"{type(self).__name__} has no setting {name!r}")
        super().__setattr__(name, value)
        if name == "values":
            super().__setattr__("fields", tuple(value))

    def __repr__(self) -> str:
        pairs = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.settings())
        return f"{type(self).__name__}({pairs})"

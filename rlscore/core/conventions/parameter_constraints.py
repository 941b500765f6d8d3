"""Declarative constraints on an estimator's constructor parameters, checked when it is fitted.

An estimator lists what each parameter accepts in the class attribute
``parameter_constraints`` — a dict from parameter name to a tuple of constraints, of which the
value must meet at least one — and calls :func:`check_parameters` at the start of ``fit``
(scikit-learn's convention: ``__init__`` only stores its arguments, ``set_params`` can change
them, so they are validated when they are used)::

    parameter_constraints = {
        "lam": (Interval(Real, 0, None, closed="neither"), Options("auto")),
        "kernel": (Options("rbf", "linear"),),
    }

scikit-learn has the same idea in a private module; this is our own small version, because a
private module may change in any release. Checks that relate several parameters (or the data)
stay in the estimator, after these.

The error is a ``ValueError`` that names the parameter, what it accepts and the value given:

* a number of the right kind outside its range names the range: ``lam must be > 0, got 0.0``;
* a value of no accepted kind lists every alternative:
  ``lam must be a number > 0 or 'auto', got 'best'``;
* a parameter with a fixed set of values: ``unknown kernel 'sigmoid': kernel must be one of
  'rbf', 'linear'``;
* :class:`Validated` hands the value to an existing validator and lets its message through.

No scikit-learn import: the module is as light as the numbers it checks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, Literal, Protocol

import numpy as np

__all__ = [
    "Booleans",
    "Constraint",
    "InstanceOf",
    "Interval",
    "Options",
    "Validated",
    "check_parameter",
    "check_parameters",
]


class Constraint(Protocol):
    """What :func:`check_parameter` needs of a constraint."""

    #: the accepted values as a phrase ("a positive integer", "'auto'", "True or False")
    description: str

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` meets the constraint."""

    def problem(self, name: str, value: Any) -> str | None:
        """The message when the value is of this constraint's kind but refused, else None."""


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool | np.bool_)


def _bound(x: float) -> str:
    return f"{x:g}"


@dataclass(frozen=True)
class Interval:
    """Numbers of one kind (``Integral`` or ``Real``) between two bounds.

    Booleans are never numbers here, and a ``Real`` must be finite. ``Real`` accepts integers
    too; ``Integral`` refuses ``2.0`` (as ``range`` does).

    Parameters
    ----------
    kind
        ``numbers.Integral`` or ``numbers.Real``.
    low, high
        The bounds; None for no bound on that side.
    closed
        Which bounds belong to the interval: ``"both"``, ``"left"``, ``"right"`` or
        ``"neither"``.
    """

    kind: type
    low: float | None
    high: float | None
    closed: Literal["both", "left", "right", "neither"] = "both"

    def __post_init__(self) -> None:
        if self.kind not in (Integral, Real):
            raise TypeError(f"kind must be numbers.Integral or numbers.Real, got {self.kind!r}")
        if self.closed not in ("both", "left", "right", "neither"):
            raise ValueError(
                f"closed must be 'both', 'left', 'right' or 'neither', got {self.closed!r}"
            )

    def _is_kind(self, value: Any) -> bool:
        return not _is_bool(value) and isinstance(value, self.kind)

    def _within(self, x: float) -> bool:
        low_ok = (
            self.low is None or x > self.low or (x == self.low and self.closed in ("both", "left"))
        )
        high_ok = (
            self.high is None
            or x < self.high
            or (x == self.high and self.closed in ("both", "right"))
        )
        return low_ok and high_ok

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is a (finite) number of the kind inside the bounds."""
        if not self._is_kind(value):
            return False
        # an integer is always finite (and math.isfinite overflows on a huge one)
        return (isinstance(value, Integral) or math.isfinite(value)) and self._within(value)

    @property
    def _range(self) -> str:
        """The bounds alone: ``> 0``, ``≥ 1``, ``< 5`` or ``in (0, 1]``."""
        if self.low is not None and self.high is not None:
            left = "[" if self.closed in ("both", "left") else "("
            right = "]" if self.closed in ("both", "right") else ")"
            return f"in {left}{_bound(self.low)}, {_bound(self.high)}{right}"
        if self.low is not None:
            return ("≥ " if self.closed in ("both", "left") else "> ") + _bound(self.low)
        if self.high is not None:
            return ("≤ " if self.closed in ("both", "right") else "< ") + _bound(self.high)
        return ""

    @property
    def description(self) -> str:
        """E.g. ``a number > 0``, ``a number in (0, 1)``, ``a positive integer``."""
        if self.kind is Integral:
            if self.low == 1 and self.high is None and self.closed in ("both", "left"):
                return "a positive integer"
            return f"an integer {self._range}".rstrip()
        return f"a number {self._range}".rstrip()

    def problem(self, name: str, value: Any) -> str | None:
        """For a number of the kind outside the bounds: the bounds, as in ``lam must be > 0``.

        A one-sided bound reads alone (the value is already a number); a range keeps "a number
        in …" (and an integer constraint always says "integer").
        """
        if not self._is_kind(value) or self.accepts(value):
            return None
        if self.kind is Integral or (self.low is not None and self.high is not None):
            wanted = self.description
        elif not math.isfinite(value):
            wanted = f"a finite number {self._range}"
        else:
            wanted = self._range
        return f"{name} must be {wanted}, got {value!r}"


class Options:
    """A fixed set of values (strings, None …), compared by type and equality."""

    def __init__(self, *values: Any) -> None:
        if not values:
            raise ValueError("Options needs at least one value")
        self.values = values

    def __repr__(self) -> str:
        return f"Options{self.values!r}"

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is one of the options: the same value of the same kind (numpy's
        integers count as integers; ``True`` is not the option ``1``, nor ``"1"``)."""
        for option in self.values:
            if option is None or isinstance(option, bool):
                if value is option:
                    return True
                continue
            kind = next((k for k in (Integral, Real) if isinstance(option, k)), type(option))
            if not _is_bool(value) and isinstance(value, kind) and value == option:
                return True
        return False

    @property
    def description(self) -> str:
        """The options, e.g. ``'rbf', 'linear'``."""
        return ", ".join(repr(v) for v in self.values)

    def problem(self, name: str, value: Any) -> str | None:
        """Options never name the problem alone: :func:`check_parameter` lists them."""
        return None


@dataclass(frozen=True)
class Booleans:
    """``True`` or ``False`` (Python's or numpy's), nothing else that happens to be truthy."""

    description: str = "True or False"

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is a boolean."""
        return _is_bool(value)

    def problem(self, name: str, value: Any) -> str | None:
        """A boolean constraint is listed like the others."""
        return None


@dataclass(frozen=True)
class InstanceOf:
    """Instances of a type, described in words (``InstanceOf(dict, "a dict")``)."""

    kind: type | tuple[type, ...]
    description: str

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is an instance of the type."""
        return isinstance(value, self.kind)

    def problem(self, name: str, value: Any) -> str | None:
        """Listed like the others."""
        return None


@dataclass(frozen=True)
class Validated:
    """A value an existing validator accepts: ``validate(value)`` raises ``ValueError`` with its
    own message otherwise (e.g. the RBF width rules of ``sigma``). Its message is the error."""

    validate: Callable[[Any], object]
    description: str = "a valid value"

    def accepts(self, value: Any) -> bool:
        """Whether the validator returns without an error."""
        return self.problem("", value) is None

    def problem(self, name: str, value: Any) -> str | None:
        """The validator's own message, or None when it accepts the value."""
        try:
            self.validate(value)
        except ValueError as exc:
            return str(exc)
        return None


def _english_list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def check_parameter(name: str, value: Any, constraints: tuple[Constraint, ...]) -> None:
    """Raise ``ValueError`` unless ``value`` meets one of ``constraints``.

    Parameters
    ----------
    name
        The parameter's name, used in the message.
    value
        Its value.
    constraints
        The accepted kinds of value; meeting one is enough.

    Raises
    ------
    ValueError
        With the most specific message: the one of a constraint whose kind the value has (see
        the module docstring), otherwise the list of what is accepted.
    """
    if any(c.accepts(value) for c in constraints):
        return
    for c in constraints:
        message = c.problem(name, value)
        if message is not None:
            raise ValueError(message)
    if all(isinstance(c, Options) for c in constraints):
        options = ", ".join(c.description for c in constraints)
        raise ValueError(f"unknown {name} {value!r}: {name} must be one of {options}")
    items = [
        phrase
        for c in constraints
        for phrase in ([repr(v) for v in c.values] if isinstance(c, Options) else [c.description])
    ]
    wanted = _english_list(items)
    raise ValueError(f"{name} must be {wanted}, got {value!r}")


def check_parameters(estimator: Any) -> None:
    """Check every constrained parameter of ``estimator`` (its class's ``parameter_constraints``).

    Raises
    ------
    ValueError
        For the first parameter that meets none of its constraints (see :func:`check_parameter`).
    """
    table: Mapping[str, tuple[Constraint, ...]] = type(estimator).parameter_constraints
    for name, constraints in table.items():
        check_parameter(name, getattr(estimator, name), constraints)

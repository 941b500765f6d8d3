"""Constructor parameters of an object: read, change and copy them by name.

The query strategies follow scikit-learn's parameter convention — every ``__init__``
argument is stored under its own name, nothing else is done in ``__init__`` — and need its
three operations: ``get_params``, ``set_params`` and a fresh unfitted copy (``clone``). They do
not subclass ``sklearn.base.BaseEstimator`` for them: importing it loads scikit-learn's
validation stack with scipy.stats and pandas, about a second of CPU that the Label page's
first load would otherwise pay before it draws anything (docs/benchmarks/app-latency.md,
"Cold start"). The scikit-learn estimators of :mod:`rlscore.core` (``RLSClassifier`` …) keep
``BaseEstimator``: they are meant for scikit-learn's pipelines and checks.

Objects of this kind are accepted by ``sklearn.base.clone`` too, which only needs
``get_params``.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any, TypeVar

P = TypeVar("P", bound="Parameterized")


class Parameterized:
    """Mixin: ``get_params`` / ``set_params`` / ``repr`` from the ``__init__`` signature."""

    @classmethod
    def param_names(cls) -> list[str]:
        """The constructor's parameter names, sorted."""
        init = cls.__init__
        if init is object.__init__:
            return []
        params = inspect.signature(init).parameters.values()
        for p in params:
            if p.kind is p.VAR_POSITIONAL:
                raise TypeError(f"{cls.__name__}.__init__ must not take *args")
        return sorted(p.name for p in params if p.name != "self" and p.kind is not p.VAR_KEYWORD)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor parameters by name; with ``deep``, also ``name__sub`` for the
        parameters of a parameter that has its own ``get_params``."""
        out = {}
        for name in self.param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{k}", v) for k, v in value.get_params().items())
            out[name] = value
        return out

    def set_params(self: P, **params) -> P:
        """Set constructor parameters by name (``name__sub`` for a nested one); returns self.

        Raises
        ------
        ValueError
            For a name that is not a constructor parameter, listing the valid ones; then no
            parameter is changed.
        """
        valid = self.param_names()
        # every name is checked before any is set: an invalid one changes nothing
        for key in params:
            name, _, sub = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for {type(self).__name__}; "
                    f"valid parameters: {', '.join(valid)}"
                )
            inner = sorted(getattr(self, name).get_params(deep=False)) if sub else ()
            if sub and sub.partition("__")[0] not in inner:
                raise ValueError(
                    f"Invalid parameter {sub!r} for {type(getattr(self, name)).__name__}; "
                    f"valid parameters: {', '.join(inner)}"
                )
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            name, _, sub = key.partition("__")
            if sub:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
        for name, sub_params in nested.items():
            getattr(self, name).set_params(**sub_params)
        return self

    def __repr__(self) -> str:
        defaults = {
            p.name: p.default
            for p in inspect.signature(type(self).__init__).parameters.values()
            if p.default is not p.empty
        }
        changed = [
            f"{k}={v!r}"
            for k, v in self.get_params(deep=False).items()
            if k not in defaults or not _same(v, defaults[k])
        ]
        return f"{type(self).__name__}({', '.join(changed)})"


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a is b or a == b)
    except (TypeError, ValueError):  # arrays and the like: shown
        return False


def fresh_copy(obj: P) -> P:
    """A new unfitted object of the same class with copies of ``obj``'s parameters (what
    ``sklearn.base.clone`` does for such objects, without importing scikit-learn)."""
    params = obj.get_params(deep=False)
    return type(obj)(
        **{
            k: fresh_copy(v) if isinstance(v, Parameterized) else copy.deepcopy(v)
            for k, v in params.items()
        }
    )


__all__ = ["Parameterized", "fresh_copy"]

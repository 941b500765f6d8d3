"""Lazy re-exports for a package's ``__init__``: a public name is imported on first access.

A package that re-exports names from its modules would otherwise import all of them (and
scikit-learn, scipy.stats, pandas, psycopg behind them) as soon as any one of its modules is
imported; the app's first page needs few of them. :func:`lazy_exports` gives the package a
module-level ``__getattr__`` (PEP 562) and ``__dir__``, so ``from rlscore import X`` and
``rlscore.X`` keep working and import only ``X``'s module.

A name that is also a submodule's (``rlscore.experiments.simulation.simulate``, the function and its
module) cannot be lazy: once the submodule is imported, the package attribute is the module
and ``__getattr__`` is never asked. Such a package imports its names eagerly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, tuple[str, ...]], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """The ``__getattr__``, ``__dir__`` and ``__all__`` of a package whose public names load
    on demand.

    Parameters
    ----------
    package
        The package's name (for the error message).
    exports
        Defining module -> the names the package re-exports from it.
    namespace
        The package's ``globals()``: an imported name is stored there, so it is looked up
        only once.

    Returns
    -------
    (getattr, dir, all)
        To assign to the package's ``__getattr__``, ``__dir__`` and ``__all__`` (every
        exported name, sorted: one list to keep, not two).

    Raises
    ------
    ValueError
        A name listed under two modules.
    """
    where: dict[str, str] = {}
    for module, names in exports.items():
        for name in names:
            if name in where:
                raise ValueError(f"{name!r} is exported from both {where[name]} and {module}")
            where[name] = module

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        owner = import_module(module)
        # a submodule (``rlscore.confidence``) is an attribute only once imported
        value = getattr(owner, name) if hasattr(owner, name) else import_module(f"{module}.{name}")
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    return __getattr__, __dir__, sorted(where)

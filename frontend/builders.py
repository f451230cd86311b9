"""Every builder function in one namespace (``hlograph.<name>``): the graph inputs
and constants of ``ops.basic``, each Op family's builders (``frontend/ops``) and
the NumPy compositions (``frontend/numpy``). ``ops.random``, ``numpy.linalg`` and
``numpy.fft`` stay namespaces of their own (``hlograph.random.uniform``,
``hlograph.linalg.inv``, ``hlograph.fft.rfft``; ``numpy.fft`` is not one of the
``MODULES`` merged here)."""

from .numpy import MODULES as _MODULES
from .ops import FAMILIES as _FAMILIES
from .ops import basic as _basic

#: modules that are namespaces of their own, not part of ``hlograph.<name>``
NAMESPACES = (_FAMILIES["random"], _MODULES["linalg"])

__all__: list[str] = []
_owner: dict[str, str] = {}
for _where, _mod in [("ops.basic", _basic),
                     *((f"ops.{n}", m) for n, m in _FAMILIES.items()),
                     *((f"numpy.{n}", m) for n, m in _MODULES.items())]:
    if _mod in NAMESPACES:
        continue
    for _name in _mod.__all__:
        if _name in _owner:
            raise ImportError(f"builder {_name!r} is defined by both {_owner[_name]} and {_where}")
        _owner[_name] = _where
        globals()[_name] = getattr(_mod, _name)
        __all__.append(_name)
del _where, _mod, _name

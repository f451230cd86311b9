"""Op families. Each module defines its Op classes and NumPy-named builders and
lists the builders in ``__all__``; they are re-exported here and from ``hlograph``."""

from .basic import *  # noqa: F401,F403
from .elemwise import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .control import *  # noqa: F401,F403
from .dynamic import *  # noqa: F401,F403

from . import basic, control, dynamic, elemwise, indexing, linalg, reduction, shape

__all__ = [
    name
    for mod in (basic, elemwise, reduction, shape, indexing, linalg, control, dynamic)
    for name in mod.__all__
]

"""The base of the engine's frozen dataclasses: values that copy and pickle as what they are.

A frozen dataclass copies and pickles by itself as Python, but not once mypyc has compiled it
(docs/engine-speed.md): the copy is made empty and then written field by field, which a frozen
class refuses. Built again from the arguments that made it, every value copies, deep-copies and
pickles the same under both builds (tests/engine/test_values.py).
"""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


class FrozenValue:
    """A frozen dataclass made again from its ``__init__`` fields when it is copied or unpickled
    (the others are worked out again by ``__post_init__``)."""

    __slots__ = ()

    def __reduce__(self) -> tuple[type[FrozenValue], tuple[object, ...]]:
        value = cast("DataclassInstance", self)
        return type(self), tuple(getattr(self, f.name) for f in fields(value) if f.init)

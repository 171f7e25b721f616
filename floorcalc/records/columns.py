"""What the reader's columnar tables share (:class:`~floorcalc.records.optable.OpTable`,
:class:`~floorcalc.records.calltable.CallTable`): a ``Sequence`` of records kept as typed
``array.array`` columns, a record made when one is asked for (:class:`ColumnTable`), and the
copies into and views out of those columns (:func:`int_array`, :func:`float_array`,
:func:`column_view`).
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING, Any, Iterator, List, Sequence, TypeVar, Union, overload

if TYPE_CHECKING:  # numpy is imported where columns are asked for, not with the records
    import numpy as np

R = TypeVar("R")

#: records made per slice when a table is iterated (bounds the argument lists alive at once)
SLICE = 1 << 16


class ColumnTable(Sequence[R]):
    """A ``Sequence[R]`` of ``_n`` rows whose records a subclass makes from its columns: row
    ``i`` by :meth:`_one` (``i`` in range), rows ``a`` to ``b - 1`` by :meth:`_records` (one
    map over the columns' slices). Indexing (negative too), slices (a list), ``len``,
    iteration, ``reversed`` and equality with a list or tuple of records behave as on the tuple
    of records the table replaces; two reads of ``t[i]`` give equal records, not the same object.
    ``_what`` names a row in the IndexError (``op``, ``runtime call``)."""

    __slots__ = ()
    _n: int
    _what = "row"

    def _one(self, i: int) -> R:
        raise NotImplementedError

    def _records(self, a: int, b: int) -> Iterator[R]:
        raise NotImplementedError

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> R: ...

    @overload
    def __getitem__(self, i: slice) -> List[R]: ...

    def __getitem__(self, i: Union[int, slice]) -> Union[R, List[R]]:
        if isinstance(i, slice):
            a, b, step = i.indices(self._n)
            if step == 1:
                return list(self._records(a, b)) if a < b else []
            return [self._one(j) for j in range(a, b, step)]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(f"{self._what} index {i} out of range (0..{self._n - 1})")
        return self._one(i)

    def __iter__(self) -> Iterator[R]:
        for a in range(0, self._n, SLICE):
            yield from self._records(a, min(self._n, a + SLICE))

    def __reversed__(self) -> Iterator[R]:
        for b in range(self._n, 0, -SLICE):
            yield from reversed(list(self._records(max(0, b - SLICE), b)))

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if not isinstance(other, (type(self), list, tuple)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    def __hash__(self) -> int:
        return hash(tuple(self))


def int_array(code: str, values: Any) -> "array[int]":
    """``values`` (a numpy array, an ``array.array``, any sequence of ints) as a new
    ``array.array`` of typecode ``code`` (``"i"``: int32, ``"q"``: int64): a column of a
    table. A numpy array is copied once, through its bytes at the column's width."""
    if isinstance(values, array) and values.typecode == code:
        return array(code, values)
    if hasattr(values, "astype"):  # a numpy array: one copy of its bytes at the column's width
        import numpy as np

        return array(code, np.ascontiguousarray(values, dtype=np.int32 if code == "i" else np.int64).tobytes())
    return array(code, values)


def float_array(values: Any) -> "array[float]":
    """``values`` (a numpy array or any sequence of numbers) as a new float64 ``array.array``."""
    if hasattr(values, "astype"):
        import numpy as np

        return array("d", np.ascontiguousarray(values, dtype=np.float64).tobytes())
    return array("d", values)


def column_view(a: "array[Any]", dtype: Any) -> "np.ndarray":
    """A read-only numpy view of column ``a`` (never a copy of its memory; an empty column gives
    an empty array of ``dtype``)."""
    import numpy as np

    v = np.frombuffer(a, dtype=dtype) if len(a) else np.zeros(0, dtype=dtype)
    v.flags.writeable = False
    return v


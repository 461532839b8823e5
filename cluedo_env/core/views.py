"""The compiled rules' views of the two buffers ``core/layout.py`` lays out: ``state_views`` (the state's
fields, a ``layout.Fields`` tuple) and ``table_views`` (the numbers and the rule tables, a
``layout.Tables`` tuple).

Both are numba intrinsics made from the layout's spec when the calling function is compiled: the
type of each field (its dtype and number of axes) comes from the spec, its place and shape from the
buffer's header, read when the views are made. Like ``numba.carray``'s, the arrays hold no reference
to their buffer: handing them from rule to rule costs no reference counting (an atomic operation
per array and call, which shared by the threads of a parallel step would cost more than the rules),
and a function compiled without reference counting (``_nrt=False``) can make them. The caller keeps
the buffer alive for the call.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import from_dtype, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

from cluedo_env.core import layout

__all__ = ["state_views", "table_views"]

_WORD = ir.IntType(64)


def _views(name: str, tuple_class: type, numbers: int, arrays: list[tuple[type, int]]):
    """An intrinsic viewing a ``uint8`` buffer laid out by ``layout.pack`` as a ``tuple_class`` tuple:
    its first ``numbers`` header words as ``int64`` numbers, then one C-contiguous array per
    ``(dtype, ndim)`` of ``arrays``."""
    array_types = [types.Array(from_dtype(np.dtype(dtype)), ndim, "C") for dtype, ndim in arrays]
    tuple_type = types.NamedTuple([types.int64] * numbers + array_types, tuple_class)

    def codegen(context, builder, signature, args):
        data = make_array(signature.args[0])(context, builder, args[0]).data  # i8*
        header = builder.bitcast(data, _WORD.as_pointer())

        def word(k):
            return builder.load(builder.gep(header, [ir.Constant(_WORD, k)]))

        members = [word(k) for k in range(numbers)]
        for k, array_type in enumerate(array_types):
            entry = numbers + layout.ENTRY * k
            shape = [
                context.cast(builder, word(entry + 1 + d), types.int64, types.intp)
                for d in range(array_type.ndim)
            ]
            item = context.get_data_type(array_type.dtype)
            itemsize = context.get_abi_sizeof(item)
            strides, stride = [], cgutils.intp_t(itemsize)
            for size in reversed(shape):  # C order: the last axis is contiguous
                strides.insert(0, stride)
                stride = builder.mul(stride, size)
            pointer = builder.bitcast(builder.gep(data, [word(entry)]), item.as_pointer())
            array = make_array(array_type)(context, builder)
            populate_array(
                array,
                data=pointer,
                shape=shape,
                strides=strides,
                itemsize=cgutils.intp_t(itemsize),
                meminfo=None,
            )
            members.append(array._getvalue())
        return context.make_tuple(builder, tuple_type, members)

    def typer(typingctx, buffer):
        if isinstance(buffer, types.Array) and buffer.dtype == types.uint8 and buffer.ndim == 1:
            return tuple_type(buffer), codegen
        return None

    typer.__name__ = typer.__qualname__ = name
    return intrinsic(typer)


state_views = _views(
    "state_views", layout.Fields, 0, [(f.dtype, 1 + layout.ndim(f)) for f in layout.STATE_FIELDS]
)
state_views.__doc__ = "``state_views(State._buffer)``: the state's fields, a ``layout.Fields`` tuple (``g``)."
table_views = _views(
    "table_views",
    layout.Tables,
    len(layout.NUMBERS),
    [(f.dtype, layout.ndim(f)) for f in layout.TABLE_FIELDS],
)
table_views.__doc__ = (
    "``table_views(Rules.tables)``: the numbers and the rule tables, a ``layout.Tables`` tuple (``t``)."
)

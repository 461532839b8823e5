"""The compiled rules' views of the two buffers ``core/layout.py`` lays out: ``table_views`` (the config's
numbers and rule tables, a ``layout.Tables`` tuple) and ``state_views`` (the state's fields, a
``layout.Fields`` tuple).

Both are numba intrinsics made from the layout's spec when the calling function is compiled: each
field's type (its dtype and number of axes) comes from the spec; its place from the buffer's header
and its shape from the numbers its axes name, read when the views are made. A state field's axes are
the numbers of the tables' tuple (``t.P``, ``t.C`` ...), the very values the rules read: the compiler
sees that ``g.passed`` and ``g.showed`` have the same shape, and works out their addressing once.
Like ``numba.carray``'s, the arrays hold no reference to their buffer: handing them from rule to rule
costs no reference counting (an atomic operation per array and call, which shared by the threads of
a parallel step would cost more than the rules), and a function compiled without reference counting
(``_nrt=False``) can make them. The caller keeps the buffer alive for the call.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import from_dtype, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

from cluedo_env.core import layout

__all__ = ["flat_view", "state_views", "table_views"]

_WORD = ir.IntType(64)


def _array_type(field: layout.Field, batched: bool) -> types.Array:
    return types.Array(from_dtype(np.dtype(field.dtype)), batched + len(field.shape), "C")


def _is_buffer(buffer: types.Type) -> bool:
    return isinstance(buffer, types.Array) and buffer.dtype == types.uint8 and buffer.ndim == 1


def _views(context, builder, buffer_type, buffer, array_types, fields, sizes, first_offset):
    """The arrays of ``fields`` in ``buffer``: field ``k`` at the byte offset of header word
    ``first_offset + k``, its axes' sizes from ``sizes`` (by name; the batch axis ``layout.BATCH``)."""
    data = make_array(buffer_type)(context, builder, buffer).data  # i8*
    header = builder.bitcast(data, _WORD.as_pointer())
    arrays = []
    for k, (field, array_type) in enumerate(zip(fields, array_types)):
        axes = [layout.BATCH, *field.shape][-array_type.ndim :]
        shape = [sizes[axis] if isinstance(axis, str) else cgutils.intp_t(axis) for axis in axes]
        item = context.get_data_type(array_type.dtype)
        itemsize = cgutils.intp_t(context.get_abi_sizeof(item))
        strides, stride = [], itemsize
        for size in reversed(shape):  # C order: the last axis is contiguous
            strides.insert(0, stride)
            stride = builder.mul(stride, size)
        offset = builder.load(builder.gep(header, [ir.Constant(_WORD, first_offset + k)]))
        array = make_array(array_type)(context, builder)
        pointer = builder.bitcast(builder.gep(data, [offset]), item.as_pointer())
        populate_array(array, data=pointer, shape=shape, strides=strides, itemsize=itemsize, meminfo=None)
        arrays.append(array._getvalue())
    return arrays


_TABLE_ARRAYS = [_array_type(field, False) for field in layout.TABLE_FIELDS]
_TABLES = types.NamedTuple([types.int64] * len(layout.NUMBERS) + _TABLE_ARRAYS, layout.Tables)
_STATE_ARRAYS = [_array_type(field, True) for field in layout.STATE_FIELDS]
_FIELDS = types.NamedTuple(_STATE_ARRAYS, layout.Fields)


@intrinsic
def table_views(typingctx, buffer):
    """``table_views(Rules.tables)``: the numbers and the rule tables, a ``layout.Tables`` tuple (``t``)."""
    if not _is_buffer(buffer):
        return None

    def codegen(context, builder, signature, args):
        header = builder.bitcast(make_array(buffer)(context, builder, args[0]).data, _WORD.as_pointer())
        numbers = [
            builder.load(builder.gep(header, [ir.Constant(_WORD, k)])) for k in range(len(layout.NUMBERS))
        ]
        sizes = dict(zip(layout.NUMBERS, numbers))
        tables = _views(
            context, builder, buffer, args[0], _TABLE_ARRAYS, layout.TABLE_FIELDS, sizes, len(layout.NUMBERS)
        )
        return context.make_tuple(builder, _TABLES, numbers + tables)

    return _TABLES(buffer), codegen


@intrinsic
def state_views(typingctx, buffer, tables):
    """``state_views(State._buffer, t)``: the state's fields, a ``layout.Fields`` tuple (``g``), their
    axes sized by the batch's games (the buffer's number) and the numbers of ``t`` (``table_views``)."""
    if not (_is_buffer(buffer) and tables == _TABLES):
        return None

    def codegen(context, builder, signature, args):
        header = builder.bitcast(make_array(buffer)(context, builder, args[0]).data, _WORD.as_pointer())
        sizes = {name: builder.extract_value(args[1], k) for k, name in enumerate(layout.NUMBERS)}
        sizes[layout.BATCH] = builder.load(header)
        fields = _views(context, builder, buffer, args[0], _STATE_ARRAYS, layout.STATE_FIELDS, sizes, 1)
        return context.make_tuple(builder, _FIELDS, fields)

    return _FIELDS(buffer, tables), codegen


@intrinsic
def flat_view(typingctx, array):
    """``flat_view(a)``: a C-contiguous array as one axis, a view holding no reference (as the fields'
    own): ``g.passed[i]`` as ``P * C`` cards in a row, where numba's ``reshape`` calls a helper."""
    if not (isinstance(array, types.Array) and array.layout == "C"):
        return None
    flat = array.copy(ndim=1)

    def codegen(context, builder, signature, args):
        source = make_array(array)(context, builder, args[0])
        view = make_array(flat)(context, builder)
        populate_array(
            view,
            data=source.data,
            shape=[source.nitems],
            strides=[source.itemsize],
            itemsize=source.itemsize,
            meminfo=None,
        )
        return view._getvalue()

    return flat(array), codegen

"""The pickle inside a ``torch.save`` file, measured before torch unpickles it (``check_pickle``).

``torch.load(..., weights_only=True)`` builds only tensors and plain data, but it builds them
whatever their shape, and pickle writes a value once however often it is referred to. A file of a
kilobyte can hold a tuple of two references to a tuple of two references ... 40 deep: unpickling it
as a dict's key hashes it, and hashing a tuple walks every reference, 2**40 tuples (the same for
comparing two such values, and for any later walk of the data). ``check_pickle`` reads the archive's
``data.pkl`` and follows its instructions (``pickletools.genops``; nothing is built) on a stack and
memo of stand-ins, each the list of the values it holds, as torch's reader would build them. Then it
measures every value as it would be walked, each reference copied (as
``experiments.learning.checkpoints.exceeds`` measures loaded data), and refuses the file where:

- a value would reach more than ``MAX_VALUES`` values (tensors and what rebuilds them included),
  nest more than ``MAX_DEPTH`` deep, or hold itself;
- the values hashed while unpickling (dict keys, and what is handed to a call or to ``BUILD``,
  which may hash it) would reach more than ``MAX_VALUES`` values in all: one key hashed in a
  million dicts is walked a million times;
- its dicts have more than ``MAX_NUMBER_KEYS`` keys that are numbers, in all: a string's hash is
  drawn anew in each process, a number's is not, so keys made to share one hash turn building a dict
  quadratic (20,000 such keys: 2.5 s; a real checkpoint has 17 such keys, its other 79,000 are
  strings);
- it has more than ``MAX_INSTRUCTIONS`` instructions (each makes at most one value), so the scan's
  own time and memory are bounded (a crafted pickle of a million tuples: about 6 s here);
- it names a function or class (``GLOBAL``) that ``torch.save`` writes in none of these files
  (``RefusedGlobal``, naming it and the key of the file's top dict whose value a call of it makes): tensors
  (``torch._utils._rebuild_tensor_v2``/``_v3``), storages, dtypes and ``collections.OrderedDict`` are
  what it writes; torch's reader accepts more (``set``, ``Counter``, ``bytearray``, ``_codecs.encode``
  with any codec), and calling those builds what no count of values sees (a set of keys sharing one
  hash, gigabytes of zeros, a quadratic codec). Only the tensor rebuilders are called, and
  ``OrderedDict`` with no arguments (its items come after, as dict items); only an ``OrderedDict`` is
  given a state (``BUILD``), and only a dict (``dict.update`` would build a list of pairs' keys unseen);
  a storage is named as ``torch.save`` names it, ``('storage', <type>, <key>, <location>, <size>)``
  (torch keeps storages by key: keys of another kind could share a hash);
- a dict key is neither a string nor a number (a tuple of strings, made to share a hash, is compared
  element by element at each collision);
- it uses an instruction torch's reader does not accept (``torch/_weights_only_unpickler.py``:
  torch would refuse it too, and the stand-ins would be wrong), or is not a whole pickle;
- the archive does not hold exactly one member named ``data.pkl`` (torch reads
  ``<archive>/data.pkl``, its name's case aside).

The bounds are those of a training checkpoint's loaded data, far above any real file's:
train_ppo_league.yaml's checkpoints hold about 850,000 values, 12 deep (measured here 192 steps into
its 512 games: 329,217 instructions, its largest value 237,617 values, 12 deep, scanned in about a
second); a shipped model 919 instructions, 598 values, 6 deep. The member is read whole (its size is
bounded first by ``agents.ppo.model.check_declared_bytes``) and scanned once.
"""

from __future__ import annotations

import functools
import pickletools
import zipfile
import zlib
from itertools import repeat
from pathlib import Path
from typing import IO

__all__ = [
    "MAX_DEPTH",
    "MAX_INSTRUCTIONS",
    "MAX_NUMBER_KEYS",
    "MAX_VALUES",
    "EarlierVersionCheckpoint",
    "RefusedGlobal",
    "check_pickle",
]

MAX_VALUES = 10_000_000
MAX_DEPTH = 64
MAX_NUMBER_KEYS = 10_000
MAX_INSTRUCTIONS = 3_000_000  # about 9 times a 512-game league checkpoint's (the scan: seconds at most)

# What torch.save writes in a model, a checkpoint or an SB3 policy (their pickles, read here), by the
# (module, name) of their GLOBAL: the tensor rebuilders (called), OrderedDict (called with no arguments),
# and, only named as arguments, storages and dtypes.
_CALLED = {"torch._utils _rebuild_tensor_v2", "torch._utils _rebuild_tensor_v3", "collections OrderedDict"}
_NAMED = {"torch.storage UntypedStorage"}
# What an instruction's value is, where the rules above ask (else a GLOBAL's name, or what a call makes)
_KINDS = {
    **dict.fromkeys(
        ("BININT", "BININT1", "BININT2", "LONG1", "BINFLOAT", "NEWTRUE", "NEWFALSE", "NONE"), "number"
    ),
    **dict.fromkeys(("BINUNICODE", "SHORT_BINSTRING"), "text"),
    "EMPTY_TUPLE": "()",
    "EMPTY_DICT": "{}",
}

# The instructions of torch's weights_only reader (torch 2.10 to 2.13), by what they do to the stack
_NEW = {  # push a new value
    *("NONE", "NEWFALSE", "NEWTRUE", "BININT", "BININT1", "BININT2", "BINFLOAT", "LONG1"),
    *("BINUNICODE", "SHORT_BINSTRING", "GLOBAL", "EMPTY_TUPLE", "EMPTY_LIST", "EMPTY_DICT", "EMPTY_SET"),
}
_POPPED = {"TUPLE1": 1, "TUPLE2": 2, "TUPLE3": 3, "REDUCE": 2, "NEWOBJ": 2, "BINPERSID": 1}  # -> a new value
_ADDED = {"APPEND": 1, "SETITEM": 2, "BUILD": 1}  # popped and added to the value below them


class EarlierVersionCheckpoint(ValueError):
    """A training checkpoint whose games are bytes (``_codecs.encode`` in its pickle, where ``torch.save``
    writes bytes), as format ``cluedo-ppo-checkpoint-v1`` (0.1.0's) held them: a pickle of the games, which
    this version never unpickles (a pickle can run any code). Its message names the file, what this version
    cannot do with it (``doing``: "resume", "read"), and the model file a new run can start from."""

    def __init__(self, path: Path, doing: str) -> None:
        run = path.parent.parent if path.parent.name == "checkpoints" else path.parent
        super().__init__(
            f"{path}: its pickle names _codecs.encode for its games (what torch.save writes for bytes), "
            "where checkpoints of format cluedo-ppo-checkpoint-v1 (0.1.0's) held their games as a pickle: "
            f"it is most likely a checkpoint of that earlier version, which this version cannot {doing} (its "
            "games would have to be unpickled, and a pickle can run any code; nothing of it was "
            f"unpickled). Its run's model file reads, and a new run can start from its weights: "
            f"init_from={run / 'model.pt'} (written when a 0.1.0 run ends)"
        )


class RefusedGlobal(ValueError):
    """``check_pickle``'s refusal of a pickle that names a function or class (``GLOBAL``) ``torch.save``
    writes in no such file.

    Attributes:
        name: What it names, ``"module.attribute"`` (``"_codecs.encode"``: what writes bytes).
        key: The key of the pickle's top dict whose value a call of the name makes (``"games"`` for
            ``{"games": b"..."}``: bytes are written as a call of ``_codecs.encode``), or None.
    """

    def __init__(self, message: str, name: str, key: str | None) -> None:
        super().__init__(message)
        self.name = name
        self.key = key

    @property
    def earlier_version(self) -> bool:
        """Whether it is what a checkpoint of 0.1.0 holds: its games as bytes (``EarlierVersionCheckpoint``)."""
        return (self.name, self.key) == ("_codecs.encode", "games")


def check_pickle(
    file: str | Path | IO[bytes], source: str, max_values: int = MAX_VALUES, max_depth: int = MAX_DEPTH
) -> None:
    """Refuse a ``torch.save`` archive whose pickle would build more than the bounds allow, before
    torch unpickles it (see the module docstring).

    Args:
        file: The archive (a path or a seekable binary file).
        source: The file, for messages.
        max_values: The most values a value may reach, each reference copied, and the most the
            values hashed while unpickling may reach in all.
        max_depth: The most containers a value may nest.

    Raises:
        RefusedGlobal: naming ``source``, the pickle and the function or class it names that
            ``torch.save`` writes in no such file.
        ValueError: naming ``source``, the pickle and what else was refused.
    """
    try:
        with zipfile.ZipFile(file) as archive:
            members = [m for m in archive.infolist() if m.filename.lower().endswith("data.pkl")]
            if len(members) != 1:
                raise ValueError(
                    f"{source}: it holds {len(members)} members named data.pkl; torch.save writes one, "
                    "which torch.load reads (nothing of it was unpickled)"
                )
            name = members[0].filename
            data = archive.read(members[0])
    except (OSError, EOFError, RuntimeError, NotImplementedError, zipfile.BadZipFile, zlib.error) as error:
        raise ValueError(
            f"{source}: its pickle cannot be read ({error}); nothing of it was unpickled"
        ) from None
    problem = _measure(data, name, max_values, max_depth)
    if isinstance(problem, RefusedGlobal):
        raise RefusedGlobal(f"{source}: {problem}; nothing of it was unpickled", problem.name, problem.key)
    if problem:
        raise ValueError(f"{source}: {problem}; nothing of it was unpickled")


def _measure(data: bytes, name: str, max_values: int, max_depth: int) -> str | RefusedGlobal | None:
    """What is wrong with the pickle ``data`` (the member ``name``), or None."""
    held: dict[int, list[int]] = {}  # a value -> the values it holds; none for a number, a string, ...
    hashed: list[int] = []  # dict keys, and the values handed to a call or BUILD
    kinds: dict[int, str] = {}  # "text", "number", "()" (the empty tuple) or a GLOBAL's name, by value
    number_keys = 0  # dict keys that are numbers
    stack: list[int] = []  # the values, by number (the order they were made in)
    marks: list[int] = []  # where each MARK left the stack; torch's reader sees none below the last
    memo: dict[int, int] = {}
    made = 0
    try:
        for count, (op, arg, at) in enumerate(pickletools.genops(data), 1):
            if count > MAX_INSTRUCTIONS:
                return (
                    f"its pickle {name} has more than {MAX_INSTRUCTIONS:,} instructions, more than a file may "
                    "hold"
                )
            code = op.name
            if code == "GLOBAL" and not _written(arg):
                dotted = arg.replace(" ", ".")
                return RefusedGlobal(
                    f"its pickle {name} names {dotted}, which torch.save writes in no such file",
                    dotted,
                    _top_key(data, at),
                )
            if code in _NEW or code in _POPPED or code == "TUPLE":
                items = [] if code in _NEW else _pop(stack, marks, _POPPED.get(code))  # TUPLE: to its mark
                if code in ("REDUCE", "NEWOBJ"):
                    called, given = kinds.get(items[0], "a value"), kinds.get(items[1])
                    if (
                        called not in _CALLED
                        or code == "NEWOBJ"
                        or (called == "collections OrderedDict") != (given == "()")
                    ):
                        return (
                            f"its pickle {name} calls {called.replace(' ', '.')} (at byte {at:,}) as torch.save "
                            "never does (it calls the tensor rebuilders, and OrderedDict with no arguments)"
                        )
                if code == "BINPERSID" and not _storage_id(items[0], held, kinds):
                    return (
                        f"its pickle {name} names a storage (at byte {at:,}) otherwise than torch.save does "
                        "(('storage', a storage type, its key, its location, its size))"
                    )
                if code in ("REDUCE", "NEWOBJ", "BINPERSID"):
                    hashed.append(items[-1])  # a call's arguments, a storage's id
                made += 1
                stack.append(made)
                kind = arg if code == "GLOBAL" else _KINDS.get(code)
                if code == "REDUCE":  # what the call makes
                    kind = "OrderedDict()" if kinds[items[0]] == "collections OrderedDict" else "tensor"
                if kind:
                    kinds[made] = kind
                if items:
                    held[made] = items
            elif code in _ADDED or code == "APPENDS" or code == "SETITEMS":
                items = _pop(stack, marks, _ADDED.get(code))  # APPENDS, SETITEMS: to their mark
                if code == "BUILD" and (
                    kinds.get(_top(stack, marks)) != "OrderedDict()" or kinds.get(items[0]) != "{}"
                ):
                    return (  # (its state updates the object's attributes: a list of pairs would be keys unseen)
                        f"its pickle {name} sets the state of a value (BUILD, at byte {at:,}) otherwise than "
                        "torch.save does (a dict of attributes given to an OrderedDict)"
                    )
                held.setdefault(_top(stack, marks), []).extend(items)
                hashed.extend(items if code == "BUILD" else items[::2] if "SETITEM" in code else ())
                if "SETITEM" in code:
                    keys = [kinds.get(key) for key in items[::2]]
                    if any(key not in ("text", "number") for key in keys):
                        return (
                            f"its pickle {name} gives a dict a key that is neither a string nor a number (at "
                            f"byte {at:,}), which no such file holds"
                        )
                    number_keys += keys.count("number")
                    if number_keys > MAX_NUMBER_KEYS:
                        return (
                            f"its pickle {name} gives its dicts more than {MAX_NUMBER_KEYS:,} keys that are not "
                            "strings, more than a file may hold (keys sharing one hash make a dict quadratic)"
                        )
            elif code == "MARK":
                marks.append(len(stack))
            elif code in ("BINPUT", "LONG_BINPUT"):
                memo[arg] = _top(stack, marks)
            elif code in ("BINGET", "LONG_BINGET"):
                stack.append(memo[arg])
            elif code == "STOP":
                _pop(stack, marks, 1)
            elif code != "PROTO":
                return (
                    f"its pickle {name} uses {code} (at byte {at:,}), which torch's weights_only reader "
                    "does not accept"
                )
    except (IndexError, KeyError) as error:  # an empty stack, no mark, a memo entry never stored
        what = "a memo entry never stored" if isinstance(error, KeyError) else "too few values on its stack"
        return f"its pickle {name} is not one torch can read ({what}, at byte {at:,})"
    except ValueError as error:  # genops: an unknown or cut instruction, no STOP
        return f"its pickle {name} is not one torch can read ({error})"
    return _oversized(held, hashed, name, max_values, max_depth)


def _top_key(data: bytes, at: int) -> str | None:
    """The key of the pickle's top dict whose value is what the function named at byte ``at`` makes when
    called (``REDUCE``), or None.

    What a value belongs to shows only once it is added to a dict or list (``{"games": {"x": v}}`` and
    ``{"games": {}, "x": v}`` are the same instructions up to ``v``), so the pickle is followed again, each
    value on the stack with the byte of the name it is (GLOBAL) or a call of which made it, until a pair
    added to the top dict (its first value) has a value a call of the name at ``at`` made."""
    # Each value: the byte of the name it is (GLOBAL; else -1), of the name a call of which made it (else -1),
    # and its text (a key's) or None.
    stack: list[tuple[int, int, str | None]] = []
    marks: list[int] = []
    memo: dict[int, tuple[int, int, str | None]] = {}
    top_dict = False  # whether the first value is a dict (it stays at the stack's bottom to the end)
    try:
        for count, (op, arg, here) in enumerate(pickletools.genops(data), 1):
            code = op.name
            if count > MAX_INSTRUCTIONS or code == "STOP":
                return None
            if code in _NEW:
                stack.append(
                    (here if code == "GLOBAL" else -1, -1, arg if _KINDS.get(code) == "text" else None)
                )
                top_dict = top_dict or (count == 2 and code == "EMPTY_DICT")  # (after PROTO)
            elif code in _POPPED or code == "TUPLE":
                items = _pop(stack, marks, _POPPED.get(code))
                stack.append((-1, items[0][0] if code == "REDUCE" else -1, None))
            elif code in _ADDED or code in ("APPENDS", "SETITEMS"):
                items = _pop(stack, marks, _ADDED.get(code))
                if "SETITEM" in code and top_dict and len(stack) == 1:
                    for (_, _, key), (_, call_of, _) in zip(items[::2], items[1::2], strict=True):
                        if call_of == at:
                            return key
            elif code == "MARK":
                marks.append(len(stack))
            elif code in ("BINPUT", "LONG_BINPUT"):
                memo[arg] = stack[-1]
            elif code in ("BINGET", "LONG_BINGET"):
                stack.append(memo[arg])
            elif code != "PROTO":
                return None
    except (IndexError, KeyError, ValueError):
        return None
    return None


def _written(name: str) -> bool:
    """Whether ``torch.save`` writes the GLOBAL ``name`` (``"module attribute"``) in a model, a checkpoint or
    an SB3 policy: a tensor rebuilder, ``OrderedDict``, a storage or a dtype."""
    return name in _CALLED or name in _NAMED or name in _torch_names()


@functools.cache
def _torch_names() -> frozenset[str]:
    """``"torch <name>"`` of torch's storage types and dtypes (read from the module's own names: looking a
    name up could import a submodule it names)."""
    import torch  # (the loaders that scan have it)

    named = vars(torch).items()
    return frozenset(
        f"torch {n}"
        for n, v in named
        if isinstance(v, torch.dtype) or (n.endswith("Storage") and isinstance(v, type))
    )


def _storage_id(pid: int, held: dict[int, list[int]], kinds: dict[int, str]) -> bool:
    """Whether the persistent id ``pid`` is ``('storage', <storage type>, <key>, <location>, <size>)``, as
    torch.save writes it (torch keeps each storage by its key: a key of any other kind could collide)."""
    parts = [kinds.get(part, "") for part in held.get(pid, ())]
    return (
        len(parts) == 5
        and parts[0] == parts[2] == parts[3] == "text"
        and parts[4] == "number"
        and parts[1].endswith("Storage")
        and _written(parts[1])
    )


def _pop(stack: list[int], marks: list[int], count: int | None) -> list[int]:
    """The ``count`` values on top of ``stack`` (``None``: all above the last mark, which goes), popped;
    ``IndexError`` where there are fewer above the last mark (torch's reader would fail there)."""
    floor = marks.pop() if count is None else marks[-1] if marks else 0
    start = floor if count is None else len(stack) - count
    if start < floor:
        raise IndexError(count)
    items = stack[start:]
    del stack[start:]
    return items


def _top(stack: list[int], marks: list[int]) -> int:
    """The value on top of ``stack``, above its last mark (``IndexError``: none there)."""
    if len(stack) <= (marks[-1] if marks else 0):
        raise IndexError(1)
    return stack[-1]


def _oversized(
    held: dict[int, list[int]], hashed: list[int], name: str, max_values: int, max_depth: int
) -> str | None:
    """Measure every value of ``held`` once, from what it holds (values reached, depth), as
    ``experiments.learning.checkpoints.exceeds`` does: linear in the pickle's own values."""
    refused = (
        f"its plain data holds more than {max_values:,} values, is nested more than {max_depth} deep or "
        f"holds itself, as its pickle {name} builds it (a value counts as often as it is reached)"
    )
    values: dict[int, int] = {}  # value -> the values it reaches (itself included), once measured
    depths: dict[int, int] = {}  # value -> how deep it nests; a number or a string: neither (1 value, 0 deep)
    inside: set[int] = set()  # the values being measured: those the walk is inside
    for root in held:
        stack = [root]
        while stack:
            node = stack[-1]
            if node in values:  # measured already, through another reference
                stack.pop()
            elif node not in inside:  # first reached: measure what it holds first
                inside.add(node)
                for item in held[node]:
                    if item in inside:
                        return refused + ": a value holds itself"
                    if item in held and item not in values:
                        stack.append(item)
            else:
                stack.pop()
                inside.discard(node)
                items = held[node]
                values[node] = min(1 + sum(map(values.get, items, repeat(1))), max_values + 1)
                depths[node] = 1 + max(map(depths.get, items, repeat(0)), default=-1)
                if values[node] > max_values:
                    return refused + f": a value reaches more than {max_values:,}"
                if depths[node] > max_depth:
                    return refused + f": a value is nested {depths[node]} deep"
    total = 0
    for value in hashed:
        total += values.get(value, 1)
        if total > max_values:
            return (
                f"the values its pickle {name} hashes while it is unpickled (dict keys, and what calls are "
                f"given) reach more than {max_values:,} values in all (each is walked whenever it is hashed)"
            )
    return None

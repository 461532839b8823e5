"""Model files from anybody: what they declare is checked against what they hold, before any allocation.

Each hostile file is a shipped model's record with one thing changed, written
with ``torch.save`` of plain dicts and tensors (what a ``weights_only`` load
accepts), so every refusal below is about the one change: a network declared
far larger than its tensors, tensors of another shape, NaN or infinite
weights. The shipped models themselves still load and play.
"""

from __future__ import annotations

import io
import json
import math
import pickle
import re
import resource
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.arena import play_batch
from agents.integrations.rllib_agent import RLlibAgent
from agents.ppo.agent import PPOAgent
from agents.ppo.model import MAX_PARAMETERS, SHIPPED, load_model
from agents.ppo.network import MAX_WIDTH
from agents.registry import make_agent
from cluedo_env import core

SHIPPED_MODELS = sorted(SHIPPED.glob("*.pt"))
MODEL = SHIPPED / "cluedo_ppo_4p.pt"


def record() -> dict:
    """The shipped model's record, as plain values (a fresh copy each call)."""
    return torch.load(MODEL, map_location="cpu", weights_only=True)


def written(tmp_path: Path, value: dict, name: str = "model.pt") -> Path:
    path = tmp_path / name
    torch.save(value, path)
    return path


def refused(path: Path) -> str:
    """The message of the ``ValueError`` that loading ``path`` raises."""
    with pytest.raises(ValueError) as error:
        load_model(path)
    return str(error.value)


# --- the shipped models ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", SHIPPED_MODELS, ids=[p.name for p in SHIPPED_MODELS])
def test_the_shipped_models_load_and_play(path):
    network = load_model(path)
    assert all(torch.isfinite(t).all() for t in network.state_dict().values())
    agent = PPOAgent(checkpoint=path.name, seed=1)
    others = [make_agent("random", seed=k, accuse="never") for k in range(1, 4)]
    result = play_batch(network.game, [agent, *others], np.arange(2), rotation=np.arange(2))
    assert len(result.winner) == 2 and (result.turns > 0).all()


# --- declared sizes -------------------------------------------------------------------------------


def test_a_small_file_declaring_huge_layers_is_refused_at_once_naming_the_field(tmp_path):
    bad = record()
    bad["network"]["hidden"] = [2_000_000, 2_000_000]
    path = written(tmp_path, bad)
    assert path.stat().st_size < 400_000  # the issue's 350 KB file
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    start = time.monotonic()
    message = refused(path)
    assert time.monotonic() - start < 2.0  # the old code spent 41 s allocating 3.3 GB
    assert (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak) * 1024 < 500_000_000
    assert f"network.hidden must be a list of 1 to 64 whole widths in [1, {MAX_WIDTH:,}]" in message
    assert "2000000" in message and str(path) in message


def test_widths_within_their_bound_that_make_too_many_weights_are_refused_before_allocation(tmp_path):
    bad = record()
    bad["network"]["hidden"] = [MAX_WIDTH] * 3  # 8.6 billion weights
    start = time.monotonic()
    message = refused(written(tmp_path, bad))
    assert time.monotonic() - start < 2.0
    assert f"more than the {MAX_PARAMETERS:,} a model may have" in message
    assert f"hidden=[{MAX_WIDTH}, {MAX_WIDTH}, {MAX_WIDTH}]" in message


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("hidden", [128.5, 128]),
        ("hidden", "128"),
        ("hidden", []),
        ("hidden", [True, 128]),
        ("card_hidden", 0),
        ("card_embedding", 10**9),
        ("activation", "gelu"),
        ("accuse_prior", float("nan")),
        ("belief_features", "yes"),
    ],
)
def test_bad_network_settings_are_named(tmp_path, field, value):
    bad = record()
    bad["network"][field] = value
    assert f"network.{field} must be" in refused(written(tmp_path, bad))


def test_an_unknown_setting_is_named(tmp_path):
    bad = record()
    bad["network"]["depth"] = 3
    assert "'depth'" in refused(written(tmp_path, bad))


# --- tensors that do not fit ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "tensor", "shapes"),
    [
        ("hidden", [256, 128], "trunk.0.weight", "shape (128, 413), they need (256, 413)"),
        ("hidden", [128], "trunk.2.weight", None),  # one layer fewer: its tensors are unexpected
        ("card_embedding", 16, "card_embedding.weight", "shape (21, 8), they need (21, 16)"),
        ("card_hidden", 64, "card_encoder.0.weight", "shape (32, 33), they need (64, 33)"),
    ],
)
def test_settings_that_do_not_fit_the_stored_tensors_are_refused_naming_the_tensor(
    tmp_path, field, value, tensor, shapes
):
    bad = record()
    bad["network"][field] = value
    message = refused(written(tmp_path, bad))
    assert "the model does not fit its network settings" in message and repr(tensor) in message
    if shapes:
        assert shapes in message


def test_a_stored_tensor_of_another_shape_is_named(tmp_path):
    bad = record()
    bad["state_dict"]["card_head.weight"] = torch.zeros(5, 31)
    assert "tensor 'card_head.weight' has shape (5, 31), they need (5, 32)" in refused(written(tmp_path, bad))


def test_a_missing_tensor_and_an_unexpected_one_are_named(tmp_path):
    bad = record()
    del bad["state_dict"]["value_head.bias"]
    bad["state_dict"]["extra.weight"] = torch.zeros(3)
    message = refused(written(tmp_path, bad))
    assert "missing tensors ['value_head.bias']" in message and "unexpected ['extra.weight']" in message


@pytest.mark.parametrize(
    ("weight", "said"),
    [
        ([[0.0] * 32] * 5, "is a list, not a dense tensor"),
        (torch.zeros(5, 32, dtype=torch.int64), "torch.int64"),
    ],
    ids=["list", "integers"],
)
def test_a_weight_that_is_not_a_floating_point_tensor_is_named(tmp_path, weight, said):
    bad = record()
    bad["state_dict"]["card_head.weight"] = weight
    message = refused(written(tmp_path, bad))
    assert "'card_head.weight'" in message and said in message


# --- values ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "dtype"),
    [
        (math.nan, torch.float32),
        (math.inf, torch.float32),
        (-math.inf, torch.float32),
        (1e300, torch.float64),
    ],
    ids=["nan", "inf", "-inf", "float64-past-float32"],
)
def test_nan_or_infinite_weights_are_refused_naming_the_tensor(tmp_path, value, dtype):
    bad = record()
    weights = bad["state_dict"]["trunk.2.weight"].to(dtype)
    weights[3, 4] = value
    bad["state_dict"]["trunk.2.weight"] = weights
    message = refused(written(tmp_path, bad))
    assert "tensor 'trunk.2.weight' holds 1 NaN or infinite values (of 16,384)" in message


def test_control_nan_weights_loaded_without_the_check_poison_the_policy():
    # What the check prevents: the old loader took these weights, and every logit came out NaN.
    bad = record()
    bad["state_dict"]["trunk.2.weight"][3, 4] = math.nan
    network = load_model(MODEL)
    network.load_state_dict(bad["state_dict"])
    logits = network.logits(torch.zeros(1, network.obs_size))
    assert torch.isnan(logits).any()


def test_every_loader_refuses_them(tmp_path):
    bad = record()
    bad["state_dict"]["value_head.weight"][0, 0] = math.nan
    model = written(tmp_path, bad)
    checkpoint = written(tmp_path, {"model": bad, "update": 3}, "checkpoint.pt")  # a training checkpoint
    for load in (
        lambda: load_model(checkpoint),
        lambda: PPOAgent(checkpoint=model),
        lambda: RLlibAgent(path=model),
        lambda: make_agent("ppo", checkpoint=str(checkpoint)),
    ):
        with pytest.raises(ValueError, match=re.escape("'value_head.weight' holds 1 NaN")):
            load()


# --- Stable-Baselines3 zips -----------------------------------------------------------------------


def sb3_zip(tmp_path: Path, policy_kwargs: dict, weights: dict) -> Path:
    """A MaskablePPO zip as ``model.save`` writes it, as far as the agent reads it (``data``, ``policy.pth``)."""
    from agents.integrations.sb3_policy import MaskableMultiInputActorCriticPolicy as Policy

    data = {
        "policy_class": {
            "__module__": Policy.__module__,
            "__init__": f"<function {Policy.__name__}.__init__>",
        },
        "policy_kwargs": policy_kwargs,
    }
    path = tmp_path / "model.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
        with archive.open("policy.pth", "w") as file:
            torch.save(weights, file)
    return path


@pytest.fixture
def sb3_weights():
    pytest.importorskip("sb3_contrib")
    from gymnasium import spaces

    from agents.integrations.sb3_policy import MaskableMultiInputActorCriticPolicy as Policy
    from cluedo_env.cluedo_v0 import observation_space

    config = core.GameConfig(num_players=3)
    policy = Policy(
        observation_space(config), spaces.Discrete(core.ActionLayout(config).num_actions), lambda _: 0.0
    )
    return config, {k: v.clone() for k, v in policy.state_dict().items()}


def test_an_sb3_zip_declaring_a_huge_net_arch_is_refused_before_allocation(tmp_path, sb3_weights):
    from agents.integrations.sb3_agent import load_policy

    config, weights = sb3_weights
    assert load_policy(sb3_zip(tmp_path, {}, weights), config) is not None  # the same zip, honest, loads
    path = sb3_zip(tmp_path, {"net_arch": [2_000_000, 2_000_000]}, weights)
    start = time.monotonic()
    with pytest.raises(ValueError, match=re.escape(f"more than the {MAX_PARAMETERS:,} a model may have")):
        load_policy(path, config)
    assert time.monotonic() - start < 2.0


@pytest.mark.parametrize(
    "net_arch",
    [
        [1] * 2_000,
        {"pi": [1] * 2_000},
        [{"vf": [1] * 65}],
        {"pi": [8], "qf": [8]},
        [64, "64"],
        [64, 0],
        [True],
        "64",
    ],
)
def test_an_sb3_zip_whose_net_arch_is_not_sb3s_is_refused_before_a_layer_is_built(
    tmp_path, sb3_weights, net_arch
):
    """A zip of under 1 KB listing 20,000 one-unit layers took 28 s and 676 MB to build them on the meta
    device, before MAX_PARAMETERS was checked."""
    from agents.integrations.sb3_agent import load_policy

    config, weights = sb3_weights
    start = time.monotonic()
    with pytest.raises(
        ValueError, match=r"model.zip: policy_kwargs' net_arch must be a list of at most 64 layer"
    ):
        load_policy(sb3_zip(tmp_path, {"net_arch": net_arch}, weights), config)
    assert time.monotonic() - start < 1.0


@pytest.mark.filterwarnings("ignore:As shared layers")  # SB3's word on its form before 1.8, [{"pi": ...}]
@pytest.mark.parametrize("net_arch", [[16, 8], {"pi": [16], "vf": [8, 4]}, [{"pi": [16]}], [], {}])
def test_an_sb3_zip_with_a_net_arch_of_sb3s_forms_loads(tmp_path, sb3_weights, net_arch):
    from gymnasium import spaces

    from agents.integrations.sb3_agent import load_policy
    from agents.integrations.sb3_policy import MaskableMultiInputActorCriticPolicy as Policy
    from cluedo_env.cluedo_v0 import observation_space

    config, _ = sb3_weights
    actions = spaces.Discrete(core.ActionLayout(config).num_actions)
    weights = Policy(observation_space(config), actions, lambda _: 0.0, net_arch=net_arch).state_dict()
    policy = load_policy(sb3_zip(tmp_path, {"net_arch": net_arch}, weights), config)
    assert all(torch.equal(policy.state_dict()[name], tensor) for name, tensor in weights.items())


def test_an_sb3_zip_with_nan_weights_is_refused_naming_the_tensor(tmp_path, sb3_weights):
    from agents.integrations.sb3_agent import load_policy

    config, weights = sb3_weights
    name = next(k for k in weights if k.endswith("action_net.weight"))
    weights[name][0, 0] = math.nan
    with pytest.raises(ValueError, match=re.escape(f"tensor '{name}' holds 1 NaN")):
        load_policy(sb3_zip(tmp_path, {}, weights), config)


# --- pickles that build more than they hold -------------------------------------------------------


def shared_tuples(depth: int) -> bytes:
    """Instructions leaving on the stack a tuple of two references to a tuple of two references ... to
    ``()``, ``depth`` deep (memo entry ``depth``): 5 bytes a level, ``2**(depth + 1) - 1`` tuples."""
    ops = [pickle.EMPTY_TUPLE, pickle.BINPUT, b"\x00"]
    for level in range(depth):
        ops += [pickle.BINGET, bytes([level]), pickle.TUPLE2, pickle.BINPUT, bytes([level + 1])]
    return b"".join(ops)


def shared_lists(depth: int) -> bytes:
    """A list of ten references to a list of ten references ... to ``[0]``: ``10**depth`` zeros once walked."""
    ops = [pickle.EMPTY_LIST, pickle.BINPUT, b"\x00", pickle.BININT1, b"\x00", pickle.APPEND]
    for level in range(depth):
        refs = (pickle.BINGET + bytes([level])) * 10
        ops += [pickle.EMPTY_LIST, pickle.BINPUT, bytes([level + 1]), pickle.MARK, refs, pickle.APPENDS]
    return b"".join(ops)


def colliding_number(k: int) -> bytes:
    """The integer ``1 + k (2**61 - 1)``, which hashes to 1: a dict or set of such is built in quadratic
    time (a million of them, 12 MB, hung torch.load)."""
    number = 1 + k * (2**61 - 1)
    encoded = number.to_bytes(number.bit_length() // 8 + 1, "little", signed=True)
    return pickle.LONG1 + bytes([len(encoded)]) + encoded


def colliding_keys(count: int) -> bytes:
    """``count`` colliding numbers as keys, each with the value None, set in the dict on the stack."""
    return pickle.MARK + b"".join(colliding_number(k) + pickle.NONE for k in range(count)) + pickle.SETITEMS


def called(function: str, arguments: bytes) -> bytes:
    """``function(*arguments)``: ``arguments`` leaves one tuple on the stack."""
    module, name = function.rsplit(".", 1)
    return pickle.GLOBAL + f"{module}\n{name}\n".encode() + arguments + pickle.REDUCE


def text(value: str) -> bytes:
    encoded = value.encode()
    return pickle.BINUNICODE + len(encoded).to_bytes(4, "little") + encoded


PROTO = pickle.PROTO + b"\x02"
REBUILD = "torch._utils._rebuild_tensor_v2"  # what torch.save calls for a tensor
CRAFTED = {
    # {key: None}, the key 40 deep: hashing it walked 2**41 tuples (the old loaders never returned)
    "hashed key": PROTO + pickle.EMPTY_DICT + shared_tuples(40) + pickle.NONE + pickle.SETITEM + pickle.STOP,
    # a small file of 10**9 zeros once walked (torch builds it at once; a walk of it never ends)
    "shared lists": PROTO + shared_lists(9) + pickle.STOP,
    # a call's arguments of 8.4 million tuples, each within the bounds, hashed twice (10,000 took 7 minutes)
    "arguments hashed twice": PROTO
    + shared_tuples(22)
    + (pickle.GLOBAL + f"{REBUILD.rsplit('.', 1)[0]}\n{REBUILD.rsplit('.', 1)[1]}\n".encode())
    + pickle.BINPUT
    + bytes([23])
    + pickle.BINGET
    + bytes([22])
    + pickle.REDUCE
    + (pickle.BINGET + bytes([23]) + pickle.BINGET + bytes([22]) + pickle.REDUCE)
    + pickle.STOP,
    # a dict of 10,001 number keys sharing one hash (no size bound saw a million of them)
    "colliding keys": PROTO + pickle.EMPTY_DICT + colliding_keys(10_001) + pickle.STOP,
    # the same keys given to set(), which torch's reader may call: 40,000 of them took 11 s, a million hours
    "a set built by a call": PROTO
    + called("builtins.set", pickle.EMPTY_LIST + pickle.MARK + b"".join(map(colliding_number, range(10))) + pickle.APPENDS + pickle.TUPLE1)
    + pickle.STOP,
    # bytearray(2**31 - 1): 2 GB of zeros from a 50-byte pickle
    "bytes by the gigabyte": PROTO
    + called("builtins.bytearray", pickle.BININT + (2**31 - 1).to_bytes(4, "little") + pickle.TUPLE1)
    + pickle.STOP,
    # _codecs.encode(text, "punycode"): quadratic in the text's distinct characters (91 KB: 109 s)
    "a codec of the file's choosing": PROTO
    + called("_codecs.encode", text("".join(map(chr, range(0x100, 0x140)))) + text("punycode") + pickle.TUPLE2)
    + pickle.STOP,
    # OrderedDict(items): its keys built by the call, where none counts them
    "OrderedDict with items": PROTO + called("collections.OrderedDict", pickle.EMPTY_LIST + pickle.TUPLE1)
    + pickle.STOP,
    # {(long text, n): None}: tuples sharing a hash, compared text by text at each collision (an hour)
    "a tuple key": PROTO + pickle.EMPTY_DICT + text("x" * 64) + pickle.BININT1 + b"\x01" + pickle.TUPLE2
    + pickle.NONE + pickle.SETITEM + pickle.STOP,
    # OrderedDict() given a list of (key, None) pairs as its state: dict.update builds them (995,000: hours)
    "pairs as an OrderedDict's state": PROTO + called("collections.OrderedDict", pickle.EMPTY_TUPLE)
    + pickle.EMPTY_LIST + pickle.MARK
    + b"".join(colliding_number(k) + pickle.NONE + pickle.TUPLE2 for k in range(10)) + pickle.APPENDS
    + pickle.BUILD + pickle.STOP,
    # a storage whose key is a number: torch keeps its storages by key (colliding keys: minutes)
    "a storage kept by a number": PROTO + pickle.MARK + text("storage") + pickle.GLOBAL + b"torch\nFloatStorage\n"
    + colliding_number(1) + text("cpu") + pickle.BININT1 + b"\x01" + pickle.TUPLE + pickle.BINPERSID + pickle.STOP,
}  # fmt: skip
SAID = {
    "hashed key": "a key that is neither a string nor a number",
    "shared lists": "a value reaches more than 10,000,000",
    "arguments hashed twice": "hashes while it is unpickled (dict keys, and what calls are given) "
    "reach more than 10,000,000 values in all",
    "colliding keys": "more than 10,000 keys that are not strings",
    "a set built by a call": "names builtins.set, which torch.save writes in no such file",
    "bytes by the gigabyte": "names builtins.bytearray, which torch.save writes in no such file",
    "a codec of the file's choosing": "names _codecs.encode, which torch.save writes in no such file",
    "OrderedDict with items": "calls collections.OrderedDict (at byte",
    "a tuple key": "a key that is neither a string nor a number",
    "pairs as an OrderedDict's state": "sets the state of a value (BUILD, at byte",
    "a storage kept by a number": "names a storage (at byte",
}


def torch_file(path: Path, pickled: bytes) -> Path:
    """A ``torch.save`` archive (a genuine one's members, as torch.save lays them out) whose ``data.pkl``
    is ``pickled``."""
    genuine = io.BytesIO()
    torch.save({"x": 1}, genuine)
    with zipfile.ZipFile(genuine) as source, zipfile.ZipFile(path, "w") as out:
        for name in source.namelist():
            out.writestr(name, pickled if name.endswith("/data.pkl") else source.read(name))
    return path


def as_sb3_zip(path: Path) -> Path:
    """A MaskablePPO zip whose ``policy.pth`` is the file at ``path``."""
    wrapped = path.with_suffix(".zip")
    with zipfile.ZipFile(wrapped, "w") as archive:
        archive.writestr("data", json.dumps({"policy_kwargs": {}}))
        archive.write(path, "policy.pth")
    return wrapped


def loader(kind: str, path: Path):
    """The loader of ``kind`` for the torch file ``path``, and the file its messages name."""
    if kind == "model":
        return lambda: load_model(path), str(path)
    if kind == "checkpoint":
        from experiments.learning.checkpoints import load_checkpoint

        return lambda: load_checkpoint(path), str(path)
    pytest.importorskip("sb3_contrib")
    from agents.integrations.sb3_agent import load_policy

    wrapped = as_sb3_zip(path)
    return lambda: load_policy(wrapped, core.GameConfig()), f"{wrapped}: its policy.pth"


@pytest.fixture
def torch_loads(monkeypatch):
    """The files ``torch.load`` is given (it still reads them)."""
    given, load = [], torch.load

    def counted(file, *args, **kwargs):
        given.append(file)
        return load(file, *args, **kwargs)

    monkeypatch.setattr(torch, "load", counted)
    return given


@pytest.mark.parametrize("kind", ["model", "checkpoint", "sb3"])
@pytest.mark.parametrize("crafted", list(CRAFTED))
def test_a_pickle_that_builds_more_than_it_holds_is_refused_before_torch_unpickles_it(
    tmp_path, torch_loads, kind, crafted
):
    """A file of under 1 KB hung every loader: torch hashed its dict key while unpickling, walking each
    shared reference (2**41 tuples); 10,000 hashes of a key within the bounds took 7 minutes. The pickle is
    now followed, not built, and measured first."""
    path = torch_file(tmp_path / "crafted.pt", CRAFTED[crafted])
    assert path.stat().st_size < (1_000 if crafted == "hashed key" else 160_000)
    load, named = loader(kind, path)
    with pytest.raises(ValueError) as error:
        load()
    message = str(error.value)
    assert message.startswith(f"{named}: ") and "nothing of it was unpickled" in message
    assert SAID[crafted] in message and "archive/data.pkl" in message
    assert torch_loads == []


def test_a_model_file_with_shared_references_within_the_bounds_loads(tmp_path):
    """What torch.save writes for a value referred to twice (a memo entry and its references) is read."""
    shared = ()
    for _ in range(12):  # 8,191 tuples once walked, 101 times in a list: 827,291 values
        shared = (shared, shared)
    genuine = record()
    path = written(tmp_path, {**genuine, "notes": {"7": [shared] * 101, 7: 1}, "again": genuine["network"]})
    network = load_model(path)
    assert all(torch.equal(network.state_dict()[k], v) for k, v in genuine["state_dict"].items())


def test_a_pickle_torch_would_not_read_or_not_the_one_torch_reads_is_refused(tmp_path, torch_loads):
    path = torch_file(tmp_path / "proto4.pt", pickle.dumps({"format": "x"}, protocol=4))
    with pytest.raises(
        ValueError,
        match=r"proto4\.pt: its pickle archive/data\.pkl uses FRAME \(at byte 2\), which torch's weights_only",
    ):
        load_model(path)
    cut = torch_file(tmp_path / "cut.pt", PROTO + pickle.EMPTY_DICT)
    with pytest.raises(ValueError, match=r"cut\.pt: its pickle archive/data\.pkl is not one torch can read"):
        load_model(cut)
    twice = tmp_path / "twice.pt"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(twice, "w") as out:
        for name in source.namelist():
            out.writestr(name, source.read(name))
        out.writestr("archive/DATA.PKL", pickle.dumps({}, protocol=2))  # torch's reader ignores the case
    with pytest.raises(ValueError, match=r"twice\.pt: it holds 2 members named data\.pkl"):
        load_model(twice)
    upper = tmp_path / "upper.pt"  # torch reads archive/DATA.PKL where there is no archive/data.pkl
    bomb = torch_file(tmp_path / "bomb.pt", CRAFTED["hashed key"])
    with zipfile.ZipFile(bomb) as source, zipfile.ZipFile(upper, "w") as out:
        for name in source.namelist():
            out.writestr(name.replace("data.pkl", "DATA.PKL"), source.read(name))
    with pytest.raises(
        ValueError, match=r"upper\.pt: its pickle archive/DATA\.PKL gives a dict a key that is neither"
    ):
        load_model(upper)
    assert torch_loads == []

"""The network in numpy is the torch network: same wiring, same outputs, same actions, whole games alike.

``agents.ppo.numpy_network`` lets the shipped learning agent play without torch. Each test here
holds it against ``agents.ppo.network.ActorCritic`` (the network it was trained as): the weight
shapes of the wiring against torch's ``state_dict`` for several rules and settings, the outputs
on the observations of real games, the most likely action and the probabilities under the real
masks, the sampling frequencies, and whole games of the learned agent against the same games of
``PPOAgent`` on the torch model. Its ``.npz`` files are read without pickle and checked before use.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.arena import play_batch  # noqa: E402
from agents.ppo.agent import PPOAgent  # noqa: E402
from agents.ppo.learned import LEARNED_CHECKPOINT, LearnedAgent  # noqa: E402
from agents.ppo.model import export_numpy_model, load_model  # noqa: E402
from agents.ppo.network import ActorCritic, NetworkSettings  # noqa: E402
from agents.ppo.numpy_network import NumpyNetwork, read_numpy_model  # noqa: E402
from agents.ppo.wiring import Wiring  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from cluedo_env import core  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_MODELS = ("cluedo_ppo_4p.pt", "cluedo_ppo_imitation_4p.pt", "cluedo_learned_4p.pt")


@pytest.fixture(autouse=True)
def one_thread():
    torch.set_num_threads(1)


def numpy_twin(network: ActorCritic) -> NumpyNetwork:
    weights = {name: tensor.detach().numpy() for name, tensor in network.state_dict().items()}
    return NumpyNetwork(network.game, network.settings, weights)


@pytest.mark.parametrize(
    "game, settings",
    [
        (core.GameConfig(num_players=4), NetworkSettings()),
        (core.GameConfig(num_players=3), NetworkSettings(hidden=[16, 8, 4], activation="tanh")),
        (core.GameConfig(num_players=2, duel=True), NetworkSettings(belief_features=True, card_hidden=5)),
        (core.GameConfig(num_players=4, movement="squares"), NetworkSettings(hidden=[32])),
    ],
    ids=["classic", "three-tanh", "duel-beliefs", "squares"],
)
def test_the_wiring_names_every_weight_of_the_torch_network_with_its_shape(game, settings):
    network = ActorCritic(game, settings)
    assert Wiring(game, settings).shapes == {k: tuple(v.shape) for k, v in network.state_dict().items()}
    obs = torch.rand(7, network.obs_size)
    with torch.no_grad():
        parts, value = network(obs)
    top, suggest, accuse, numpy_value = numpy_twin(network).forward(obs.numpy())
    np.testing.assert_allclose(top, parts.top.numpy(), atol=1e-4)
    np.testing.assert_allclose(numpy_value, value.numpy(), atol=1e-4)
    for mine, theirs in zip([*suggest, *accuse], [*parts.suggest, *parts.accuse], strict=True):
        np.testing.assert_allclose(mine, theirs.numpy(), atol=1e-4)


def learner_decisions(checkpoint: str, games: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """The observations and masks the torch agent saw at each of its decisions in real games."""
    agent = PPOAgent(checkpoint=checkpoint, deterministic=True)
    seen: list[tuple[np.ndarray, np.ndarray]] = []
    act = agent.act

    def recording_act(state, games_now, mask):
        seen.append((agent.observation(state, np.asarray(games_now)), mask.copy()))
        return act(state, games_now, mask)

    agent.act = recording_act
    opponents = [make_agent(name, seed=k) for k, name in enumerate(("sat", "random", "notepad"), start=1)]
    play_batch(core.GameConfig(num_players=4), [agent, *opponents], np.arange(games))
    return np.concatenate([o for o, _ in seen]), np.concatenate([m for _, m in seen])


@pytest.mark.parametrize("name", SHIPPED_MODELS)
def test_on_the_observations_of_real_games_both_choose_the_same_actions(name):
    network = load_model(name)
    twin = numpy_twin(network)
    obs, mask = learner_decisions(name)
    assert len(obs) > 100
    with torch.no_grad():
        dist, _value = network.policy(torch.from_numpy(obs), torch.from_numpy(mask))
    assert np.array_equal(twin.mode(obs, mask), dist.mode().numpy())
    probs = twin.probabilities(obs, mask)
    np.testing.assert_allclose(probs, dist.probs.numpy(), atol=1e-5)
    assert (probs[~mask] == 0).all() and np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)


def test_samples_follow_the_policys_probabilities():
    network = load_model("cluedo_ppo_4p.pt")  # sampled in training: a spread-out policy
    twin = numpy_twin(network)
    obs, mask = learner_decisions("cluedo_ppo_4p.pt", games=2)
    row = int(np.argmax((twin.probabilities(obs, mask) > 0.02).sum(axis=1)))  # the most spread-out decision
    n = 40_000
    draws = twin.sample(
        np.repeat(obs[row : row + 1], n, 0), np.repeat(mask[row : row + 1], n, 0), np.random.default_rng(1)
    )
    assert mask[row, draws].all()  # never an illegal action
    frequency = np.bincount(draws, minlength=mask.shape[1]) / n
    expected = twin.probabilities(obs[row : row + 1], mask[row : row + 1])[0]
    assert np.abs(frequency - expected).max() < 4 * np.sqrt(expected.max() / n)  # about 4 standard errors


def test_the_shipped_numpy_model_is_the_export_of_the_torch_model():
    shipped, torch_model = read_numpy_model(LEARNED_CHECKPOINT), load_model("cluedo_learned_4p.pt")
    assert shipped.game == torch_model.game and shipped.settings == torch_model.settings
    weights = torch_model.state_dict()
    assert shipped.weights.keys() == weights.keys()
    for name, tensor in weights.items():
        assert np.array_equal(shipped.weights[name], tensor.numpy()), name


def test_the_learned_agent_plays_the_same_games_as_the_torch_agent_on_its_model():
    config, seeds = core.GameConfig(num_players=4), np.arange(12)

    def play(learner):
        opponents = [make_agent(name, seed=k) for k, name in enumerate(("sat", "belief", "notepad"), start=1)]
        return play_batch(config, [learner, *opponents], seeds, rotation=seeds % 4)

    numpy_games = play(LearnedAgent())
    torch_games = play(PPOAgent(checkpoint="cluedo_learned_4p.pt", deterministic=True))
    assert (numpy_games.winner == torch_games.winner).all()
    assert (numpy_games.turns == torch_games.turns).all()
    assert (numpy_games.decisions == torch_games.decisions).all()


def test_sampling_is_repeatable_under_the_seed():
    config = core.GameConfig(num_players=4)

    def play(seed):
        agents = [
            LearnedAgent(seed=seed, deterministic=False),
            *(make_agent("random", seed=k) for k in (1, 2, 3)),
        ]
        return play_batch(config, agents, np.arange(4))

    first, again, other = play(5), play(5), play(6)
    assert (first.turns == again.turns).all() and (first.winner == again.winner).all()
    assert (first.turns != other.turns).any()


def test_export_then_read_gives_the_same_network(tmp_path):
    network = ActorCritic(core.GameConfig(num_players=3), NetworkSettings(hidden=[8], belief_features=True))
    twin = read_numpy_model(export_numpy_model(tmp_path / "model.npz", network))
    obs = np.random.default_rng(0).random((3, network.obs_size)).astype(np.float32)
    with torch.no_grad():
        parts, _value = network(torch.from_numpy(obs))
    np.testing.assert_allclose(twin.forward(obs)[0], parts.top.numpy(), atol=1e-4)


def hostile(tmp_path: Path, change) -> Path:
    """The shipped numpy model with one thing changed by ``change(record, arrays)``."""
    with np.load(LEARNED_CHECKPOINT, allow_pickle=False) as stored:
        arrays = {name: stored[name] for name in stored.files}
    record = json.loads(str(arrays.pop("record")))
    change(record, arrays)
    path = tmp_path / "hostile.npz"
    np.savez(path, record=np.array(json.dumps(record)), **arrays)
    return path


def _nan(record, arrays):
    arrays["trunk.0.weight"] = arrays["trunk.0.weight"].copy()
    arrays["trunk.0.weight"][3, 4] = np.nan


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda r, a: r["network"].update(hidden=[65_536] * 3), "more than the 50,000,000 a model may have"),
        (lambda r, a: r["network"].update(activation="gelu"), "network.activation must be one of"),
        (
            lambda r, a: r.update(format="something else"),
            "not a model record of format 'cluedo-ppo-numpy-v1'",
        ),
        (lambda r, a: r["game"].update(num_players=9), "its game:"),
        (
            lambda r, a: a.update({"card_head.bias": np.zeros(6, np.float32)}),
            "'card_head.bias' has shape (6,)",
        ),
        (lambda r, a: a.pop("value_head.bias"), "missing weights ['value_head.bias']"),
        (lambda r, a: a.update({"extra": np.zeros(1)}), "unexpected ['extra']"),
        (lambda r, a: a.update({"card_head.bias": np.zeros(5, np.int64)}), "is int64, not floating point"),
        (_nan, "'trunk.0.weight' holds 1 NaN or infinite values"),
    ],
    ids=["too-big", "activation", "format", "game", "shape", "missing", "unexpected", "integers", "nan"],
)
def test_a_hostile_numpy_model_is_refused_naming_what_is_wrong(tmp_path, change, message):
    path = hostile(tmp_path, change)
    with pytest.raises(ValueError, match="^" + str(path)) as error:
        read_numpy_model(path)
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [("[" * 100_000 + "]" * 100_000, "no readable 'record'"), ("[1, 2]", "not a model record of format")],
    ids=["nested", "list"],
)
def test_a_numpy_model_whose_record_is_no_object_of_settings_is_refused_in_one_message(
    tmp_path, text, message
):
    """A record nested 100,000 deep stopped a tournament with a RecursionError."""
    path = tmp_path / "record.npz"
    np.savez(path, record=np.array(text))
    with pytest.raises(ValueError, match=f"^{re.escape(str(path))}: {message}"):
        read_numpy_model(path)


def test_a_numpy_model_holding_pickled_objects_is_refused_unread(tmp_path):
    class Boom:
        def __reduce__(self):
            return (print, ("unpickled!",))

    path = hostile(tmp_path, lambda r, a: a.update({"card_head.bias": np.array([Boom()], dtype=object)}))
    with pytest.raises(ValueError, match="not a numpy model file"):
        read_numpy_model(path)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a numpy model file"):
        read_numpy_model(tmp_path / "junk.npz")


@pytest.mark.parametrize(("arrays", "declared"), [(1, "400,000,000,000"), (8, "3,200,000,000")])
def test_a_small_file_declaring_huge_arrays_is_refused_before_they_are_allocated(tmp_path, arrays, declared):
    """An array's header gives its shape: 300 bytes could ask for 373 GiB (an out-of-memory crash), and
    arrays each below the largest network's size could together (2.4 GB from a 2 MB file)."""
    import io
    import zipfile

    shape, dtype = ((10**11,), "<f4") if arrays == 1 else ((5 * 10**7,), "<f8")
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": dtype, "fortran_order": False, "shape": shape})
    path = tmp_path / "huge.npz"
    with zipfile.ZipFile(path, "w") as archive:
        for k in range(arrays):
            archive.writestr(f"trunk.{k}.weight.npy", header.getvalue() + b"\0" * 16)
    assert path.stat().st_size < 4000
    with pytest.raises(ValueError, match=rf"not a numpy model file .*arrays declare {declared} bytes, more"):
        read_numpy_model(path)


def test_a_member_hidden_from_the_size_check_or_badly_compressed_is_refused(tmp_path):
    """np.load reads a member ``w`` for ``w.npy`` (it escaped the declared sizes), and a broken deflate
    stream raised zlib's error through a tournament."""
    import io
    import zipfile

    array = io.BytesIO()
    np.save(array, np.zeros(4, np.float32))
    hidden = tmp_path / "hidden.npz"
    with zipfile.ZipFile(hidden, "w") as archive:
        archive.writestr("trunk.0.weight", array.getvalue())
        archive.writestr("trunk.0.weight.npy", array.getvalue())
    with pytest.raises(
        ValueError, match=r"not a numpy model file .*members must be .npy arrays, each name once"
    ):
        read_numpy_model(hidden)
    broken = tmp_path / "broken.npz"
    with zipfile.ZipFile(broken, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("trunk.0.weight.npy", array.getvalue() * 50)
    data = bytearray(broken.read_bytes())
    data[60:90] = bytes(30)  # inside the compressed stream
    broken.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="not a numpy model file"):
        read_numpy_model(broken)
    encrypted = tmp_path / "encrypted.npz"  # a member marked encrypted: zipfile's RuntimeError
    with zipfile.ZipFile(encrypted, "w") as archive:
        archive.writestr("record.npy", array.getvalue())
    data = bytearray(encrypted.read_bytes())
    for signature, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # local and central headers' flags
        at = data.find(signature) + flags
        data[at] |= 1
    encrypted.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"not a numpy model file .*encrypted"):
        read_numpy_model(encrypted)


def test_the_learned_agent_refuses_a_torch_model_and_names_the_ppo_agent():
    with pytest.raises(ValueError, match="play it with the ppo agent"):
        LearnedAgent(checkpoint="cluedo_ppo_imitation_4p.pt")


def test_the_learned_agent_plays_in_a_process_without_torch():
    script = (
        "import sys; sys.modules['torch'] = None\n"  # import torch now raises ImportError
        "import numpy as np\n"
        "from agents.arena import play_batch\n"
        "from agents.registry import make_agent\n"
        "from cluedo_env import core\n"
        "agents = [make_agent('learned'), *(make_agent('random', seed=k) for k in (1, 2, 3))]\n"
        "result = play_batch(core.GameConfig(num_players=4), agents, np.arange(2))\n"
        "print('decisions', int(result.decisions.sum()), 'torch' in sys.modules and sys.modules['torch'] is not None)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    words = done.stdout.split()
    assert words[0] == "decisions" and int(words[1]) > 0 and words[2] == "False"

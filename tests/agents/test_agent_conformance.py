"""Every registered agent passes ``agents.testing.check_agent``, and the check catches what it claims to."""

from __future__ import annotations

import contextlib
import warnings
from pathlib import Path

import numpy as np
import pytest

from agents.base import Agent
from agents.baselines.random_agent import RandomAgent
from agents.registry import AGENTS
from agents.testing import AgentCheckError, check_agent
from cluedo_env import core

# Agents that need something outside the test. The model-playing agents get a small untrained
# model written here instead (``model_options``).
NEEDS = {"human": "a person at the terminal"}
MODEL_GAME = core.GameConfig(num_players=3, max_turns=40)  # the game of the models written here


def model_options(name: str, folder: Path) -> dict:
    """``path=`` of an untrained model of ``MODEL_GAME`` for the ``sb3`` and ``rllib`` agents, written
    into ``folder`` as their training writes it (skipped without the libraries that read it)."""
    if name == "sb3":
        pytest.importorskip("sb3_contrib")
        from test_sb3 import SMALL_GAME, saved_model

        assert core.GameConfig(**SMALL_GAME) == MODEL_GAME
        return {"path": str(saved_model(folder))}
    if name == "rllib":  # train_rllib's export: the project's model file (RLlib is not needed to play it)
        pytest.importorskip("torch")
        from agents.ppo.model import save_model
        from agents.ppo.network import ActorCritic, NetworkSettings

        settings = NetworkSettings(hidden=[16], card_hidden=8, card_embedding=2)
        save_model(folder / "model.pt", ActorCritic(MODEL_GAME, settings))
        return {"path": str(folder)}  # a run folder
    return {}


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_every_registered_agent_conforms(name, tmp_path):
    if name in NEEDS:
        pytest.skip(f"{name} needs {NEEDS[name]}")
    config, options = None, {}
    if name in ("ppo", "sb3", "rllib"):
        torch = pytest.importorskip("torch")
        torch.set_num_threads(1)  # the program sets torch's threads, not the agent
    if name in ("sb3", "rllib"):
        config, options = MODEL_GAME, model_options(name, tmp_path)
    with contextlib.ExitStack() as stack:
        if name == "llm":
            from experiments.scripted_chat_server import ScriptedChatServer

            server = stack.enter_context(ScriptedChatServer(["valid"]))  # replies by request alone
            options = {"base_url": server.url, "backoff_s": 0.0}
        check_agent(name, config, options=options)


def test_a_users_agent_by_import_path_and_as_an_instance():
    check_agent(
        "agents.baselines.random_agent:RandomAgent",
        core.GameConfig(num_players=3),
        options={"accuse": "rarely"},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_agent(RandomAgent(seed=3), core.GameConfig(board="none", num_players=5))


class Illegal(RandomAgent):
    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.argmin(mask, axis=1)


class Unseeded(RandomAgent):
    """Draws from a generator that its seed does not reset."""

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        super().reset(config, seats, seed)
        self.noise = np.random.default_rng()

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.array([self.noise.choice(np.flatnonzero(row)) for row in mask])


class Forgetful(RandomAgent):
    """Counts its decisions but leaves the count out of state_dict."""

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        super().reset(config, seats, seed)
        self.count = 0

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        self.count += 1  # its first decisions take the first legal action, the later ones the last
        return np.array([np.flatnonzero(row)[0 if self.count < 3 else -1] for row in mask])


class NotPlain(RandomAgent):
    def state_dict(self) -> dict:
        return {**super().state_dict(), "config": self.config}


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        (Illegal(), "legal actions: player Illegal"),
        (
            Unseeded(),
            r"determinism: two agents Unseeded\(seed=0\) seeded 0 played the same games differently",
        ),
        (Forgetful(), r"round trips: after load_state_dict\(state_dict\(\)\)"),
        (NotPlain(), r"round trips: NotPlain\(seed=0\)\.state_dict\(\)\['config'\] is a GameConfig"),
    ],
)
def test_the_check_catches_a_broken_agent(agent, message):
    with pytest.raises(AgentCheckError, match=message):
        check_agent(agent, core.GameConfig(num_players=3))


class TurnNotes(RandomAgent):
    """Counts, per game, the turns it has seen and leaves the count out of state_dict: a game's notes lost."""

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        super().reset(config, seats, seed)
        self.turns = np.zeros(len(seats), dtype=np.int64)

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        super().reset_games(games, seats)
        self.turns[games] = 0

    def observe(self, state: core.State, events: np.ndarray) -> None:
        super().observe(state, events)
        self.turns += (events[:, :, 0] == core.events.TURN).sum(axis=1)

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        # past a game's first round it takes the last legal action, before it the first
        return np.array([np.flatnonzero(row)[0 if self.turns[g] <= 3 else -1] for g, row in zip(games, mask)])


def test_the_round_trips_come_with_a_games_history_behind_them():
    """The round trips are checked at the agent's 5th decision in one game, not the batch's 5th step in
    which it decides somewhere (then every game of 4 was still in its first round, and notes of a game
    lost by state_dict went unseen)."""
    with pytest.raises(AgentCheckError, match=r"round trips: after load_state_dict\(state_dict\(\)\)"):
        check_agent(TurnNotes(seed=0), core.GameConfig(num_players=4), seed=0)


def test_the_round_trips_copies_act_only_where_the_agent_decides():
    """They were asked to act in no game at the steps where the agent decided nowhere (a runner never asks
    that), and the notepad agent, which cannot, failed the check in the duel."""
    check_agent("notepad", core.GameConfig.preset("de_2023_duel"), seed=2)


@pytest.mark.parametrize(("num_players", "seed"), [(4, 3), (6, 0)])
def test_an_agent_out_of_a_game_early_is_checked_in_its_other_games(num_players, seed):
    """Accusing at random, the agent is usually out on its first turn, and in these seeds' first game it
    then made only forced decisions: the round trips wait for its first choice in any game of the batch,
    dealt again as they end (a batch of that one game failed it: "no choice to make from its decision 5 on")."""
    config = core.GameConfig(num_players=num_players)
    check_agent("random", config, options={"accuse": "uniform"}, seed=seed)


def test_a_check_too_short_to_reach_a_choice_says_the_round_trips_were_not_checked():
    with pytest.raises(
        AgentCheckError,
        match=r"^round trips not checked: in 4 decisions of the batch, .*, RandomAgent\(seed=0\) made .* give more steps$",
    ):
        check_agent(RandomAgent(), core.GameConfig(num_players=3), steps=4)


class BadAtLastSeat(RandomAgent):
    """Raises whenever it decides at seat 5, the last of a 6-player table."""

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if (self.seats[games] == 5).any():
            raise RuntimeError("seat 5 not supported")
        return super().act(state, games, mask)


def test_the_agent_sits_at_every_seat():
    """By default the batch held 4 games, the agent at seat ``b % num_players`` in game ``b``: at 6
    players it never sat at seats 4 and 5, and an agent that fails there passed."""
    with pytest.raises(
        AgentCheckError, match=r"legal actions: BadAtLastSeat\(seed=0\) raised in act: .*seat 5"
    ):
        check_agent(BadAtLastSeat(seed=0), core.GameConfig(num_players=6))
    with pytest.raises(ValueError, match=r"games must be an int >= num_players \(6\), .* got 4"):
        check_agent(RandomAgent(seed=0), core.GameConfig(num_players=6), games=4)


def test_the_check_names_what_it_is_given():
    with pytest.raises(TypeError, match=r"agents\.base\.Agent or an agent name"):
        check_agent(object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="agent must be one of"):
        check_agent("no_such_agent")
    assert issubclass(AgentCheckError, AssertionError) and Agent.close(RandomAgent()) is None


def accuse_envelope(
    state: core.State, games: np.ndarray, mask: np.ndarray, dealt: list[set[int]]
) -> np.ndarray:
    """The accusation of the three cards nobody was dealt in each game where it is legal, else the first legal action."""
    cards = state.config.cards
    S, W = cards.num_suspects, cards.num_weapons
    layout = core.ActionLayout(state.config)
    actions = np.argmax(mask, axis=1)
    for i, hands in enumerate(dealt):
        envelope = sorted(set(range(cards.num_cards)) - hands)
        if len(envelope) == 3:
            accusation = layout.encode("accuse", envelope[0], envelope[1] - S, envelope[2] - S - W)
            actions[i] = accusation if mask[i, accusation] else actions[i]
    return actions


def dealt_cards(rows: np.ndarray) -> set[int]:
    return set(rows[rows[:, core.events.KIND] == core.events.DEAL][:, core.events.CARD].tolist())


class SeedPeeker(RandomAgent):
    """Deals its games again from ``state.seed`` and accuses the envelope (the reviewer's PublicPeeker)."""

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        again = core.init(state.config, state.seed[games])
        return accuse_envelope(
            state, games, mask, [dealt_cards(again.step_events(i)) for i in range(len(games))]
        )


class EventsPeeker(RandomAgent):
    """Reads every hand in ``state.events`` at the deal (not in its own views) and accuses the envelope."""

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        super().reset(config, seats, seed)
        self.dealt = [set() for _ in seats]

    def observe(self, state: core.State, events: np.ndarray) -> None:
        for game in range(state.batch_size):
            rows = state.step_events(game)
            if (rows[:, core.events.KIND] == core.events.DEAL).any():
                self.dealt[game] = dealt_cards(rows)

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return accuse_envelope(state, games, mask, [self.dealt[g] for g in games])


@pytest.mark.parametrize("agent", [SeedPeeker(), EventsPeeker()], ids=["seed", "events"])
def test_an_agent_that_reads_the_raw_events_or_the_seed_fails_the_twin_run(agent):
    """Both read only fields without a leading underscore, and win every game against SAT agents: the
    twin run (state.events its own view, state.seed other seeds) makes them choose otherwise."""
    name = type(agent).__name__
    with pytest.raises(
        AgentCheckError, match=rf"^hidden information: {name}\(seed=0\) reads what it may not see"
    ):
        check_agent(agent, core.GameConfig(num_players=3))


class Teleporter(RandomAgent):
    """Puts its pawn into room 0 at every decision, in the state it is given."""

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = super().act(state, games, mask)
        state.location[games, self.seats[games]] = 0
        return actions


class TurnChanger(RandomAgent):
    """Hands the decision on to the next player, in the state it is given."""

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = super().act(state, games, mask)
        state.current_player[games] = (state.current_player[games] + 1) % state.config.num_players
        return actions


class RewardWriter(RandomAgent):
    def observe(self, state: core.State, events: np.ndarray) -> None:
        state.rewards[:] += 1.0


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        (
            Teleporter(),
            r"^inputs: Teleporter\(seed=0\) changed state\.location in act; agents .* never write it$",
        ),
        (TurnChanger(), r"^inputs: TurnChanger\(seed=0\) changed state\.current_player in act"),
        (RewardWriter(), r"^inputs: RewardWriter\(seed=0\) changed state\.rewards in observe"),
    ],
)
def test_an_agent_that_writes_the_state_it_is_given_fails_naming_the_field(agent, message):
    with pytest.raises(AgentCheckError, match=message):
        check_agent(agent, core.GameConfig(num_players=3))


class SeenNotes(Agent):
    """Counts the events it saw in each game and lets the count pick its action; leaves it out of state_dict."""

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        super().reset(config, seats, seed)
        self.seen = np.zeros(len(seats), dtype=np.int64)

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        super().reset_games(games, seats)
        self.seen[games] = 0

    def observe(self, state: core.State, events: np.ndarray) -> None:
        self.seen += (events[:, :, core.events.KIND] >= 0).sum(axis=1)

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = np.empty(len(games), dtype=np.int64)
        for i, game in enumerate(games):
            legal = np.flatnonzero(mask[i])
            actions[i] = legal[(self.rng.integers(len(legal)) + self.seen[game]) % len(legal)]
        return actions


@pytest.mark.parametrize("seed", [0, 1, 2, 7, 9, 18])
def test_notes_left_out_of_state_dict_show_in_the_decisions_after_the_round_trip(seed):
    """The copies play beside the agent for the rest of the games under way, twice: in these seeds the
    one decision at the round trip came out the same (the notes lost changed nothing there)."""
    with pytest.raises(
        AgentCheckError, match=r"^round trips: after load_state_dict\(state_dict\(\)\), SeenNotes"
    ):
        check_agent(SeenNotes(seed=seed), seed=seed)


class FloatActions(RandomAgent):
    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return super().act(state, games, mask) + 0.5


class BoolActions(RandomAgent):
    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return mask.any(axis=1)


class OneAction(RandomAgent):
    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return super().act(state, games, mask)[:1]


class Column(RandomAgent):
    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return super().act(state, games, mask)[:, None]


class Raiser(RandomAgent):
    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        raise RuntimeError("my agent broke")


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        (
            FloatActions(),
            r"^legal actions: player FloatActions\(seed=0\) returned float64 actions \[.*\], not integers",
        ),
        (
            BoolActions(),
            r"^legal actions: player BoolActions\(seed=0\) returned bool actions \[True.*, not integers",
        ),
        (
            OneAction(),
            r"^legal actions: player OneAction\(seed=0\) returned array\(\[\d+\]\) \(shape \(1,\)\) for games \[\d+, ",
        ),
        (
            Column(),
            r"^legal actions: player Column\(seed=0\) returned array\(\[\[\d+\]\]\) \(shape \(1, 1\)\)",
        ),
        (Raiser(), r"^legal actions: Raiser\(seed=0\) raised in act: RuntimeError: my agent broke$"),
    ],
)
def test_each_fault_is_named_with_the_agent(agent, message):
    """Floats were cast to int and played, a count or shape off was called an illegal action or blamed on
    state_dict, an exception came out raw."""
    with pytest.raises(AgentCheckError, match=message) as failed:
        check_agent(agent, core.GameConfig(num_players=3))
    assert "accepted: one integer per game" in str(failed.value) or isinstance(agent, Raiser)

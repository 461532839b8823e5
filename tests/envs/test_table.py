"""The table of players (``cluedo_env.table``): the one driver of fixed players, and the layers it keeps apart."""

from __future__ import annotations

import numpy as np
import pytest

from agents.arena import play_batch
from agents.baselines.random_agent import RandomAgent
from cluedo_env import core
from cluedo_env.gym_env import CluedoSingleAgentEnv, CluedoVectorEnv
from cluedo_env.table import IllegalAction, LearnerTable, Player, PlayerCall, Table, make_player


class FirstLegal:
    """A player that is no ``agents.base.Agent``: only the ``Player`` methods."""

    observes = False

    def __init__(self) -> None:
        self.resets: list[np.ndarray] = []
        self.seats = np.zeros(0, dtype=np.int64)

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        self.seats = np.asarray(seats).copy()

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        self.resets.append(np.asarray(games).copy())
        self.seats[games] = seats

    def observe(self, state: core.State, events: np.ndarray) -> None:
        raise AssertionError("a player that does not observe is shown no events")

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.argmax(mask, axis=1)


class Illegal(FirstLegal):
    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.argmin(mask, axis=1)


class IllegalAgent(RandomAgent):
    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.argmin(mask, axis=1)


def test_agents_are_players_and_names_resolve_through_the_registry():
    agent = make_player("random", seed=4, accuse="rarely")
    assert isinstance(agent, RandomAgent) and isinstance(agent, Player)
    assert (agent.seed, agent.accuse) == (4, "rarely")
    assert isinstance(FirstLegal(), Player)
    assert not isinstance(object(), Player)
    with pytest.raises(ValueError, match="agent must be one of"):
        make_player("no-such-agent")


def test_a_player_that_is_not_an_agent_plays_the_gym_envs():
    opponents = [FirstLegal(), FirstLegal(), FirstLegal()]
    environment = CluedoVectorEnv(num_envs=3, num_players=4, opponents=opponents, max_turns=30)
    environment.reset(seed=1)
    for _ in range(60):
        mask = environment.action_masks()
        environment.step(np.argmax(mask, axis=1))
    assert all(len(player.resets) for player in opponents)  # redealt games were forgotten game by game
    single = CluedoSingleAgentEnv(num_players=3, opponents=[FirstLegal(), FirstLegal()])
    single.reset(seed=0)


def test_an_illegal_action_names_the_player_and_the_games():
    environment = CluedoSingleAgentEnv(num_players=3, opponents=[Illegal(), Illegal()])
    with pytest.raises(ValueError, match=r"player <.*Illegal.*> chose an illegal action in games \[0\]"):
        observation, _ = environment.reset(seed=0)
        for _ in range(20):  # an opponent decides within a round
            observation, *_ = environment.step(int(np.argmax(observation["action_mask"])))
    with pytest.raises(ValueError, match="chose an illegal action"):
        play_batch(
            core.GameConfig(num_players=3), [IllegalAgent(), RandomAgent(), RandomAgent()], seeds=[1, 2]
        )


class Returns(FirstLegal):
    """Returns what ``answer(first legal actions)`` makes of its actions."""

    def __init__(self, answer) -> None:
        super().__init__()
        self.answer = answer

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.answer(np.argmax(mask, axis=1))


def table_of(player: FirstLegal, games: int = 1) -> tuple[core.State, Table]:
    """``player`` at seat 0 of ``games`` games (dealt from seeds 7, 8, ...), ``FirstLegal`` at the others."""
    state = core.init(core.GameConfig(num_players=3), 7 + np.arange(games))
    seats = np.array([[0] * games, [1] * games, [2] * games])
    return state, Table([player, FirstLegal(), FirstLegal()], seats, num_players=3)


def play_until_seat_0_decides(state: core.State, table: Table) -> np.ndarray:
    """Step with the other players until the player at seat 0 decides somewhere; its games."""
    while not (state.current_player == 0).any():
        table.play(state, np.zeros(state.batch_size, dtype=np.int64))
    return np.flatnonzero(state.current_player == 0)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (lambda first: first + 0.0, r"returned float64 actions \[\d+\.0\], not integers, for games \[\d\]"),
        (
            lambda first: first.astype(bool),
            r"returned bool actions \[(True|False)\], not integers, for games \[0\]",
        ),
        (
            lambda first: np.append(first, first),
            r"returned array\(\[\d+, \d+\]\) \(shape \(2,\)\) for games \[\d\]",
        ),
        (lambda first: first[:, None], r"returned array\(\[\[\d+\]\]\) \(shape \(1, 1\)\) for games \[\d\]"),
    ],
    ids=["floats", "bools", "two for one game", "a column"],
)
def test_actions_that_are_not_one_integer_per_game_are_refused_naming_the_player(answer, message):
    """Floats were cast to int and played (66.5 as 66), a column was flattened and played; a count off was
    called an illegal action."""
    player = Returns(answer)
    state, table = table_of(player)
    games = play_until_seat_0_decides(state, table)
    mask = core.legal_action_mask(state)
    with pytest.raises(
        IllegalAction,
        match=rf"^player <.*Returns.*> {message} \(deal seeds \[7\]\); "
        r"accepted: one integer per game, 1 in all \(a list or a 1-D integer array\)$",
    ) as refused:
        table.act(state, games, mask, np.zeros(1, dtype=np.int64))
    call = refused.value.player_call
    assert isinstance(call, PlayerCall) and (call.player, call.call, call.games.tolist()) == (0, "act", [0])


def test_an_illegal_action_names_the_deal_seed_and_an_error_of_a_player_says_which_call_and_games():
    state, table = table_of(Illegal())
    games = play_until_seat_0_decides(state, table)
    with pytest.raises(
        IllegalAction,
        match=rf"chose an illegal action in games \[{games[0]}\] \(deal seeds \[{7 + games[0]}\]\)",
    ):
        table.act(state, games, core.legal_action_mask(state), np.zeros(1, dtype=np.int64))

    class Broken(FirstLegal):
        observes = True

        def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
            raise RuntimeError("my agent broke")

        def observe(self, state: core.State, events: np.ndarray) -> None:
            raise KeyError("notes")

    state, table = table_of(Broken(), games=2)
    with pytest.raises(KeyError) as failed:
        table.tell(state, state.events)
    call = failed.value.player_call
    assert (call.player, call.call, call.games.tolist()) == (0, "observe", [0, 1])
    Broken.observe = FirstLegal.reset  # (any method that takes two arguments and returns None)
    games = play_until_seat_0_decides(state, table)
    with pytest.raises(RuntimeError, match=r"^my agent broke$") as failed:
        table.act(state, games, core.legal_action_mask(state), np.zeros(2, dtype=np.int64))
    call = failed.value.player_call
    assert (call.player, call.call, call.games.tolist()) == (0, "act", games.tolist())


def test_table_seats_and_asks_only_the_player_whose_turn_it_is():
    config = core.GameConfig(num_players=3)
    state = core.init(config, np.array([5, 6]))
    players = [FirstLegal(), FirstLegal()]
    table = Table(players, np.array([[0, -1], [1, 0]]), num_players=3)  # player 0 sits out game 1
    assert table.player_at.tolist() == [[0, 1, -1], [1, -1, -1]]
    mask = core.legal_action_mask(state)
    actions = np.full(2, -7, dtype=np.int64)
    deciding = np.flatnonzero(table.player_at[np.arange(2), state.current_player] >= 0)
    table.act(state, deciding, mask, actions)
    assert (actions[deciding] == np.argmax(mask[deciding], axis=1)).all()
    players[0].reset(config, np.array([0, 0]))
    players[1].reset(config, np.array([1, 0]))
    table.seat(np.array([1]), np.array([[2], [1]]))
    table.reset_games(np.array([1]))
    assert [r.tolist() for r in players[0].resets] == [[1]] and [r.tolist() for r in players[1].resets] == [
        [1]
    ]
    with pytest.raises(ValueError, match="share a seat"):
        Table(players, np.array([[0], [0]]), num_players=3)
    with pytest.raises(ValueError, match="its own player object"):
        Table([players[0], players[0]], np.array([[0], [1]]), num_players=3)


def test_play_asks_the_table_only_where_it_holds_the_deciding_seat_and_keeps_the_learners_actions():
    config = core.GameConfig(num_players=3, board="none")
    state = core.init(config, np.arange(4))
    deciding = state.current_player.astype(np.int64)
    # player 0 sits at the deciding seat of games 0 and 1; games 2 and 3 wait for a learner there
    seats = np.array([[deciding[0], deciding[1], (deciding[2] + 1) % 3, (deciding[3] + 1) % 3]])
    table = Table([FirstLegal()], seats, num_players=3)
    assert table.deciding(state).tolist() == [True, True, False, False]
    mask = core.legal_action_mask(state)
    learner = np.array([np.flatnonzero(mask[g])[-1] for g in (2, 3)])  # the learner's: its last legal one
    actions = np.zeros(4, dtype=np.int64)
    actions[2:] = learner
    expected = actions.copy()
    expected[:2] = np.argmax(mask[:2], axis=1)
    reference = state.copy()
    table.play(state, actions, games=np.array([True, True, True, False]))
    core.step(reference, expected, games=[0, 1, 2])
    assert np.array_equal(state.events, reference.events) and state.turn.tolist() == reference.turn.tolist()
    table.seat_players([FirstLegal(), FirstLegal()], np.array([[0, 0, 0, 0], [1, 1, 1, 1]]))
    assert table.player_at[:, :2].tolist() == [[0, 1]] * 4 and (table.player_at[:, 2] == -1).all()


def test_play_keeps_the_mask_it_is_given_up_to_date_through_the_step():
    config = core.GameConfig(num_players=3, board="none")
    state = core.init(config, np.arange(6))
    table = Table([FirstLegal() for _ in range(3)], np.array([[0] * 6, [1] * 6, [2] * 6]), num_players=3)
    mask = core.legal_action_mask(state)
    for _ in range(40):
        waiting = np.arange(6) % 2 == 1 if state.turn.max() < 3 else None  # some steps leave games waiting
        after = table.play(state, np.zeros(6, dtype=np.int64), mask=mask, games=waiting, tell=False)
        assert after is mask and np.array_equal(mask, core.legal_action_mask(state))
    # without one: a new array, the legal actions after the step
    after = table.play(state, np.zeros(6, dtype=np.int64), tell=False)
    assert after is not mask and np.array_equal(after, core.legal_action_mask(state))


def test_the_learner_table_keeps_the_legal_actions_of_its_steps_and_deals():
    config = core.GameConfig(num_players=3, board="none")
    players = Table([FirstLegal(), FirstLegal()], np.array([[1] * 8, [2] * 8]), num_players=3)
    learners = LearnerTable(config, 8, players)
    rng = np.random.default_rng(0)
    learners.start(np.arange(8), rng, seeds=np.arange(8), learner_seat=0)
    dealt = 0
    for _ in range(30):
        mask = core.legal_action_mask(learners.state)
        if learners.mask is not None:
            assert np.array_equal(learners.mask, mask)
        learner = np.argmax(mask, axis=1)  # the learner's first legal action where it decides
        learners.step(np.where(learners.state.done, 0, learner), tell=False)
        assert np.array_equal(learners.mask, core.legal_action_mask(learners.state))
        ended = np.flatnonzero(learners.state.done)
        if len(ended):
            learners.start(ended, rng, learner_seat=0)  # dealt again (core.reset keeps the mask)
            dealt += len(ended)
        else:
            learners.advance()
    assert dealt > 0
    learners.state = learners.state.copy()  # a batch set from outside: its mask is not known
    assert learners.mask is None


def test_players_are_made_by_the_one_factory_the_installed_packages_declare(monkeypatch):
    import cluedo_env.table as table

    assert [point.value for point in table.entry_points(group=table.PLAYER_ENTRY_POINTS)] == [
        "agents.registry:make_agent"
    ]
    monkeypatch.setattr(table, "entry_points", lambda group: [])
    with pytest.raises(RuntimeError, match=r"entry-point group 'cluedo_env\.players', found none"):
        table.make_player("random")

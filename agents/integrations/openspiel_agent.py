"""An OpenSpiel bot as a player of the project's tournaments (the ``openspiel`` extra).

``OpenSpielAgent(bot="ismcts")`` plays with OpenSpiel's Python information-set MCTS
(``open_spiel.python.algorithms.ismcts.ISMCTSBot``, random rollouts); ``bot="random"`` with
OpenSpiel's uniform random bot (``pyspiel.make_uniform_random_bot``). The bot decides on a
``python_cluedo`` state (``cluedo_env.openspiel_game``) built from what the agent may know:

- the agent keeps its private view of every event of each game (``observe``);
- at a decision it copies the game's public state and redeals what its seat cannot see
  (``core.redeal``) from a deal drawn exactly from its posterior (``beliefs_from_events``:
  ``sample_deals``), the other players' shows drawn as the determinising agent draws them
  (``agents.reasoners.determinize.sample_shown``); no hidden field of the true game is read;
- IS-MCTS's resampler (``set_resampler``) draws such a state afresh for every simulation, so each
  simulation starts from a world drawn from the seat's exact posterior.

The search state's event log is the seat's view of the past with the cards it did not see filled
in from the drawn world (``_world_log``), so IS-MCTS keys every player's nodes on that player's
information in that world.

Games with ``auto_refute=True`` are refused, whatever the bot (``ValueError`` from ``check_config``
and ``reset``): there whether a refuter decided tells every player whether it held one named card
or several, a fact the posterior does not count, so the worlds drawn could contradict what the seat
saw (the search agents, ``agents.reasoners.ismcts``, and the OpenSpiel resampler refuse them too).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from agents.base import GameByGameAgent
from agents.reasoners.determinize import sample_shown
from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.core.config import CONFIGS_KEPT
from cluedo_env.core.state import Phase
from cluedo_env.optional_modules import missing_extra_text

__all__ = ["OpenSpielAgent"]

BOTS = ("ismcts", "random")


def _world_log(
    log: list[np.ndarray],
    seat: int,
    deal: np.ndarray,
    shown: np.ndarray,
    face_down: np.ndarray,
    rng: np.random.Generator,
) -> list[np.ndarray]:
    """The seat's event log with the cards it did not see filled in from a world: the other
    players' dealt cards (their hands in ``deal``, in a random order), their peeks (``face_down``)
    and the shows between two other players (a named card the refuter showed the suggester in
    ``shown``), so that every player's information state is its own in that world."""
    hands = {
        q: rng.permutation(np.flatnonzero(deal == q)).tolist() for q in np.unique(deal[deal >= 0]).tolist()
    }
    named = ()
    world = []
    for rows in log:
        rows = rows.copy()
        for row in rows:
            kind, who = int(row[ev.KIND]), int(row[ev.PLAYER])
            if kind == ev.SUGGEST:
                named = (int(row[ev.SUSPECT]), int(row[ev.WEAPON_CARD]), int(row[ev.ROOM_CARD]))
            elif kind == ev.DEAL and who != seat:
                row[ev.CARD] = hands[who].pop()
            elif kind == ev.PEEK and who != seat:
                row[ev.CARD] = face_down[row[ev.PEEKED_ROOM]]
            elif kind == ev.SHOW and row[ev.CARD] < 0:
                held = [c for c in named if deal[c] == who]
                told = [c for c in held if shown[row[ev.SUGGESTER], c] == who]
                row[ev.CARD] = (told or held)[0]
        world.append(rows)
    return world


@lru_cache(maxsize=CONFIGS_KEPT)
def _game(config: core.GameConfig):
    """The ``python_cluedo`` game of a config (kept for the ``CONFIGS_KEPT`` configs used last; the agent
    holds none, so it pickles)."""
    from cluedo_env.openspiel_game import CluedoGame

    return CluedoGame.from_config(config)


class OpenSpielAgent(GameByGameAgent):
    """A player that asks an OpenSpiel bot (module docstring).

    Args:
        bot: ``"ismcts"`` or ``"random"``.
        simulations: IS-MCTS simulations per decision. OpenSpiel's IS-MCTS tries each legal
            action once, in a random order, before it compares any, so with fewer simulations than
            legal actions (325 at a turn of the classic game: ``roll`` and the accusations) the
            choice is drawn among those tried (``docs/guides/openspiel.md``).
        uct_c: IS-MCTS's exploration constant.
        rollouts: Random rollouts per IS-MCTS leaf evaluation.
        seed: Seeds the agent's generator (deals drawn, the bot's randomness).
    """

    name = "openspiel"

    def __init__(
        self,
        bot: str = "ismcts",
        simulations: int = 100,
        uct_c: float = 2.0,
        rollouts: int = 1,
        seed: int = 0,
    ) -> None:
        super().__init__(seed)
        try:  # at once, not at the first move: the pre-game check of a tournament says what is missing
            import pyspiel  # noqa: F401
        except ModuleNotFoundError as error:
            raise ValueError(f"the openspiel agent: {missing_extra_text(error.name) or error}") from error
        if bot not in BOTS:
            raise ValueError(f"bot must be one of {list(BOTS)}, got {bot!r}")
        for what, value in (("simulations", simulations), ("rollouts", rollouts)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{what} must be an int >= 1, got {value!r}")
        self.bot, self.simulations, self.uct_c, self.rollouts = bot, simulations, float(uct_c), rollouts
        self.name = f"openspiel_{bot}"
        self.logs: list[list[np.ndarray]] = []

    def check_config(self, config: core.GameConfig) -> None:
        """Raise ``ValueError`` for ``auto_refute=True`` (the module docstring); ``reset`` calls it too."""
        core.require_sampled_view(config, self.name)

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        self.check_config(config)
        super().reset(config, seats, seed)
        self.logs = [[] for _ in range(len(self.seats))]

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        super().reset_games(games, seats)
        for game in np.asarray(games).tolist():
            self.logs[game] = []

    def observe(self, state: core.State, events: np.ndarray) -> None:
        """Keep this step's events (the seat's view) of every game."""
        for game in range(state.batch_size):
            rows = events[game, : state.num_events[game]]
            if len(rows):
                self.logs[game].append(rows.copy())

    def decide(self, state: core.State, game: int, legal: np.ndarray) -> int:
        actions = np.flatnonzero(legal)
        if len(actions) == 1:
            return int(actions[0])
        seat = int(self.seats[game])
        root = self.world(state, game)
        bot = self._bot(seat)
        action = int(bot.step(root))
        if not legal[action]:
            raise AssertionError(f"the OpenSpiel bot chose illegal action {action}")
        return action

    def world(self, state: core.State, game: int):
        """A ``python_cluedo`` state of game ``game`` drawn from the seat's posterior (module docstring)."""
        from cluedo_env.inference.beliefs import beliefs_from_events
        from cluedo_env.inference.from_events import RecordMaker, setup_of
        from cluedo_env.openspiel_state import CluedoState

        seat = int(self.seats[game])
        view = np.concatenate(self.logs[game])
        if (
            state.phase[game] == Phase.REFUTE
        ):  # the suggestion's record, completed: the refuter holds a named card
            pending = np.full((1, view.shape[1]), -1, dtype=view.dtype)
            pending[0, ev.KIND], pending[0, ev.PLAYER] = ev.SHOW, state.current_player[game]
            pending[0, ev.SUGGESTER] = state.turn_player[game]
            view = np.concatenate([view, pending])
        deals = beliefs_from_events(self.config, seat, view).sample_deals(1, self.rng)
        setup = setup_of(self.config)
        records = RecordMaker(setup, seat).add_events(view)
        shown = sample_shown(setup, seat, records, deals, self.rng)
        seeds = self.rng.integers(0, core.SEED_BOUND - 1, size=1, dtype=np.int64)
        clone = core.redeal(core.clone(state, game, 1), seat, deals, seeds, shown=shown)
        log = _world_log(self.logs[game], seat, deals[0], shown[0], clone._face_down[0], self.rng)
        return CluedoState.from_core(_game(self.config), clone, log)

    def _bot(self, seat: int):
        import pyspiel

        seed = int(self.rng.integers(2**31))
        if self.bot == "random":
            return pyspiel.make_uniform_random_bot(seat, seed)
        from open_spiel.python.algorithms import ismcts, mcts

        random_state = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=random_state)
        bot = ismcts.ISMCTSBot(
            _game(self.config),
            evaluator,
            self.uct_c,
            self.simulations,
            random_state=random_state,
        )
        bot.set_resampler(self._resampler)
        return bot

    def _resampler(self, root, player: int):
        """A fresh world for IS-MCTS: the searched game drawn again from the seat's posterior."""
        return self.world(self._searching[0], self._searching[1])

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = np.empty(len(games), dtype=np.int64)
        for i, game in enumerate(games):
            self._searching = (state, int(game))
            actions[i] = self.decide(state, int(game), mask[i])
        return actions

    def state_dict(self) -> dict:
        """The base's, and every game's event log (plain arrays)."""
        return {**super().state_dict(), "logs": [[rows.copy() for rows in log] for log in self.logs]}

    def load_state_dict(self, config: core.GameConfig, state) -> None:
        super().load_state_dict(config, state)
        self.logs = [[np.asarray(rows, dtype=np.int16) for rows in log] for log in state["logs"]]

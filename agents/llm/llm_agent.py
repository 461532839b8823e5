"""Language-model players: any OpenAI-compatible endpoint plays a seat, in words.

At each decision the agent sends a conversation of two messages: a system
message (the prompt template ``system.txt`` with the rules summary of
``cluedo_env.text.rules_summary``, the same for every decision of a game) and a
user message (``decision.txt`` with the player's ``text_view``: its hand, what it
has seen, optionally its notepad, the board, the decision and its legal
commands). The reply is read by ``cluedo_env.commands.parse_command``. An edition with a card no reply
can name (``cluedo_env.reply_words.card_names``) is refused (``check_config``, ``reset``).

Base models. ``api="completions"`` sends the same conversation to
``/completions`` as one plain prompt (``agents.llm.chat.plain_prompt``), cut
at the end of the line, with the prompt set ``base`` (its decision prompt ends
with ``-``, as the list of legal commands does, and the model completes the line).
``model="local"`` plays the local model (``agents.llm.local_model``: the
packaged Gemma 3 270M, a base model, on a llama.cpp server this process starts
on 127.0.0.1 and stops at its exit) this way. At each batch and decision step the
agent makes sure that server runs (one found dead is started again, with a
warning naming its kept log); a request that failed because the server died
meanwhile is sent once more, the same request, to the one started again (its
network retries counted), and if that fails too the ``ChatError`` names the dead
server's log.

Invalid replies. A reply that is not one legal action is answered with the
parser's error (``retry.txt``: why, and the legal commands) in the same
conversation, and the model answers again, up to ``max_invalid_replies``
times. If it still has not given a legal command the agent takes its fallback
action and counts it: ``fallback="random"`` (default) a uniformly random legal
action that is not an accusation (an accusation only when nothing else is
legal), from the agent's seeded generator; ``"first"`` the first such action in
action order (roll, take the passage, ..., make no suggestion, show the first
card, end turn). Every reply, invalid reply and fallback is counted per game.

Forfeit (like TextArena's rule for invalid moves). With ``forfeit_after=N``,
a seat whose replies were invalid ``N`` times in one game forfeits it: the
model is asked nothing more in that game, and at its next decision where an
accusation is legal the seat accuses a triple that names a card of its own
hand, which is wrong for sure and so puts it out of the game by the rules
(it still shows cards when it must, as every player out of the game does);
its decisions from the forfeit on are taken by the fallback (counted in
``fallbacks``, their records say ``"forfeit": true``). ``forfeited`` counts
the games forfeited. ``None`` (default): never.

Network. Requests go through ``agents.llm.chat.ChatClient``: failures are retried
with exponential backoff (counted). A server that answers but never with a
usable reply (``ChatReplyError``: not a chat completion, malformed ``usage``,
a reply over ``max_reply_bytes``) does not stop the run: the agent takes its
fallback action, counted in ``fallbacks``, and the decision's record holds the
error (credentials redacted). A request that fails for good on the network
(the server is down, or every attempt ran past ``timeout_s``) raises
``ChatError``, which stops the batch: the tournament has written every finished
chunk, and resuming plays only the games that are missing.

Records. ``game_reports()`` gives, per game of the batch, the counts
(``decisions``, ``replies``, ``invalid_replies``, ``fallbacks``,
``prompt_tokens``, ``completion_tokens``, ``network_retries``,
``milliseconds``: the wall-clock time spent waiting on the model, and
``forfeited``) and the
transcript: the system message once, then per decision the turn, the messages
after the system message (the view, every reply and every error), the action
taken (id and command), whether it was a fallback and, for a fallback after a
failed request, ``error``: why it failed, and the game's deal seed
(``seed``). These are this seat's decisions only, not the other seats': the
game replays from its deal seed with these actions in this seat and the other
seats' agents seeded as they were, playing the same batch of games (an agent's
random choices may depend on every game of its batch); in a tournament, the
same config, line-up, rotation and run seed, and the block of ``batch_size``
deals the game was played in. With ``record_dir`` set, each decision is also
appended to ``<record_dir>/game<deal seed>-seed<agent's batch seed>-P<seat>.jsonl``
as soon as it is taken.

Copies. ``state_dict()`` holds, besides the base class's seed, seats and
generator, the batch seed and each game's notes: the events the seat has seen,
its counts, its transcript and the fallback's generator; an agent loaded with it
(``load_state_dict``) asks the model the same prompts and, at its first decision
in a game, writes the game's record file anew from the loaded transcript (the
saved agent may have written more since), then appends to it; ``game_reports()``
goes on where the saved agent's stood. A
pickled (or deep-copied) agent keeps the same and its chat client's options,
never the API key (read again from ``api_key_env``) nor a connection; one whose
``base_url`` holds a secret (a user or password, a query key) is not pickled
(``TypeError``, see ``agents.llm.chat``), but deep-copied. A copy
then sends the saved agent's requests and, given the same replies, chooses as it
would; a server whose reply to a request varies (sampling, llama.cpp's prompt
cache) is allowed for by ``agents.testing.check_agent(..., same_replies=True)``.

Concurrency. The decisions of the games of a batch that wait on this agent at
the same step are sent together, ``concurrency`` requests at a time.

Prompt templates are plain text files (``string.Template``: ``$rules``,
``$view``, ``$error``) in ``agents/llm/prompts/<name>/`` (shipped: ``default`` for chat
models, ``base`` for base models), or a folder of your own holding ``system.txt``,
``decision.txt`` and ``retry.txt``.
"""

from __future__ import annotations

import copy
import json
import string
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent, option_switch
from agents.llm.chat import REPLY_COUNTS, ChatClient, ChatError, ChatReplyError, add_reply_counts
from agents.llm.local_model import (
    LOCAL_MODEL_NAME,
    LocalServer,
    ask_restarted_server,
    lost_server,
    shared_server,
)
from cluedo_env import core, reply_words
from cluedo_env.commands import (
    CommandError,
    command,
    final_answer_complete,
    legal_commands_text,
    parse_command,
)
from cluedo_env.core import events as ev
from cluedo_env.core.state import Phase
from cluedo_env.text import rules_summary, text_view
from cluedo_env.whole_files import write_whole

__all__ = ["COUNTS", "FALLBACKS", "LLMAgent", "load_prompts"]

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
# Each template of a prompt set, with the placeholders it may use.
PROMPT_FILES = {"system": ("rules",), "decision": ("view",), "retry": ("error",)}
FALLBACKS = ("random", "first")
# Why a reply the server cut at its token limit before a final answer is asked again (it may end mid-thought).
CUT_REPLY = "The reply was cut off at the token limit before its final answer: answer again, shorter"
COUNTS = ("decisions", "replies", "invalid_replies", "fallbacks", *REPLY_COUNTS, "milliseconds", "forfeited")


def load_prompts(
    prompts: str, root: Path = PROMPTS_DIR, files: Mapping[str, tuple[str, ...]] = PROMPT_FILES
) -> dict[str, string.Template]:
    """The templates ``files`` (default ``system``, ``decision``, ``retry``) of a prompt set shipped in ``root``,
    or of a folder, each checked for the placeholders ``files`` gives it (a typo is refused here, not at the
    first decision of a run)."""
    folder = root / prompts if (root / prompts).is_dir() else Path(prompts)
    if not folder.is_dir():
        shipped = sorted(p.name for p in root.iterdir() if p.is_dir())
        raise ValueError(f"prompts must be one of {shipped} or a folder of templates, got {prompts!r}")
    missing = [name for name in files if not (folder / f"{name}.txt").is_file()]
    if missing:
        raise ValueError(f"prompt folder {folder} lacks {[f'{m}.txt' for m in missing]}")
    templates = {
        name: string.Template((folder / f"{name}.txt").read_text(encoding="utf-8")) for name in files
    }
    for name, template in templates.items():
        allowed = files[name]
        unknown = sorted(set(template.get_identifiers()) - set(allowed))
        if unknown or not template.is_valid():
            said = f"uses {['$' + u for u in unknown]}" if unknown else "has a '$' that starts no placeholder"
            raise ValueError(
                f"prompt file {folder / f'{name}.txt'} {said}; its placeholders are {['$' + a for a in allowed]} "
                "(write $$ for a dollar sign)"
            )
    return templates


class LLMAgent(Agent):
    """A seat played by a language model (see the module docstring).

    Args:
        seed: Seed of the fallback's random choices.
        base_url: The endpoint's API root (e.g. ``http://127.0.0.1:8000/v1`` for a local vLLM server).
        model: The model name; ``"local"``: the local model (``agents.llm.local_model``), served by this
            process, whatever ``base_url`` says.
        concurrency: Requests in flight at once across the games of a batch.
        max_invalid_replies: Times an invalid reply is answered with the error and asked again.
        fallback: ``"random"`` or ``"first"`` (see the module docstring).
        notepad: Show the player's notepad in each view.
        prompts: A shipped prompt set (``"default"``, ``"base"``) or a folder of templates (None:
            ``"base"`` with ``api="completions"``, else ``"default"``).
        record_dir: Folder where each decision is appended as it is taken (None: in memory only).
        api: ``"chat"`` or ``"completions"`` (a base model; None: ``"completions"`` for
            ``model="local"``, else ``"chat"``).
        forfeit_after: Invalid replies in one game after which the seat forfeits it (None: never).
        model_file: ``model="local"``: the GGUF to serve (None: the packaged model).
        **chat: Options of ``agents.llm.chat.ChatClient`` (``api_key_env``, ``temperature``, ``max_tokens``,
            ``timeout_s``, ``network_retries``, ``backoff_s``, ``max_reply_bytes``, ``stop``);
            ``timeout_s`` defaults to 120 here, and ``max_tokens`` to 32 with ``api="completions"``
            (a command is one short line).
    """

    name = "llm"

    def __init__(
        self,
        seed: int = 0,
        base_url: str = "http://127.0.0.1:8000/v1",
        model: str = "default",
        concurrency: int = 8,
        max_invalid_replies: int = 2,
        fallback: str = "random",
        notepad: bool = True,
        prompts: str | None = None,
        record_dir: str | None = None,
        api: str | None = None,
        forfeit_after: int | None = None,
        model_file: str | None = None,
        **chat: Any,
    ) -> None:
        super().__init__(seed)
        if fallback not in FALLBACKS:
            raise ValueError(f"fallback must be one of {list(FALLBACKS)}, got {fallback!r}")
        if not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"concurrency must be an integer >= 1, got {concurrency!r}")
        if not isinstance(max_invalid_replies, int) or max_invalid_replies < 0:
            raise ValueError(f"max_invalid_replies must be an integer >= 0, got {max_invalid_replies!r}")
        if forfeit_after is not None and (not isinstance(forfeit_after, int) or forfeit_after < 1):
            raise ValueError(f"forfeit_after must be an integer >= 1 or None, got {forfeit_after!r}")
        if api is None:
            api = "completions" if model == LOCAL_MODEL_NAME else "chat"
        defaults = {"timeout_s": 120.0, **({"max_tokens": 32} if api == "completions" else {})}
        self.client = ChatClient(base_url, model, api=api, **{**defaults, **chat})  # checks the options
        # model=local: the server is started at the first game (not by a config check that builds agents)
        self._local = (model_file, api, {**defaults, **chat}) if model == LOCAL_MODEL_NAME else None
        self._local_server: LocalServer | None = None  # this process's local server the client asks
        if prompts is None:
            prompts = "base" if api == "completions" else "default"
        self.forfeit_after = forfeit_after
        self.model = model
        self.concurrency = concurrency
        self.max_invalid_replies = max_invalid_replies
        self.fallback = fallback
        self.notepad = option_switch("notepad", notepad)
        self.prompts = load_prompts(prompts)
        self.record_dir = Path(record_dir) if record_dir is not None else None
        self._pool: ThreadPoolExecutor | None = None
        self._batch_seed = seed
        self._events: list[list[np.ndarray]] = []
        self._counts: list[dict[str, int]] = []
        self._transcripts: list[dict] = []
        self._rngs: list[np.random.Generator] = []
        self._rewrite: set[int] = set()  # games whose record file is written anew from the transcript

    # --- the batch ------------------------------------------------------------------

    def check_config(self, config: core.GameConfig) -> None:
        """Refuse (``ValueError``) an edition with a card no reply can name (``reply_words.card_names``: a
        card "A" or "The", or "Study" beside "The Study"); ``reset`` calls it too."""
        reply_words.card_names(config)

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        self.check_config(config)  # before a local server is started for the batch
        super().reset(config, seats, seed)
        self._connect_local()
        self.system = self.prompts["system"].substitute(rules=rules_summary(config))
        self._batch_seed = self.seed if seed is None else seed
        self._events, self._counts, self._transcripts, self._rngs = [], [], [], []
        self._rewrite = set()
        for b in range(len(self.seats)):
            self._new_game(b)
        if self.record_dir is not None:
            self.record_dir.mkdir(parents=True, exist_ok=True)

    def _new_game(self, b: int) -> None:
        fresh = (
            [],
            dict.fromkeys(COUNTS, 0),
            {"model": self.model, "seat": int(self.seats[b]), "system": self.system, "decisions": []},
            np.random.default_rng([self._batch_seed, b]),
        )
        if b < len(self._events):
            self._events[b], self._counts[b], self._transcripts[b], self._rngs[b] = fresh
        else:
            for store, value in zip((self._events, self._counts, self._transcripts, self._rngs), fresh):
                store.append(value)

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        super().reset_games(games, seats)
        for b in np.asarray(games).tolist():
            self._new_game(b)

    def observe(self, state: core.State, events: np.ndarray) -> None:
        for b in range(len(self.seats)):
            rows = events[b, : state.num_events[b]]
            if len(rows):
                self._events[b].append(np.array(rows))
        for b in range(len(self.seats)):
            self._transcripts[b].setdefault("seed", int(state.seed[b]))

    def _connect_local(self) -> None:
        """``model="local"``: point the client at this process's local server, started at the first game and
        again at a game or decision that finds it dead (a copy unpickled in another process, where the
        original's port means nothing, starts or finds that process's own at its next game or decision)."""
        if self._local is not None:
            model_file, api, options = self._local
            server = shared_server(model_file)  # (one started again may have the dead one's URL)
            if server is not self._local_server:
                self.client.close()
                self.client = ChatClient(server.url, LOCAL_MODEL_NAME, api=api, **options)
                self._local_server = server

    def _complete(self, messages: list[dict[str, str]]) -> Any:
        """The model's reply; of the local model, asked once more of its server started again if it died."""
        server = self._local_server
        if server is None:  # (not the local model)
            return self.client.complete(messages)
        model_file, api, options = self._local

        def ask_again(error: ChatError | None) -> Any:
            ask = partial(ChatClient.complete, messages=messages)
            return ask_restarted_server(server, error, ask, {"api": api, **options}, model_file)

        if lost_server(server):  # it died since this step began: no backoff on its port
            return ask_again(None)
        try:
            return self.client.complete(messages)
        except ChatReplyError:
            raise
        except ChatError as error:
            return ask_again(error)

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        self._connect_local()
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="llm")
        decisions = self._pool.map(lambda job: self._decide(state, *job), zip(games.tolist(), mask))
        return np.fromiter(decisions, dtype=np.int64, count=len(games))

    # --- one decision ---------------------------------------------------------------

    def _decide(self, state: core.State, b: int, legal: np.ndarray) -> int:
        config = self.config
        seat = int(self.seats[b])
        counts = self._counts[b]
        if counts["forfeited"]:
            return self._forfeit_decision(state, b, legal)
        rows = self._events[b]
        history = np.concatenate(rows) if rows else np.zeros((0, 7), dtype=np.int16)
        view = text_view(state, seat, history, game=b, notepad=self.notepad)
        messages = [
            {"role": "system", "content": self.system},
            {"role": "user", "content": self.prompts["decision"].substitute(view=view)},
        ]
        room = int(state.location[b, seat])
        counts["decisions"] += 1
        action, invalid, failure = None, 0, None
        started = time.perf_counter()
        for attempt in range(self.max_invalid_replies + 1):
            try:
                reply = self._complete(messages)
            except ChatReplyError as error:  # the server misbehaves: play the fallback, say why
                failure = str(error)
                counts["network_retries"] += error.network_retries
                break
            counts["replies"] += 1
            add_reply_counts(counts, reply)
            messages.append({"role": "assistant", "content": reply.text})
            try:
                if reply.cut and not final_answer_complete(reply.text):
                    raise CommandError(CUT_REPLY, reply.text, legal_commands_text(config, legal))
                action = parse_command(config, reply.text, legal, room=room)
                break
            except CommandError as error:
                invalid += 1
                if (
                    self.forfeit_after is not None
                    and counts["invalid_replies"] + invalid >= self.forfeit_after
                ):
                    break  # the forfeit: asked no more
                if attempt < self.max_invalid_replies:
                    messages.append(
                        {"role": "user", "content": self.prompts["retry"].substitute(error=error)}
                    )
        counts["milliseconds"] += round(1000 * (time.perf_counter() - started))
        counts["invalid_replies"] += invalid
        forfeit = self.forfeit_after is not None and counts["invalid_replies"] >= self.forfeit_after
        if forfeit and action is None:
            counts["forfeited"] = 1
            counts["decisions"] -= 1  # counted again as the forfeit's decision
            return self._forfeit_decision(state, b, legal, messages[1:], invalid)
        fallback = action is None
        if fallback:
            counts["fallbacks"] += 1
            action = self._fallback(b, legal)
        record = {
            "turn": int(state.turn[b]),
            "phase": Phase.NAMES[int(state.phase[b])],
            "messages": messages[1:],
            "action": int(action),
            "command": command(config, action),
            "invalid_replies": invalid,
            "fallback": fallback,
        }
        if failure is not None:
            record["error"] = failure
        self._keep(state, b, record)
        return int(action)

    def _keep(self, state: core.State, b: int, record: dict) -> None:
        """Add a decision's record to the game's transcript (and to its file under ``record_dir``)."""
        self._transcripts[b]["decisions"].append(record)
        if self.record_dir is not None:
            # The batch seed tells apart the same deal played by other line-ups and rotations.
            seat = int(self.seats[b])
            path = self.record_dir / f"game{int(state.seed[b])}-seed{self._batch_seed}-P{seat}.jsonl"
            # The game's first decision starts its file anew (a game played again by a resumed run), and so
            # does a loaded copy's first (the file may hold decisions the saved agent took after the save).
            decisions = self._transcripts[b]["decisions"]
            if len(decisions) == 1 or b in self._rewrite:
                self._rewrite.discard(b)
                write_whole(path, "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in decisions))
            else:
                with path.open("a", encoding="utf-8") as file:
                    file.write(json.dumps(record, ensure_ascii=False) + "\n")

    def _forfeit_decision(
        self, state: core.State, b: int, legal: np.ndarray, messages: list | None = None, invalid: int = 0
    ) -> int:
        """A decision of a forfeited game: a sure-wrong accusation where one is legal, else the fallback."""
        counts = self._counts[b]
        counts["decisions"] += 1
        counts["fallbacks"] += 1
        action = self._wrong_accusation(b, legal)
        if action is None:
            action = self._fallback(b, legal)
        record = {
            "turn": int(state.turn[b]),
            "phase": Phase.NAMES[int(state.phase[b])],
            "messages": messages or [],
            "action": int(action),
            "command": command(self.config, action),
            "invalid_replies": invalid,
            "fallback": True,
            "forfeit": True,
        }
        self._keep(state, b, record)
        return int(action)

    def _wrong_accusation(self, b: int, legal: np.ndarray) -> int | None:
        """A legal accusation naming a card of this seat's hand (wrong for sure), or None if there is none."""
        rules = core.rules_for(self.config)
        layout = rules.layout
        low, high = layout.ACCUSE, layout.ACCUSE + layout.sizes["accuse"]
        accusations = [a for a in np.flatnonzero(legal).tolist() if low <= a < high]
        rows = np.concatenate(self._events[b]) if self._events[b] else np.zeros((0, 7), dtype=np.int16)
        mine = (
            (rows[:, ev.KIND] == ev.DEAL)
            & (rows[:, ev.PLAYER] == int(self.seats[b]))
            & (rows[:, ev.CARD] >= 0)
        )
        hand = set(rows[mine, ev.CARD].tolist())
        for action in accusations:
            if hand & set(rules.accuse_cards[action - low].tolist()):
                return int(action)
        return None

    def _fallback(self, b: int, legal: np.ndarray) -> int:
        layout = core.rules_for(self.config).layout
        actions = np.flatnonzero(legal)
        calm = actions[(actions < layout.ACCUSE) | (actions >= layout.ACCUSE + layout.sizes["accuse"])]
        choices = calm if len(calm) else actions
        if self.fallback == "first":
            return int(choices[0])
        return int(self._rngs[b].choice(choices))

    # --- copies ---------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """The base class's, the batch seed, and each game's notes: the events seen, the counts, the
        transcript and the fallback's generator (see the module docstring)."""
        empty = np.zeros((0, len(ev.EVENT_FIELDS)), dtype=np.int16)
        return {
            **super().state_dict(),
            "batch_seed": self._batch_seed,
            "games": [
                {
                    "events": np.concatenate(rows) if rows else empty,
                    "counts": dict(counts),
                    "transcript": copy.deepcopy(transcript),
                    "rng": rng.bit_generator.state,
                }
                for rows, counts, transcript, rng in zip(
                    self._events, self._counts, self._transcripts, self._rngs, strict=True
                )
            ],
        }

    def load_state_dict(self, config: core.GameConfig, state: Mapping[str, Any]) -> None:
        """Continue from ``state_dict``'s output (see the module docstring).

        Raises:
            ValueError: ``state`` is not an llm agent's of this model and ``config`` (naming the field).
        """
        self._check_state(config, state)
        super().load_state_dict(config, state)
        self._batch_seed = int(state["batch_seed"])
        for b, game in enumerate(state["games"]):
            events = np.asarray(game["events"], dtype=np.int16)
            self._events[b] = [events] if len(events) else []
            self._counts[b] = dict(game["counts"])
            self._transcripts[b] = copy.deepcopy(game["transcript"])
            try:
                self._rngs[b].bit_generator.state = game["rng"]
            except (TypeError, ValueError, KeyError) as error:
                raise ValueError(
                    f"state games[{b}].rng is not a {type(self._rngs[b].bit_generator).__name__} "
                    f"generator's state ({error})"
                ) from None
        self._rewrite = set(range(len(state["games"])))

    def _check_state(self, config: core.GameConfig, state: Mapping[str, Any]) -> None:
        """Refuse (``ValueError``, naming the field) a state that is not an llm agent's of this model and
        ``config``: its keys, types and shapes, an integer batch seed, seats among the players."""

        def whole(value: object) -> bool:
            return isinstance(value, int | np.integer) and not isinstance(value, bool)

        if not isinstance(state, Mapping):
            raise ValueError(f"the state must be a mapping (state_dict's output), got {type(state).__name__}")
        missing = sorted({"seed", "seats", "rng", "batch_seed", "games"} - set(state))
        if missing:
            raise ValueError(f"the state lacks {missing}: it is not an llm agent's state_dict")
        if not whole(state["batch_seed"]):
            raise ValueError(f"state batch_seed must be an integer, got {state['batch_seed']!r}")
        seats = np.asarray(state["seats"])
        if seats.ndim != 1 or not np.issubdtype(seats.dtype, np.integer):
            raise ValueError(f"state seats must be a list of integers, got {state['seats']!r}")
        games = state["games"]
        if not isinstance(games, list | tuple) or len(games) != len(seats):
            shown = len(games) if isinstance(games, list | tuple) else type(games).__name__
            raise ValueError(
                f"state games must be a list of one game's notes per seat ({len(seats)}), got {shown}"
            )
        for b, game in enumerate(games):
            field = f"state games[{b}]"
            if not isinstance(game, Mapping) or set(game) != {"events", "counts", "transcript", "rng"}:
                raise ValueError(f"{field} must hold events, counts, transcript and rng")
            if not 0 <= seats[b] < config.num_players:
                raise ValueError(
                    f"state seats[{b}] must be a seat of {config.num_players} players, got {seats[b]}"
                )
            events = np.asarray(game["events"])
            if len(events) and (
                events.ndim != 2
                or events.shape[1] != len(ev.EVENT_FIELDS)
                or not np.issubdtype(events.dtype, np.integer)
            ):
                raise ValueError(f"{field}.events must be integer rows of {len(ev.EVENT_FIELDS)} fields")
            counts = game["counts"]
            if not isinstance(counts, Mapping) or set(counts) != set(COUNTS):
                raise ValueError(f"{field}.counts must have the keys {list(COUNTS)}")
            bad = {k: v for k, v in counts.items() if not whole(v) or v < 0}
            if bad:
                raise ValueError(f"{field}.counts must be integers >= 0, got {bad}")
            transcript = game["transcript"]
            if not isinstance(transcript, Mapping) or not isinstance(transcript.get("decisions"), list):
                raise ValueError(f"{field}.transcript must be a mapping with a list of decisions")
            if transcript.get("model") != self.model:
                raise ValueError(
                    f"{field}.transcript is of model {transcript.get('model')!r}, this agent plays {self.model!r}"
                )
            if transcript.get("seat") != seats[b]:
                raise ValueError(f"{field}.transcript is of seat {transcript.get('seat')!r}, not seats[{b}]")
        self._rewrite = set(range(len(games)))

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its request threads (started again at its next ``act``) and, of the local
        model, without its server (the copy asks its own process's); the copy writes each game's
        record file anew from its transcript at its first decision there."""
        return {
            **self.__dict__,
            "_pool": None,
            "_rewrite": set(range(len(self._transcripts))),
            "_local_server": None,  # the local server is this process's child
        }

    # --- reports --------------------------------------------------------------------

    def game_reports(self) -> list[tuple[dict[str, int], dict]]:
        """Per game of the batch: the counts (``COUNTS``) and the transcript (see the module docstring)."""
        return [(dict(c), t) for c, t in zip(self._counts, self._transcripts)]

    def close(self) -> None:
        """Stop the request threads and close the connections (the reports stay)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        self.client.close()

    def __repr__(self) -> str:
        return f"LLMAgent(model={self.model!r}, url={self.client.url!r}, seed={self.seed})"

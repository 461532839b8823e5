"""Language-model agents against a scripted OpenAI-compatible server over real HTTP on 127.0.0.1.

The server (``experiments.scripted_chat_server``) answers each request by a
script indexed by the attempt within a decision, so the counts the agent must
report follow from the script exactly, whatever the order of the requests.
"""

from __future__ import annotations

import copy
import json
import math
import pickle
import socket
import string
import threading
from types import SimpleNamespace

import numpy as np
import pytest

from agents.arena import play_batch
from agents.baselines.notepad_agent import NotepadAgent
from agents.baselines.random_agent import sample_legal
from agents.llm import llm_agent
from agents.llm.chat import ChatClient, ChatError, ChatUnreachable
from agents.llm.llm_agent import LLMAgent
from agents.llm.same_replies import same_replies
from agents.registry import make_agent
from agents.testing import AgentCheckError, check_agent
from cluedo_env import core
from cluedo_env.commands import parse_command
from cluedo_env.text import text_view
from experiments import scripted_chat_server
from experiments.common import llm_report
from experiments.common.games_file import GAMES_FILE, read_games
from experiments.common.settings import AgentSpec, GameSettings, LineupConfig, TournamentConfig
from experiments.common.tournament_run import run_tournament
from experiments.scripted_chat_server import ScriptedChatServer, scripted_reply

CONFIG = core.GameConfig(num_players=3, max_turns=24)


def play(server: ScriptedChatServer, seeds=(0, 1, 2), **options) -> tuple[LLMAgent, object]:
    """One llm seat against two notepad players, a batch of games."""
    agent = LLMAgent(seed=5, base_url=server.url, **{"backoff_s": 0.0, "concurrency": 3, **options})
    try:
        result = play_batch(CONFIG, [agent, NotepadAgent(1), NotepadAgent(2)], seeds=list(seeds))
    finally:
        agent.close()
    return agent, result


def totals(agent: LLMAgent) -> dict[str, int]:
    counts = [c for c, _ in agent.game_reports()]
    return {key: sum(c[key] for c in counts) for key in counts[0]}


def test_valid_replies_play_whole_games_with_no_retry():
    with ScriptedChatServer(["valid"]) as server:
        agent, result = play(server)
    t = totals(agent)
    assert t["decisions"] > 0 and t["replies"] == t["decisions"]
    assert t["invalid_replies"] == t["fallbacks"] == t["network_retries"] == 0
    assert (result.turns > 0).all() and len(server.log) == t["replies"]


def test_retries_are_counted_exactly_as_scripted():
    # Each decision: a malformed reply, an illegal one, then reasoning with a final answer.
    with ScriptedChatServer(["malformed", "illegal", "final"]) as server:
        agent, _ = play(server, max_invalid_replies=2)
    t = totals(agent)
    first_asks = sum(entry["attempt"] == 0 for entry in server.log)
    assert t["decisions"] == first_asks > 0
    assert t["replies"] == 3 * t["decisions"] == len(server.log)
    assert t["invalid_replies"] == 2 * t["decisions"]
    assert t["fallbacks"] == 0
    assert t["prompt_tokens"] == sum(e["prompt_tokens"] for e in server.log)
    assert t["completion_tokens"] == sum(e["completion_tokens"] for e in server.log)


def test_a_reply_cut_at_the_token_limit_is_asked_again_not_played():
    """A reply the server cut (finish_reason "length") may end mid-thought on a command it was
    weighing ("I could accuse ..., but"): without a final answer it is an invalid reply."""
    with ScriptedChatServer(["cut", "valid"]) as server:
        agent, _ = play(server, max_invalid_replies=1)
    t = totals(agent)
    assert t["decisions"] > 0 and t["replies"] == 2 * t["decisions"] == len(server.log)
    assert t["invalid_replies"] == t["decisions"] and t["fallbacks"] == 0
    retries = [e["last_user"] for e in server.log if e["attempt"] == 1]
    assert retries and all("cut off at the token limit" in text for text in retries)


def test_fallbacks_are_counted_exactly_as_scripted_and_legal():
    with ScriptedChatServer(["ambiguous", "illegal", "malformed"]) as server:
        agent, result = play(server, max_invalid_replies=2, fallback="first")
    t = totals(agent)
    assert t["fallbacks"] == t["decisions"] > 0
    assert t["invalid_replies"] == t["replies"] == 3 * t["decisions"]
    # The core checks every action: the games ran to their end on fallback actions alone.
    assert (result.turns > 0).all()
    for _, transcript in agent.game_reports():
        for decision in transcript["decisions"]:
            assert decision["fallback"] and not decision["command"].startswith("accuse")


def test_no_reasking_when_max_invalid_replies_is_zero():
    with ScriptedChatServer(["malformed", "valid"]) as server:
        agent, _ = play(server, max_invalid_replies=0)
    t = totals(agent)
    assert t["replies"] == t["fallbacks"] == t["invalid_replies"] == t["decisions"]


def test_transcripts_hold_every_prompt_and_reply():
    with ScriptedChatServer(["malformed", "valid"]) as server:
        agent, _ = play(server, seeds=(4, 5))
    sent = {(e["last_user"], e["reply"]) for e in server.log}
    recorded = set()
    for counts, transcript in agent.game_reports():
        assert transcript["system"].startswith("You are playing the board game Cluedo")
        assert len(transcript["decisions"]) == counts["decisions"]
        for decision in transcript["decisions"]:
            messages = decision["messages"]
            assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
            recorded |= {(messages[i]["content"], messages[i + 1]["content"]) for i in (0, 2)}
            assert "could not be played" in messages[2]["content"]
            assert decision["command"] == messages[3]["content"]
    assert recorded == sent


def test_replay_from_the_transcript_gives_the_same_game():
    with ScriptedChatServer(["final"]) as server:
        agent, result = play(server, seeds=(9,))
    _, transcript = agent.game_reports()[0]
    # The llm's recorded actions, with the same notepad opponents, replay the game.
    replay_server_actions = [d["action"] for d in transcript["decisions"]]
    assert transcript["seed"] == 9
    replayed = []

    class Recorded(LLMAgent):
        def act(self, state, games, mask):
            replayed.append(replay_server_actions[len(replayed)])
            return np.array([replayed[-1]])

    again = Recorded(base_url="http://127.0.0.1:9/v1")
    second = play_batch(CONFIG, [again, NotepadAgent(1), NotepadAgent(2)], seeds=[9])
    again.close()
    assert replayed == replay_server_actions
    assert second.turns.tolist() == result.turns.tolist() and second.winner.tolist() == result.winner.tolist()


def test_a_transcript_holds_the_llm_seats_decisions_and_replays_only_with_the_others_batch():
    with ScriptedChatServer(["valid"]) as server:
        agent = LLMAgent(seed=5, base_url=server.url, backoff_s=0.0)
        others = [make_agent("random", seed=2), make_agent("notepad", seed=3)]
        result = play_batch(CONFIG, [agent, *others], seeds=[11, 12, 13])
        agent.close()
    transcripts = [t for _, t in agent.game_reports()]
    seat_decisions = [len(t["decisions"]) for t in transcripts]
    # The llm seat's decisions only: a third or so of the game's, not the actions that replay it alone.
    assert all(0 < n < total for n, total in zip(seat_decisions, result.decisions.tolist()))
    recorded = [[d["action"] for d in t["decisions"]] for t in transcripts]
    used = [0, 0, 0]

    class Recorded(LLMAgent):
        def act(self, state, games, mask):
            actions = [recorded[g][used[g]] for g in games]
            for g in games:
                used[g] += 1
            return np.array(actions)

    again = Recorded(base_url="http://127.0.0.1:9/v1")  # the same batch, the other seats seeded as before
    second = play_batch(
        CONFIG, [again, make_agent("random", seed=2), make_agent("notepad", seed=3)], [11, 12, 13]
    )
    again.close()
    assert used == seat_decisions and second.turns.tolist() == result.turns.tolist()
    assert second.winner.tolist() == result.winner.tolist()
    # What the guide and the docstring say: the seat's decisions, replayed with the other seats' batch.
    from tests.conftest import ROOT

    guide = " ".join((ROOT / "docs" / "guides" / "words.md").read_text().split())
    assert "which replay it" not in guide
    assert (
        "each language-model seat's decisions" in guide and "The other seats' actions are not in it" in guide
    )
    docstring = " ".join(llm_agent.__doc__.split())
    assert "These are this seat's decisions only, not the other seats'" in docstring


def test_record_dir_gets_each_decision_as_it_is_taken(tmp_path):
    with ScriptedChatServer(["valid"]) as server:
        agent, _ = play(server, seeds=(0,), record_dir=str(tmp_path / "records"))
    files = list((tmp_path / "records").iterdir())
    assert [f.name for f in files] == ["game0-seed5-P0.jsonl"]  # agent seed 5 + first deal seed 0
    lines = [json.loads(line) for line in files[0].read_text().splitlines()]
    assert lines == agent.game_reports()[0][1]["decisions"]
    # The same game played again (a tournament resumed after a stop) writes its file anew
    with ScriptedChatServer(["valid"]) as server:
        again, _ = play(server, seeds=(0,), record_dir=str(tmp_path / "records"))
    lines = [json.loads(line) for line in files[0].read_text().splitlines()]
    assert lines == again.game_reports()[0][1]["decisions"]


def play_until_it_decides(
    agent: LLMAgent, steps: int, seeds=(3, 4)
) -> tuple[core.State, np.ndarray, np.ndarray]:
    """A batch with the llm agent at seat 0 and random players elsewhere, played ``steps`` steps and on to
    the agent's next decision: the state, the games where it decides and their mask (``act`` not called)."""
    seats = np.zeros(len(seeds), dtype=np.int64)
    state = core.init(CONFIG, np.array(seeds))
    agent.reset(CONFIG, seats)
    agent.observe(state, core.private_view(state.events, seats[:, None]))
    rng = np.random.default_rng(0)
    for step in range(10 * steps):
        mask = core.legal_action_mask(state)
        mine = np.flatnonzero(~state.done & (state.current_player == seats))
        if step >= steps and len(mine):
            return state, mine, mask[mine]
        actions = sample_legal(rng, mask)
        if len(mine):
            actions[mine] = agent.act(state, mine, mask[mine])
        core.step(state, actions)
        agent.observe(state, core.private_view(state.events, seats[:, None]))
    raise AssertionError("the agent had no decision to make")


def test_an_agent_loaded_from_state_dict_goes_on_with_the_reports_and_the_record_files(tmp_path):
    """state_dict held the seed, seats and generator only: a loaded agent had forgotten what it had seen (its
    prompts lost the game's history), its counts and transcripts, and its first decision wrote its record
    files anew, over the saved agent's decisions. Then it appended to them after the decisions the saved
    agent took since the save, a timeline the loaded copy never plays: it writes them anew from its
    transcript."""
    records = tmp_path / "records"
    with ScriptedChatServer(["malformed", "valid"]) as server:
        options = {"seed": 5, "base_url": server.url, "backoff_s": 0.0, "record_dir": str(records)}
        agent = LLMAgent(**options)
        state, games, mask = play_until_it_decides(agent, 40)
        saved = agent.state_dict()
        loaded = LLMAgent(**options)
        loaded.load_state_dict(CONFIG, copy.deepcopy(saved))
        assert loaded.game_reports() == agent.game_reports() and totals(agent)["decisions"] > 4
        before = len(server.log)
        chosen = agent.act(state, games, mask).tolist()
        asked = len(server.log)
        assert loaded.act(state, games, mask).tolist() == chosen
        agent.close()
        loaded.close()
    prompts = [e["last_user"] for e in server.log]
    assert sorted(prompts[before:asked]) == sorted(prompts[asked:])  # the same prompts, history and all
    game = int(games[0])
    earlier = saved["games"][game]["transcript"]["decisions"]
    decision = loaded.game_reports()[game][1]["decisions"][-1]
    assert agent.game_reports()[game][1]["decisions"] == [*earlier, decision]
    (file,) = records.glob(f"game{int(state.seed[game])}-*.jsonl")  # the saved agent's, then the copy's
    assert [json.loads(line) for line in file.read_text().splitlines()] == [*earlier, decision]


def _spoilt(saved: dict, change: str) -> dict:
    """``saved`` (an llm agent's state_dict) with one field spoilt as ``change`` says."""
    state = copy.deepcopy(saved)
    game = state["games"][0]
    if change == "another agent's":
        state = {key: state[key] for key in ("seed", "seats", "rng")}
    elif change == "a count as text":
        game["counts"]["replies"] = "3"
    elif change == "a path as batch seed":
        state["batch_seed"] = "../../x"
    elif change == "a seat of 6 players":
        state["seats"] = [5, 5]
        game["transcript"]["seat"] = 5
    elif change == "another model's":
        game["transcript"]["model"] = "other-model"
    elif change == "events of another shape":
        game["events"] = np.zeros((2, 3), dtype=np.int16)
    return state


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("another agent's", r"the state lacks \['batch_seed', 'games'\]"),
        ("a count as text", r"state games\[0\]\.counts must be integers >= 0, got \{'replies': '3'\}"),
        ("a path as batch seed", r"state batch_seed must be an integer, got '\.\./\.\./x'"),
        ("a seat of 6 players", r"state seats\[0\] must be a seat of 3 players, got 5"),
        ("another model's", r"games\[0\]\.transcript is of model 'other-model', this agent plays 'default'"),
        ("events of another shape", r"state games\[0\]\.events must be integer rows of 7 fields"),
    ],
)
def test_load_state_dict_refuses_a_state_that_is_not_this_agents(change, said):
    """It loaded another agent's state (KeyError at the first act), counts as text, a path as batch seed
    (then in the record files' names), a 6-player state into a 3-player config, another model's notes."""
    agent = LLMAgent(seed=5, base_url="http://127.0.0.1:9/v1", api_key_env=None)
    agent.reset(CONFIG, np.zeros(2, dtype=np.int64))
    saved = agent.state_dict()
    loaded = LLMAgent(seed=5, base_url="http://127.0.0.1:9/v1", api_key_env=None)
    loaded.load_state_dict(CONFIG, copy.deepcopy(saved))  # its own state loads
    with pytest.raises(ValueError, match=said):
        loaded.load_state_dict(CONFIG, _spoilt(saved, change))
    agent.close()
    loaded.close()


@pytest.mark.parametrize(
    ("script", "options"),
    [
        (["malformed", "final"], {"max_invalid_replies": 1}),  # an error answered in the conversation
        (["malformed"], {"max_invalid_replies": 1, "forfeit_after": 3}),  # fallbacks, then forfeits
    ],
    ids=["retries", "fallbacks-and-forfeits"],
)
def test_the_llm_agent_passes_the_agent_check(script, options):
    """Copied through state_dict or pickle mid-game, it chooses as the original does (it failed: it could
    not be pickled, and a copy loaded from state_dict had lost each game's history, counts and generator)."""
    with ScriptedChatServer(script) as server:
        check_agent("llm", options={"base_url": server.url, "backoff_s": 0.0, **options})


class Forgetful(LLMAgent):
    """Leaves one of each game's notes out of ``state_dict`` (``forget``: events, counts or rng)."""

    def __init__(self, forget: str, **options) -> None:
        super().__init__(**options)
        self.forget = forget

    def state_dict(self) -> dict:
        saved = super().state_dict()
        for game in saved["games"]:
            forgotten = {
                "events": game["events"][:0],
                "counts": dict.fromkeys(game["counts"], 0),
                "rng": np.random.default_rng(99).bit_generator.state,
            }
            game[self.forget] = forgotten[self.forget]
        return saved


class SamplingServer(ScriptedChatServer):
    """The scripted server, but a prompt asked again may get another command, as from a model that samples
    (or llama.cpp, whose logits vary with the request before): each reply also hashes the number of requests
    before it."""

    def _answer(self, messages: list[dict]) -> dict:
        last = max(i for i, m in enumerate(messages) if m.get("role") == "user")
        told = {**messages[last], "content": f"{messages[last]['content']}\n\n(request {len(self.log)})"}
        return super()._answer([*messages[:last], told, *messages[last + 1 :]])


def test_against_a_sampling_server_the_check_allows_for_other_replies_with_same_replies():
    """Two agents alike get other replies to the same prompts: the check fails on the server's account
    unless a request asked again gets the reply it got the first time."""
    with SamplingServer(["valid"]) as server:
        options = {"base_url": server.url, "backoff_s": 0.0}
        with pytest.raises(AgentCheckError, match=r"^determinism: two agents LLMAgent"):
            check_agent("llm", options=options)
        check_agent("llm", options=options, same_replies=True)
    with pytest.raises(ValueError, match="same_replies must be True or False, got 'yes'"):
        check_agent("random", same_replies="yes")


def test_same_replies_is_one_block_at_a_time_and_a_block_ends_its_own_memo():
    """Two blocks in overlapping threads (two checks at once) shared one memo: the second took it over, and
    the first's end restored none, the second's the first's, which then answered every later request."""
    opened, close, refused = threading.Event(), threading.Event(), []

    def another_check() -> None:
        try:
            with same_replies():
                opened.set()
                close.wait(5)
        except RuntimeError as error:
            refused.append(str(error))
            opened.set()

    asked = [{"role": "user", "content": "Legal commands:\n- roll\n- end turn"}]
    with ScriptedChatServer(["valid"]) as server:
        client = ChatClient(server.url, "m", api_key_env=None, backoff_s=0.0)
        other = threading.Thread(target=another_check)
        with same_replies():
            other.start()
            opened.wait(5)
            client.complete(asked)
            client.complete(asked)
            assert len(server.log) == 1  # asked again, answered from this block's memo
        close.set()
        other.join()
        assert len(refused) == 1 and "same_replies() is already open" in refused[0]
        client.complete(asked)  # out of every block: the server is asked
        client.complete(asked)
        assert len(server.log) == 3
        client.close()


@pytest.mark.parametrize(
    ("forget", "script", "options"),
    [
        ("events", ["valid"], {}),  # the prompts lose the game's history
        ("rng", ["malformed"], {"max_invalid_replies": 0}),  # every decision the fallback's random choice
        ("counts", ["malformed"], {"max_invalid_replies": 0, "forfeit_after": 4}),  # the forfeits forgotten
    ],
)
def test_with_same_replies_the_check_still_catches_an_llm_agent_that_leaves_notes_out_of_state_dict(
    forget, script, options
):
    with SamplingServer(script) as server:
        agent = Forgetful(forget, base_url=server.url, backoff_s=0.0, concurrency=1, **options)
        with pytest.raises(
            AgentCheckError, match=r"^round trips: after load_state_dict\(state_dict\(\)\), LLMAgent"
        ):
            check_agent(agent, same_replies=True)


class SeedTeller(LLMAgent):
    """Tells the model each game's deal seed, which deals every hand again: it reads what it may not see."""

    def _decide(self, state: core.State, b: int, legal: np.ndarray) -> int:
        decision = self.prompts["decision"]  # (one request at a time: concurrency=1)
        told = string.Template(f"Game {int(state.seed[b])}.\n{decision.template}")
        self.prompts = {**self.prompts, "decision": told}
        try:
            return super()._decide(state, b, legal)
        finally:
            self.prompts = {**self.prompts, "decision": decision}


def test_with_same_replies_the_check_still_catches_an_llm_agent_that_reads_the_seed():
    with SamplingServer(["valid"]) as server:
        agent = SeedTeller(base_url=server.url, backoff_s=0.0, concurrency=1)
        with pytest.raises(
            AgentCheckError, match=r"^hidden information: LLMAgent.* reads what it may not see"
        ):
            check_agent(agent, same_replies=True)


def test_a_pickled_agent_holds_no_api_key_and_reads_it_again(monkeypatch):
    """A pickle (a checkpoint, a worker's copy) is a file people move around: the key stays in the environment."""
    monkeypatch.setenv("CLUEDO_TEST_KEY", "sk-test-pickled-123")
    agent = LLMAgent(base_url="http://127.0.0.1:9/v1", api_key_env="CLUEDO_TEST_KEY")
    pickled = pickle.dumps(agent)
    assert b"sk-test-pickled-123" not in pickled
    monkeypatch.setenv("CLUEDO_TEST_KEY", "sk-test-other-456")
    for copied in (pickle.loads(pickled), copy.deepcopy(agent)):
        assert copied.client._http.headers["authorization"] == "Bearer sk-test-other-456"
        assert copied.client.url == agent.client.url and copied._pool is None
        copied.close()
    agent.close()
    # A password or a key in base_url (user info, a query value) was written into the pickle: refused
    for base_url, secret in (
        ("http://alice:hunter2secretpw@127.0.0.1:9/v1", "hunter2secretpw"),
        ("http://127.0.0.1:9/v1?key=QUERYSECRET123456", "QUERYSECRET123456"),
        ("http://127.0.0.1:9/v1?code=AZFUNCKEYabcdef", "AZFUNCKEYabcdef"),
    ):
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        agent = LLMAgent(base_url=base_url)
        with pytest.raises(TypeError, match=r"cannot be pickled .*pass the key in api_key_env") as refused:
            pickle.dumps(agent)
        assert secret not in str(refused.value)
        # A deep copy (in memory) keeps it. A key set since is read again, but beside a user and password
        # (sent as Basic) it is not: the copy raised ValueError, the two together being refused
        monkeypatch.setenv("OPENAI_API_KEY", "sk-set-since-123456")
        copied = copy.deepcopy(agent)
        assert copied.client._options["base_url"] == base_url
        bearer = None if "@" in base_url else "Bearer sk-set-since-123456"
        assert copied.client._http.headers.get("authorization") == bearer
        copied.close()
        agent.close()


def test_a_copy_of_the_local_model_agent_asks_its_own_processs_server(monkeypatch):
    """``model="local"`` plays through a server its process starts: a copy unpickled in another process (a
    worker's) must ask that process's server, at its next decision or game. It kept the original's port,
    where nothing answers once the original's process has ended: every decision a fallback."""
    copies: list[tuple[bytes, core.State]] = []
    with ScriptedChatServer(["valid"]) as first:
        served = SimpleNamespace(url=first.url, running=True)  # a LocalServer, to the agent
        monkeypatch.setattr(llm_agent, "shared_server", lambda model_file: served)
        agent = LLMAgent(seed=5, model="local", api="chat", prompts="default", backoff_s=0.0, concurrency=1)

        def keep_a_copy(state: core.State) -> None:
            if not copies and agent.game_reports()[0][0]["replies"] and state.current_player[0] == 0:
                copies.append((pickle.dumps(agent), copy.deepcopy(state)))  # mid-game, its turn to decide

        play_batch(CONFIG, [agent, NotepadAgent(1), NotepadAgent(2)], seeds=[0], on_step=keep_a_copy)
        agent.close()
    with ScriptedChatServer(["valid"]) as own:  # another process: the first server gone, its own answering
        served = SimpleNamespace(url=own.url, running=True)
        monkeypatch.setattr(llm_agent, "shared_server", lambda model_file: served)
        pickled, state = copies[0]
        mid_game, next_game = pickle.loads(pickled), pickle.loads(pickled)
        legal = core.legal_action_mask(state)
        action = mid_game.act(state, np.array([0]), legal)
        play_batch(CONFIG, [next_game, NotepadAgent(1), NotepadAgent(2)], seeds=[1])
        for copied in (mid_game, next_game):
            assert copied.client.url.startswith(own.url + "/")
            copied.close()
    assert legal[0, action[0]] and mid_game.game_reports()[0][0]["fallbacks"] == 0
    counts = next_game.game_reports()[0][0]
    assert counts["replies"] == counts["decisions"] > 0 and counts["fallbacks"] == 0


def test_network_failures_are_retried_and_counted():
    with ScriptedChatServer(["valid"], fail_first=3) as server:
        agent, _ = play(server, seeds=(0,), concurrency=1)
    t = totals(agent)
    assert t["network_retries"] == 3 and t["invalid_replies"] == 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_endpoint_that_never_answered_is_tried_twice_then_named_with_how_to_start_one():
    url = f"http://127.0.0.1:{free_port()}/v1"
    client = ChatClient(url, "m", network_retries=5, backoff_s=0.0, timeout_s=5)
    with pytest.raises(ChatUnreachable, match="nothing answers at") as caught:
        client.complete([{"role": "user", "content": "hi"}])
    assert caught.value.network_retries == 1  # one retry, not five
    assert f"{url}/chat/completions (ConnectError" in str(caught.value) and "[local-llm]" in str(caught.value)
    client.close()
    once = ChatClient(url, "m", network_retries=0, backoff_s=0.0, timeout_s=5)  # no retry asked: at once
    with pytest.raises(ChatUnreachable, match="nothing answers at") as caught:
        once.complete([{"role": "user", "content": "hi"}])
    assert caught.value.network_retries == 0
    once.close()


def test_a_server_that_answered_and_went_down_raises_after_all_its_retries():
    with ScriptedChatServer(["valid"]) as server:
        client = ChatClient(server.url, "m", network_retries=2, backoff_s=0.0, timeout_s=5)
        client.complete([{"role": "user", "content": "Your legal commands:\n- roll\n"}])
    with pytest.raises(ChatError, match="failed 3 times") as caught:  # a restarting server: wait it out
        client.complete([{"role": "user", "content": "hi"}])
    assert not isinstance(caught.value, ChatUnreachable)
    client.close()


def test_a_refused_request_raises_at_once():
    with ScriptedChatServer(["valid"]) as server:
        client = ChatClient(server.url.replace("/v1", "/nowhere/v0"), "m", network_retries=5, backoff_s=10.0)
        with pytest.raises(ChatError, match="HTTP 404"):
            client.complete([{"role": "user", "content": "hi"}])
        client.close()


def test_the_api_key_comes_from_the_environment(monkeypatch):
    with ScriptedChatServer(["valid"]) as server:
        monkeypatch.setenv("CLUEDO_TEST_KEY", "sk-test-123")
        client = ChatClient(server.url, "m", api_key_env="CLUEDO_TEST_KEY")
        assert client._http.headers["authorization"] == "Bearer sk-test-123"
        reply = client.complete([{"role": "user", "content": "Your legal commands:\n- roll\n"}])
        assert (reply.text, reply.network_retries) == ("roll", 0) and reply.completion_tokens == 1
        client.close()
        monkeypatch.delenv("CLUEDO_TEST_KEY")
        assert "authorization" not in ChatClient(server.url, "m", api_key_env="CLUEDO_TEST_KEY")._http.headers


def test_bad_options_are_named():
    with pytest.raises(ValueError, match="fallback must be one of"):
        LLMAgent(fallback="guess")
    with pytest.raises(ValueError, match="concurrency"):
        LLMAgent(concurrency=0)
    with pytest.raises(ValueError, match="base_url must be an http"):
        LLMAgent(base_url="127.0.0.1:8000")
    with pytest.raises(ValueError, match="prompts must be one of"):
        LLMAgent(prompts="no-such-prompts")
    assert isinstance(make_agent("llm", base_url="http://127.0.0.1:8000/v1"), LLMAgent)


@pytest.mark.parametrize(
    ("decision", "said"),
    [("What now? $veiw", r"decision.txt uses \['\$veiw'\]; its placeholders are \['\$view'\]"),
     ("Pay $5 to see $view", r"decision.txt has a '\$' that starts no placeholder")],
)  # fmt: skip
def test_a_prompt_folder_with_a_wrong_placeholder_is_refused_when_it_loads(tmp_path, decision, said):
    """Before: a KeyError at the first decision of a tournament."""
    from agents.llm.llm_agent import PROMPTS_DIR

    for name in ("system", "retry"):
        (tmp_path / f"{name}.txt").write_text((PROMPTS_DIR / "default" / f"{name}.txt").read_text())
    (tmp_path / "decision.txt").write_text(decision)
    with pytest.raises(ValueError, match=said):
        LLMAgent(prompts=str(tmp_path))
    (tmp_path / "decision.txt").write_text("Pay $$5 to see $view")
    assert LLMAgent(prompts=str(tmp_path)).prompts["decision"].substitute(view="V") == "Pay $5 to see V"


def test_a_port_in_use_is_named_with_another_to_choose(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SystemExit) as exited:
            scripted_chat_server.main(["--port", str(port)])
    said = capsys.readouterr().err
    assert exited.value.code == 2 and "Traceback" not in said
    assert f"cannot listen on 127.0.0.1:{port}" in said and "choose another --port" in said
    with pytest.raises(SystemExit):
        scripted_chat_server.main(["--port", "70000"])  # not a port: named the same way
    assert "cannot listen on 127.0.0.1:70000" in capsys.readouterr().err


def test_scripted_replies_are_what_they_say():
    config = core.GameConfig()
    state = core.init(config, [0])
    view = text_view(state, int(state.current_player[0]), state.events[0, : state.num_events[0]])
    mask = core.legal_action_mask(state)[0]
    for kind, legal in (("valid", True), ("final", True), ("malformed", False), ("illegal", False)):
        reply = scripted_reply(kind, view)
        if legal:
            parse_command(config, reply, mask)
        else:
            with pytest.raises(ValueError):
                parse_command(config, reply, mask)


def test_a_small_tournament_reports_rates_and_tokens_and_resumes(tmp_path):
    with ScriptedChatServer(["malformed", "final"]) as server:
        spec = AgentSpec("llm", {"base_url": server.url, "backoff_s": 0.0})
        settings = TournamentConfig(
            game=GameSettings(num_players=3, max_turns=20),
            lineup=LineupConfig(agents=[spec, AgentSpec("random")]),
            games_per_lineup=3,
            batch_size=3,
            workers=0,
            progress=False,
            plots=False,
        )
        summary = run_tournament(settings, tmp_path)
        requests = len(server.log)
        again = run_tournament(settings, tmp_path)  # resumed: nothing left to play
        assert len(server.log) == requests
    games = read_games(tmp_path / GAMES_FILE)
    assert len(games) == 6 and all("transcripts" not in g for g in games)
    llm = summary["llm"]["llm"]
    seat_games = sum(len(g["llm"]) for g in games)
    assert llm["games"] == seat_games == sum(g["seats"].count("llm") for g in games)
    assert llm["replies"] == requests == 2 * llm["decisions"]
    assert llm["invalid_reply_rate"] == 0.5 and llm["fallback_rate"] == 0.0
    assert llm["invalid_reply_low"] < 0.5 < llm["invalid_reply_high"]
    tokens = sum(e["prompt_tokens"] + e["completion_tokens"] for e in server.log)
    assert llm["tokens_per_game"] == pytest.approx(tokens / seat_games)
    assert llm["forfeit_rate"] == 0.0 and llm["forfeit_low"] == 0.0 < llm["forfeit_high"]
    waited = sum(g["llm"][seat]["milliseconds"] for g in games for seat in g["llm"])
    assert llm["seconds_per_decision"] == pytest.approx(waited / 1000 / llm["decisions"]) and waited > 0
    assert again["llm"] == summary["llm"]
    transcripts = [
        json.loads(line) for line in (tmp_path / llm_report.TRANSCRIPTS_FILE).read_text().splitlines()
    ]
    assert len(transcripts) == 6
    assert (
        sum(
            len(d["messages"]) for t in transcripts for s in t["transcripts"].values() for d in s["decisions"]
        )
        == 2 * requests
    )  # each request: its prompt and its reply
    report = (tmp_path / "report.md").read_text()
    assert "## Language-model seats" in report and "invalid replies [95% CI]" in report
    assert "win share" in report


def test_a_server_that_goes_down_loses_no_finished_game(tmp_path):
    def settings(url: str) -> TournamentConfig:
        spec = AgentSpec("llm", {"base_url": url, "network_retries": 1, "backoff_s": 0.0})
        return TournamentConfig(
            game=GameSettings(num_players=3, max_turns=12),
            lineup=LineupConfig(agents=[spec, AgentSpec("random")]),
            games_per_lineup=3,
            batch_size=1,
            workers=0,
            progress=False,
            plots=False,
        )

    with ScriptedChatServer(["valid"]) as full:  # how many requests the whole run takes
        run_tournament(settings(full.url), tmp_path / "full")
        needed = len(full.log)
    with ScriptedChatServer(["valid"], fail_after=needed // 2) as down:
        port = down.url.split(":")[-1].split("/")[0]
        with pytest.raises(ChatError):
            run_tournament(settings(down.url), tmp_path / "run")
    kept = read_games(tmp_path / "run" / GAMES_FILE)
    assert 0 < len(kept) < 6
    with ScriptedChatServer(["valid"], port=int(port)) as back:  # the same URL: the same run
        summary = run_tournament(settings(back.url), tmp_path / "run")
        assert 0 < len(back.log) < needed
    games = read_games(tmp_path / "run" / GAMES_FILE)
    assert len(games) == 6 and games[: len(kept)] == kept and summary["games"] == 6
    transcripts = (tmp_path / "run" / llm_report.TRANSCRIPTS_FILE).read_text().splitlines()
    assert len(transcripts) == 6  # the games played before the failure kept theirs too


def test_the_report_counts_forfeited_games_with_an_interval():
    counts = dict.fromkeys(("decisions", "replies", "invalid_replies", "fallbacks"), 4)
    counts |= {"prompt_tokens": 10, "completion_tokens": 2, "milliseconds": 2000, "forfeited": 0}
    games = [{"seats": ["llm", "sat"], "llm": {"0": {**counts, "forfeited": int(k < 3)}}} for k in range(4)]
    llm = llm_report.summarise(games)["llm"]
    assert llm["forfeited"] == 3 and llm["forfeit_rate"] == 0.75
    assert llm["forfeit_low"] < 0.75 < llm["forfeit_high"]
    assert llm["seconds_per_decision"] == 0.5  # 8 s over 16 decisions
    table = llm_report.format_table({"llm": llm})
    assert "games forfeited" in table and "75.0%" in table and "0.50" in table
    assert math.isnan(llm["tokens_per_game_low"])  # 12 tokens in every game: no spread, no interval
    assert "nan" not in table and " 12 " in table


def test_tokens_per_game_have_no_negative_low_end():
    counts = dict.fromkeys(
        ("decisions", "replies", "invalid_replies", "fallbacks", "milliseconds", "forfeited"), 0
    )
    tokens = [100, 120, 90, 110, 95, 105, 300_000]  # one long game: the t interval reaches below 0
    games = [
        {"seats": ["llm"], "llm": {"0": {**counts, "prompt_tokens": t, "completion_tokens": 0}}}
        for t in tokens
    ]
    llm = llm_report.summarise(games)["llm"]
    assert llm["tokens_per_game_low"] == 0.0 < llm["tokens_per_game"] < llm["tokens_per_game_high"]
    assert "[0, " in llm_report.format_table({"llm": llm}) and "[-" not in llm_report.format_table(
        {"llm": llm}
    )
    games = [
        {"seats": ["llm"], "llm": {"0": {**counts, "prompt_tokens": t, "completion_tokens": 0}}}
        for t in tokens[:6]
    ]
    llm = llm_report.summarise(games)["llm"]  # the control: a t interval above 0 is left as it is
    assert (
        90
        < llm["tokens_per_game_low"]
        < llm["tokens_per_game"]
        == 620 / 6
        < llm["tokens_per_game_high"]
        < 120
    )


def test_the_words_guide_example_exchange_is_what_the_scripted_server_says():
    """docs/guides/words.md's exchange, line by line, against a game played with its script."""
    from tests.conftest import ROOT

    guide = (ROOT / "docs" / "guides" / "words.md").read_text()
    block = guide.split("An example exchange:", 1)[1].split("```text\n", 1)[1].split("\n```", 1)[0]
    assert "--script malformed,final" in guide.split("An example exchange:", 1)[1].split("```", 1)[0]
    said: list[tuple[str, str]] = []  # (role, text) with continuation lines joined
    for line in block.splitlines():
        role, _, text = line.partition(":")
        if role.strip() in ("user", "assistant") and not line.startswith(" "):
            said.append((role.strip(), text.strip()))
        else:
            said[-1] = (said[-1][0], f"{said[-1][1]} {line.strip()}")
    with ScriptedChatServer(["malformed", "final"]) as server:
        agent, _ = play(server, seeds=(0,), concurrency=1, max_invalid_replies=1)
    messages = agent.game_reports()[0][1]["decisions"][0]["messages"]
    assert [role for role, _ in said] == [m["role"] for m in messages]
    for (role, text), message in zip(said, messages, strict=True):
        shown = " ".join(message["content"].split())  # the guide wraps lines
        pieces = [piece.strip() for piece in text.split("...") if piece.strip()]
        assert all(piece in shown for piece in pieces), (role, text, shown[-400:])
        if role == "assistant":
            assert text == shown  # the replies in full


def test_every_server_error_is_worth_asking_again_but_those_asking_cannot_mend():
    from agents.llm.chat import RETRY_STATUS

    assert {500, 502, 503, 504, 520, 529, 408, 429} <= RETRY_STATUS  # 529: "overloaded" at some hosts
    assert not {400, 401, 404, 501, 505} & RETRY_STATUS

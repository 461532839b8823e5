"""The language-model solver of reasoning tasks (``agents.llm.solver``) and its likelihood scorer: what
a request that never got a usable reply costs and leaves behind, and options refused when it is built.

Over real HTTP against the scripted server (``experiments.scripted_chat_server``) where a reply is
asked; a scripted client object where the likelihood scorer's requests are.
"""

from __future__ import annotations

import copy as copy_module
import math
import pickle
import threading
from types import SimpleNamespace

import pytest

from agents.llm.chat import ChatReply, ChatReplyError
from agents.llm.likelihood import LikelihoodScorer
from agents.llm.solver import PROMPTS_DIR, LLMSolver, task_rules, task_view
from cluedo_env.reasoning.score import public_view
from cluedo_env.reasoning.splits import load_split, sample_tasks
from experiments.scripted_chat_server import ScriptedChatServer


@pytest.fixture(scope="module")
def tasks():
    return [public_view(task) for task in sample_tasks(load_split("v2", "dev"), 4, seed=0)]


def test_a_request_without_a_usable_reply_counts_its_retries_and_leaves_the_task_unanswered(tasks):
    """A server that answers every attempt with a reply the client refuses (a negative token count): the
    solver raised ChatReplyError with nothing counted, neither the retries nor the unanswered task, and no
    transcript kept (the llm player counts them: ``counts["network_retries"] += error.network_retries``)."""
    with ScriptedChatServer(["answer"], usage={"prompt_tokens": -5}) as server:
        solver = LLMSolver(base_url=server.url, api_key_env=None, network_retries=2, backoff_s=0.0)
        for task in tasks:
            with pytest.raises(ChatReplyError, match=r"usage\.prompt_tokens"):
                solver(task)
        solver.close()
        requests = len(server.log)
    assert requests == 4 * 3  # each task: the request and its 2 retries
    assert solver.counts == {
        "tasks": 4,
        "replies": 0,
        "invalid_replies": 0,
        "unanswered": 4,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "network_retries": 8,
    }
    assert [t["id"] for t in solver.transcripts] == [t["id"] for t in tasks]
    for transcript in solver.transcripts:
        assert not transcript["answered"] and "usage.prompt_tokens" in transcript["error"]
        assert [m["role"] for m in transcript["messages"]] == ["user"]  # the question asked


class ScriptedScores:
    """A ``score_next`` client: the letters' log-probabilities, and a ChatReplyError at call ``fail_at``."""

    def __init__(self, fail_at: int) -> None:
        self.calls = 0
        self.fail_at = fail_at

    def score_next(self, prompt: str, top: int = 20, candidates: tuple[str, ...] = ()) -> ChatReply:
        self.calls += 1
        if self.calls == self.fail_at:
            raise ChatReplyError("no choices[0]", network_retries=3)
        return ChatReply("A", 7, 1, network_retries=1, top_logprobs={"A": math.log(0.7), " B": math.log(0.2)})


def likelihood_prompts():
    from agents.llm.likelihood import LIKELIHOOD_PROMPT_FILES
    from agents.llm.llm_agent import load_prompts

    return load_prompts("likelihood", root=PROMPTS_DIR, files=LIKELIHOOD_PROMPT_FILES)


def test_a_likelihood_request_without_a_usable_reply_is_counted_and_kept(tasks):
    """The third card's request fails for good: its retries, the request and the task, unanswered, are
    counted, and the task's record keeps the cards scored and the error (none of it was)."""
    client = ScriptedScores(fail_at=3)
    scorer = LikelihoodScorer(client, likelihood_prompts(), task_rules, task_view)
    with pytest.raises(ChatReplyError, match="no choices"):
        scorer(tasks[0])
    counts = scorer.counts
    assert (counts["tasks"], counts["requests"], counts["unanswered"]) == (1, 3, 1)
    assert counts["network_retries"] == 1 + 1 + 3 and counts["prompt_tokens"] == 2 * 7
    (record,) = scorer.transcripts
    assert record["id"] == tasks[0]["id"] and [("error" in card) for card in record["cards"]] == [
        False
    ] * 2 + [True]
    answer = scorer(tasks[1])  # the next task is asked and answered as before
    assert answer["probabilities"] and scorer.counts["unanswered"] == 1 and scorer.counts["tasks"] == 2


@pytest.mark.parametrize("top", [0, 101, 2.5, True, "20"])
def test_a_bad_top_is_refused_when_the_scorer_is_built(top):
    """``top`` was checked by each request only: a run built its solver, then every task failed."""
    with pytest.raises(ValueError, match=rf"^top must be an integer in \[1, 100\], got {top!r}$"):
        LikelihoodScorer(ScriptedScores(fail_at=0), likelihood_prompts(), task_rules, task_view, top=top)
    with pytest.raises(ValueError, match="top must be"):
        LLMSolver(api_key_env=None, scoring="likelihood", top=top)


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"temperature": "nan"}, r"^temperature must be a finite number >= 0, got 'nan'$"),
        ({"no_such": 1}, r"^no option no_such in the llm solver; its options are base_url, model, .*, stop$"),
        ({"scoring": "likelihood", "fact_threshold": "high"}, r"fact_threshold must be in \(0\.5, 1\]"),
        ({"max_invalid_replies": True}, "max_invalid_replies must be an integer >= 0, got True"),
        ({"model": "local", "model_file": "/no/such/model.gguf"}, "model_file must name a GGUF file"),
    ],
)
def test_bad_options_are_refused_when_the_solver_is_built_naming_the_option(options, said):
    with pytest.raises(ValueError, match=said):
        LLMSolver(base_url="http://alice:pw@127.0.0.1:9/v1", api_key_env=None, **options)


def test_a_local_solver_copies_without_its_server(monkeypatch):
    """A solver sent to another process (or copied) leaves its process's server behind: the copy asks its
    own process's at its next task."""
    from agents.llm import solver as solver_module

    server = SimpleNamespace(url="http://127.0.0.1:9/v1", running=True, lock=threading.Lock())  # a process
    monkeypatch.setattr(solver_module, "shared_server", lambda *a, **k: server)
    solver = LLMSolver(
        model="local", scoring="generation", local_backend="server", api="chat", api_key_env=None
    )
    solver._start_local()
    assert solver._local_server is server
    for copy in (pickle.loads(pickle.dumps(solver)), copy_module.deepcopy(solver)):
        assert copy._local_server is None and copy.client.url.startswith(server.url)
    assert solver._local_server is server
    solver.close()


def test_the_local_model_is_not_loaded_until_the_first_task(monkeypatch):
    """Building the solver checks its options only, so that a command can check them before it starts
    (the local model's server, or its weights in this process, waited for by the first task)."""
    from agents.llm import solver as solver_module

    started = []
    monkeypatch.setattr(solver_module, "shared_server", lambda *a, **k: started.append(a))
    solver = LLMSolver(model="local", scoring="generation", api="chat", api_key_env=None)
    assert started == [] and solver.model == "local"
    solver.close()

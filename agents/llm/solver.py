"""A language-model solver of reasoning tasks: any OpenAI-compatible endpoint answers from the task's text.

``LLMSolver(base_url=..., model=...)`` is a solver (``solve(task) -> answer``)
like the built-in ones. For each task it sends two messages: a system message
(``system.txt`` with the rules summary of the task's config, the one a
language-model player gets) and a user message (``question.txt`` with the
task's text, the names of the owners and cards, and the answer's form). The
text is the task's ``text``: in ``v2`` tasks the text view a language-model
player is shown at that decision (``cluedo_env.text.text_view``); ``v1`` tasks
hold transcript sentences, shown as that view's hand and history.

The reply must end with a JSON object (best in a fenced ``json`` block): the
answer dict of ``cluedo_env.reasoning.score``. A reply holding no JSON object is
answered with the reason (``retry.txt``) in the same conversation, up to
``max_invalid_replies`` times; after that the task is unanswered (``None``,
scored as an empty answer and reported by the scorer). What the object holds
is left to the scorer: malformed facts or probabilities are scored as wrong or
uniform, never crash.

Counts (``counts``): tasks, replies, invalid replies, unanswered tasks, prompt
and completion tokens, network retries; ``transcripts`` holds per task its id,
the messages after the system message and whether it was answered. Requests go
through ``agents.llm.chat.ChatClient`` (retries with backoff, a deadline and a size
bound per attempt, strict ``usage`` counts). A request that never got a usable
reply (``ChatReplyError``: the server answers but misbehaves) leaves its task
unanswered: the task and the request's network retries are counted, its
transcript is kept with the ``error``, and the error is raised again, which the
benchmark runner scores as an empty answer and reports. A request that fails
for good raises ``ChatError``, which stops the runner.

Likelihood scoring (``scoring="likelihood"``, for base models): no reply is
read; the model's probability of each card's owner, asked through
``/completions`` logprobs and normalised, is the answer
(``agents.llm.likelihood``), scored by its log-loss and calibration against the
exact posterior. Its counts are those of ``agents.llm.likelihood.COUNTS``.
``model="local"`` answers with the local model (``agents.llm.local_model``,
loaded or served at the first task, not when the solver is built),
by likelihood unless ``scoring`` says otherwise (it is a base model: asked
for JSON it only rambles); its likelihoods are read in this process
(``local_backend="in_process"``, ``agents.llm.local_logits``: 0.1-0.2 s a card)
unless ``local_backend="server"`` asks its llama.cpp server's ``/v1/completions``
logprobs (about 10 s a card on 2 loaded cores, and values that depend on the
request before: see that module). Served, it makes sure at each task that the
server runs (one found dead is started again, with a warning naming its kept
log); a request that fails for good because the server died meanwhile raises a
``ChatError`` that names the dead server and its kept log (a task half asked is
not asked again: a resumed run asks it whole).

Prompt templates (``string.Template``: ``$rules``; ``$view``, ``$me``,
``$owners``, ``$owners_note`` (``owners_note``: how the owners are named in the
text, and in a duel what the ``table`` is), ``$cards``; ``$error``) are the files of
``agents/llm/solver_prompts/<name>/`` (shipped: ``default``) or of a folder of
your own holding ``system.txt``, ``question.txt`` and ``retry.txt``.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Mapping
from pathlib import Path
from string import Template
from typing import Any

from agents.llm.chat import REPLY_COUNTS, ChatClient, ChatError, ChatReplyError, add_reply_counts
from agents.llm.likelihood import LIKELIHOOD_PROMPT_FILES, LikelihoodScorer
from agents.llm.llm_agent import load_prompts
from agents.llm.local_model import LOCAL_MODEL_NAME, LocalServer, lost_server, shared_server
from cluedo_env import core
from cluedo_env.core.config import CORNER_ROOMS
from cluedo_env.core.editions import Edition
from cluedo_env.reasoning.score import ANSWER_KEYS
from cluedo_env.text import rules_summary

__all__ = ["COUNTS", "LLMSolver", "owners_note", "read_answer", "solver_messages", "task_rules", "task_view"]

PROMPTS_DIR = Path(__file__).resolve().parent / "solver_prompts"
# Each template of a prompt set, with the placeholders it may use.
PROMPT_FILES = {
    "system": ("rules",),
    "question": ("view", "me", "owners", "owners_note", "cards"),
    "retry": ("error",),
}
SCORINGS = ("generation", "likelihood")
COUNTS = ("tasks", "replies", "invalid_replies", "unanswered", *REPLY_COUNTS)
ANSWER_FORMS = {"facts": list, "envelope": (list, str), "probabilities": dict}  # (read_answer)
# The options of ChatClient that the solver passes on (**chat); base_url, model and api are its own.
CHAT_OPTIONS = tuple(
    name for name in inspect.signature(ChatClient).parameters if name not in ("base_url", "model", "api")
)
_FENCED = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)


def read_answer(reply: str) -> dict[str, Any]:
    """The answer dict at the end of a reply: the last fenced JSON object, else the last outermost one,
    that holds at least one of the answer's keys (``ANSWER_KEYS``) with a value of its form: a list of
    ``facts``, an ``envelope`` list or string, a dict of ``probabilities``.

    An object that does not decode (cut short, or not JSON) is no answer; neither is a piece of it
    (the ``probabilities`` of one card, whose owners may include ``"envelope"`` with a number), so a
    reply cut at ``max_tokens`` asks again.

    Raises:
        ValueError: the reply holds no such JSON object.
    """

    def answer(value: Any) -> bool:
        return isinstance(value, dict) and any(
            isinstance(value.get(key), ANSWER_FORMS[key]) for key in ANSWER_KEYS
        )

    for candidate in reversed(_FENCED.findall(reply)):
        try:
            value = json.loads(candidate)
        except (json.JSONDecodeError, RecursionError):  # (brackets nested deeper than json reads)
            continue
        if answer(value):
            return value
    decoder, found, start = json.JSONDecoder(), None, reply.find("{")
    while start >= 0:  # outermost objects, left to right: the last one wins
        try:
            value, end = decoder.raw_decode(reply, start)
        except (json.JSONDecodeError, RecursionError):
            start = reply.find("{", start + 1)
            continue
        if answer(value):
            found = value
            start = reply.find("{", end)
        else:  # not the answer: an object inside it may be (a reply that wraps its answer)
            start = reply.find("{", start + 1)
    if found is not None:
        return found
    raise ValueError(
        f"the reply holds no JSON object with any of the keys {', '.join(ANSWER_KEYS)}; "
        "end it with the answer object in a ```json block"
    )


def task_rules(task: Mapping[str, Any]) -> str:
    """The rules summary of a task's config: the task's own (``v2``), else made from its ``config`` and
    ``cards`` (``v1`` tasks hold none).

    A task names its edition by name only, a custom one too, which ``GameConfig`` does not know: the
    edition is rebuilt from the task's card names. Where the weapons start is not in a task, nor in the
    rules summary: they are put in the rooms in turn.
    """
    if task.get("rules"):
        return task["rules"]
    cards = task["cards"]
    rooms = len(cards["rooms"])
    edition = Edition(
        str(task["config"]["edition"]),
        cards["suspects"],
        cards["weapons"],
        cards["rooms"],
        tuple(k % rooms for k in range(len(cards["weapons"]))),
    )
    return rules_summary(core.GameConfig(**{**task["config"], "edition": edition}))


def owners_note(task: Mapping[str, Any]) -> str:
    """How the answer's owners are named in the text: ``"player 2" is P2 in the text; "envelope" is the
    envelope.`` (``"player 1"`` in a duel, whose ``"table"`` is said too: the face-down cards, by room)."""
    last = min(2, len(task["players"]) - 1)
    note = f'"player {last}" is P{last} in the text; "envelope" is the envelope'
    if task["config"].get("duel"):
        rooms = [task["cards"]["rooms"][r] for r in CORNER_ROOMS]
        note += (
            f'; "table" is the {len(rooms)} cards lying face down, one on each of the '
            f"{', the '.join(rooms[:-1])} and the {rooms[-1]} (no player holds them)"
        )
    return note + "."


def task_view(task: Mapping[str, Any]) -> str:
    """The task's text: the text view (``v2``), or a ``v1`` task's sentences under its hand."""
    if isinstance(task["text"], str):
        return task["text"]
    me = task["players"][task["observer"]]
    lines = "\n".join(f"- {line}" for line in task["text"]) or "- nothing yet"
    return f"You are {me}.\n\nYour cards: {', '.join(task['hand']) or 'none'}.\n\nWhat you have seen so far:\n{lines}"


def solver_messages(task: Mapping[str, Any], prompts: Mapping[str, Template]) -> list[dict[str, str]]:
    """The system and user messages that ask a model a task (its public view), from the templates
    ``prompts`` (``system`` and ``question``; ``load_prompts`` of a set of ``PROMPTS_DIR``)."""
    owners = [*task["players"], "envelope"] + (["table"] if task["config"].get("duel") else [])
    cards = [card for group in ("suspects", "weapons", "rooms") for card in task["cards"][group]]
    question = prompts["question"].substitute(
        view=task_view(task),
        me=task["players"][task["observer"]],
        owners=", ".join(owners),
        owners_note=owners_note(task),
        cards=", ".join(cards),
    )
    return [
        {"role": "system", "content": prompts["system"].substitute(rules=task_rules(task))},
        {"role": "user", "content": question},
    ]


class LLMSolver:
    """Answers reasoning tasks with a chat model (see the module docstring).

    Args:
        base_url: The endpoint's API root (e.g. ``http://127.0.0.1:8000/v1`` for a local vLLM server).
        model: The model name.
        max_invalid_replies: Times a reply without a JSON object is answered with the reason and asked again.
        prompts: A shipped prompt set (``"default"``: ``default``, or ``likelihood`` when scoring so) or a
            folder of templates.
        scoring: ``"generation"`` (a JSON answer in words) or ``"likelihood"`` (see the module docstring;
            None: ``"likelihood"`` for ``model="local"``, else ``"generation"``).
        api: ``"chat"`` or ``"completions"`` for generation (None: ``"completions"`` for the local model).
        top: Likelihood: the most likely first tokens asked for per card (an integer in ``[1, 100]``).
        fact_threshold: Likelihood: the probability from which a fact is claimed (None: no facts).
        model_file: ``model="local"``: the GGUF to serve, a file that exists (None: the packaged model).
        local_backend: ``model="local"``, likelihood: ``"in_process"`` or ``"server"`` (see the module
            docstring).
        **chat: Options of ``agents.llm.chat.ChatClient`` (``CHAT_OPTIONS``: ``api_key_env``, ``temperature``,
            ``max_tokens``, ``timeout_s``, ``network_retries``, ``backoff_s``, ``max_reply_bytes``, ``stop``);
            ``max_tokens`` defaults to 4096 and ``timeout_s`` to 300 here, since an answer lists many facts.

    Raises:
        ValueError: an option the solver does not have, or a bad value, named (every option is checked
            here; nothing is sent or started).
    """

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000/v1",
        model: str = "default",
        max_invalid_replies: int = 1,
        prompts: str = "default",
        scoring: str | None = None,
        api: str | None = None,
        top: int = 20,
        fact_threshold: float | None = 0.99,
        model_file: str | None = None,
        local_backend: str = "in_process",
        **chat: Any,
    ) -> None:
        unknown = sorted(map(str, set(chat) - set(CHAT_OPTIONS)))
        if unknown:
            known = [
                *(name for name in inspect.signature(LLMSolver).parameters if name != "chat"),
                *CHAT_OPTIONS,
            ]
            raise ValueError(
                f"no option {', '.join(unknown)} in the llm solver; its options are {', '.join(known)}"
            )
        if (
            isinstance(max_invalid_replies, bool)
            or not isinstance(max_invalid_replies, int)
            or max_invalid_replies < 0
        ):
            raise ValueError(f"max_invalid_replies must be an integer >= 0, got {max_invalid_replies!r}")
        local = model == LOCAL_MODEL_NAME
        scoring = scoring or ("likelihood" if local else "generation")
        if scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {list(SCORINGS)}, got {scoring!r}")
        if local_backend not in ("in_process", "server"):
            raise ValueError(f"local_backend must be 'in_process' or 'server', got {local_backend!r}")
        if local and model_file is not None and not Path(str(model_file)).expanduser().is_file():
            raise ValueError(f"model_file must name a GGUF file, got {model_file!r}: no such file")
        if local and model_file is not None:  # the same file after a chdir, in a copy too
            model_file = Path(str(model_file)).expanduser().resolve()
        api = api or ("completions" if local else "chat")
        options = {"max_tokens": 4096, "timeout_s": 300.0, **chat}
        self.client: Any = ChatClient(base_url, model, api=api, **options)  # checks the options
        # model=local: the model is loaded or served at the first task (not by a check that builds the solver)
        self._local = (model_file, api, options, local_backend) if local else None
        self._local_server: LocalServer | None = None  # the local server the client asks
        self.model = model
        self.scoring = scoring
        self.max_invalid_replies = max_invalid_replies
        if scoring == "likelihood":
            self.prompts = load_prompts(
                "likelihood" if prompts == "default" else prompts,
                root=PROMPTS_DIR,
                files=LIKELIHOOD_PROMPT_FILES,
            )
            self.scorer: LikelihoodScorer | None = LikelihoodScorer(
                self.client, self.prompts, task_rules, task_view, top=top, fact_threshold=fact_threshold
            )
            self.counts = self.scorer.counts
            self.transcripts = self.scorer.transcripts
            return
        self.scorer = None
        self.prompts = load_prompts(prompts, root=PROMPTS_DIR, files=PROMPT_FILES)
        self.counts = dict.fromkeys(COUNTS, 0)
        self.transcripts: list[dict[str, Any]] = []

    def _start_local(self) -> None:
        """The local model, loaded in this process once (likelihood, ``in_process``), or served: its server,
        started again if found dead."""
        model_file, api, options, backend = self._local
        if self.scoring == "likelihood" and backend == "in_process":
            from agents.llm.local_logits import LocalLogits

            client: Any = LocalLogits(model_file)
            self._local = None
        else:
            server = shared_server(model_file, logprobs=self.scoring == "likelihood")
            if server is self._local_server:  # (one started again may have the dead one's URL)
                return
            client = ChatClient(server.url, LOCAL_MODEL_NAME, api=api, **options)
            self._local_server = server
        self.client.close()
        self.client = client
        if self.scorer is not None:
            self.scorer.client = self.client

    def __call__(self, task: Mapping[str, Any]) -> dict[str, Any] | None:
        """The model's answer to one task (its public view), or None when it gave no readable answer.

        Raises:
            ChatReplyError: a request got no usable reply (counted, the task unanswered, its transcript kept).
            ChatError: the endpoint failed for good.
        """
        if self._local is not None:
            self._start_local()
        try:
            return self._answer(task)
        except ChatReplyError:
            raise
        except ChatError as error:
            server = self._local_server
            if server is None or not lost_server(server):
                raise
            raise ChatError(
                f"{server.died()}: {error}", error.network_retries
            ) from None  # not a user's mistake

    def _answer(self, task: Mapping[str, Any]) -> dict[str, Any] | None:
        if self.scorer is not None:
            return self.scorer(task)
        messages = solver_messages(task, self.prompts)
        self.counts["tasks"] += 1
        answer = None
        try:
            for attempt in range(self.max_invalid_replies + 1):
                reply = self.client.complete(messages)
                add_reply_counts(self.counts, reply)
                self.counts["replies"] += 1
                messages.append({"role": "assistant", "content": reply.text})
                try:
                    answer = read_answer(reply.text)
                    break
                except ValueError as error:
                    self.counts["invalid_replies"] += 1
                    if attempt < self.max_invalid_replies:
                        messages.append(
                            {"role": "user", "content": self.prompts["retry"].substitute(error=error)}
                        )
        except ChatReplyError as error:  # the server answered, never usably: counted as LLMAgent counts it
            self.counts["network_retries"] += error.network_retries
            self.counts["unanswered"] += 1
            self.transcripts.append(
                {"id": task.get("id", ""), "messages": messages[1:], "answered": False, "error": str(error)}
            )
            raise
        self.counts["unanswered"] += answer is None
        self.transcripts.append(
            {"id": task.get("id", ""), "messages": messages[1:], "answered": answer is not None}
        )
        return answer

    def close(self) -> None:
        """Close the connections (the counts and transcripts stay)."""
        self.client.close()

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the local model's server (the copy asks its own process's, from its next task); a
        model loaded in this process is loaded again by the copy."""
        return {**self.__dict__, "_local_server": None}

    def __repr__(self) -> str:
        return f"LLMSolver(model={self.model!r}, url={self.client.url!r}, scoring={self.scoring!r})"

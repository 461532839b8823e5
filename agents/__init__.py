"""The players of Cluedo, every one behind the batched interface of ``agents.base.Agent``.

``baselines`` (random, simple, notepad), ``reasoners`` (SAT, belief, IS-MCTS search), ``ppo``
(the learned policies), ``llm`` (language models through a chat endpoint), ``integrations``
(Stable-Baselines3 and RLlib policies as agents); ``human`` (a person at the terminal) and
``solvers`` (answerers of the reasoning benchmark's tasks). ``registry`` finds an agent by name,
``arena`` plays a batch of games between agents, ``testing`` checks an agent of your own. What
they know is computed by ``cluedo_env.inference``.
"""

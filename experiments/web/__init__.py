"""Cluedo in the browser: a web app (``app``) where a person plays against agents (``session``).

Started by ``python -m experiments.serve``; ``docs/guides/web.md`` is the guide.
"""

"""``python -m experiments.benchmark``."""

from experiments.benchmark import main

main()

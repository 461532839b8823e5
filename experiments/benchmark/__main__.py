"""``python -m experiments.benchmark``; importing this module runs nothing."""

from experiments.benchmark import main

if __name__ == "__main__":
    main()

"""A provisional leaderboard while a tournament runs, from the deal blocks finished so far.

The tournament plays its chunks deal block by deal block, every line-up and seat rotation of a block
before the next (``chunks.plan_chunks``), so the games of the blocks already complete cover every
line-up and seat alike: their win shares are an honest early look at the final ones, with wider
intervals. A block that is still partly played is left out until it is complete.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from cluedo_env.intervals import wilson_interval
from experiments.common.chunks import Chunk
from experiments.common.report_tables import interval_text

__all__ = ["ProvisionalLeaderboard"]


class ProvisionalLeaderboard:
    """Win shares (95% Wilson intervals) over the complete deal blocks of a tournament's ``chunks``.

    ``add(records)`` takes finished games as they come and returns a one-line leaderboard when they
    complete a block and games are still to come (``None`` otherwise).
    """

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.block_of = {
            (c.lineup_id, d, c.rotation): c.first_deal
            for c in chunks
            for d in range(c.first_deal, c.first_deal + c.deals)
        }
        self.left = Counter(self.block_of.values())  # games still to come in each block
        self.total = len(self.block_of)
        self.pending: dict[int, list[dict]] = defaultdict(list)
        self.complete: list[dict] = []
        self.last_deal = -1
        self.counted: set[tuple[str, int, int]] = set()  # (line-up, deal, rotation) of the games counted

    def add(self, records: Iterable[dict]) -> str | None:
        """Count finished games; the leaderboard line if they complete a block before the end."""
        completed = False
        for record in records:
            key = (record["lineup"], record["deal"], record["rotation"])
            block = self.block_of.get(key)
            if block is None or key in self.counted:  # another plan's game (resumed with fewer deals), or
                continue  # a game recorded twice: counted once
            self.counted.add(key)
            self.pending[block].append(record)
            self.left[block] -= 1
            if self.left[block] == 0:
                finished = self.pending.pop(block)
                self.complete += finished
                self.last_deal = max(self.last_deal, *(r["deal"] for r in finished))
                completed = True
        if not completed or len(self.complete) == self.total:
            return None
        return self.line()

    def line(self) -> str:
        """The leaderboard of the complete blocks in one line, best first."""
        seats, wins = Counter(), Counter()
        for record in self.complete:
            seats.update(record["seats"])
            if record["winner"] is not None:
                wins[record["winner"]] += 1
        order = sorted(seats, key=lambda label: (-wins[label] / seats[label], label))
        shares = "; ".join(
            f"{label} {interval_text(wins[label] / seats[label], *wilson_interval(wins[label], seats[label]))}"
            for label in order
        )
        return (
            f"provisional, {len(self.complete):,} of {self.total:,} games (every line-up and seat, deals "
            f"up to {self.last_deal}): {shares} (win share, 95% Wilson)"
        )

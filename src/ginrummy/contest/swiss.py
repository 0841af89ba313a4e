"""Swiss: a fixed number of rounds, each pairing players of equal (or nearest) score who
have not met yet.

Scores: a win 1, a loss 0, a bye 1; a match neither player came to is lost by both.
Before each round the players are ordered by score, then seed; with an odd field the bye
goes to the lowest player in that order who has not had one (one bye a player at most).
The others are paired top down, each with the first player below them they have not met,
backtracking (over the pairs, then over the bye) whenever that leaves someone with nobody
to meet: a rematch happens only when no pairing of the round avoids one, and then the
players are paired top down in order. Whether the players left still have a pairing is a
perfect matching in the graph of who has not met (Edmonds' blossom algorithm), so a round
of 64 is paired in milliseconds even late in a long Swiss, where a plain backtracking
search takes minutes. Standings: score, then Buchholz (the sum of the final scores of the
player's opponents; a bye adds nothing), then seed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ginrummy.contest.common import (
    ContestError,
    Entrant,
    Match,
    PlayedInRounds,
    check_players,
    field_of,
    is_player,
    seed_order,
)

FORMAT = "swiss"


def most_rounds(players: int) -> int:
    """The most rounds a field can play with one bye a player at most and no forced
    rematch in a round robin: ``players - 1``, or ``players`` for an odd field."""
    return players - 1 + players % 2


@dataclass(frozen=True)
class SwissRound:
    """One round: its pairs (the better placed player first), the player with the bye
    (``None`` for an even field), each pair's winner (``None`` while unplayed) and the
    pairs that both lost (``void``: neither came, neither scores)."""

    pairs: tuple[tuple[int, int], ...]
    bye: int | None
    winners: tuple[int | None, ...]
    void: tuple[int, ...] = ()

    @property
    def complete(self) -> bool:
        """True once every pair has its result."""
        return all(w is not None or i in self.void for i, w in enumerate(self.winners))


def _find_augmenting_end(root: int, alive: Sequence[int], alive_set: set[int],
                         neighbours: Mapping[int, Sequence[int]], match: dict[int, int],
                         parent: dict[int, int]) -> int | None:
    """Edmonds' search from an unmatched ``root`` for an augmenting path among ``alive``
    (blossoms shrunk to their base): the path's other end, its steps left in ``parent``,
    or ``None`` when there is none (then no matching ever covers ``root``)."""
    base = {v: v for v in alive}
    used = {root}
    queue = deque([root])

    def common_base(a: int, b: int) -> int:
        seen = set()
        while True:
            a = base[a]
            seen.add(a)
            if a not in match:
                break
            a = parent[match[a]]
        while True:
            b = base[b]
            if b in seen:
                return b
            b = parent[match[b]]

    def mark_path(v: int, top: int, child: int, blossom: set[int]) -> None:
        while base[v] != top:
            blossom.add(base[v])
            blossom.add(base[match[v]])
            parent[v] = child
            child = match[v]
            v = parent[match[v]]

    while queue:
        v = queue.popleft()
        for to in neighbours[v]:
            if to not in alive_set or base[v] == base[to] or match.get(v) == to:
                continue
            if to == root or (to in match and match[to] in parent):
                top = common_base(v, to)
                blossom: set[int] = set()
                mark_path(v, top, to, blossom)
                mark_path(to, top, v, blossom)
                for other in alive:
                    if base[other] in blossom:
                        base[other] = top
                        if other not in used:
                            used.add(other)
                            queue.append(other)
            elif to not in parent:
                parent[to] = v
                if to not in match:
                    return to
                used.add(match[to])
                queue.append(match[to])
    return None


def _complete(alive: Sequence[int], neighbours: Mapping[int, Sequence[int]],
              match: dict[int, int]) -> bool:
    """Grow ``match`` (a matching among ``alive``, changed in place) into a perfect one;
    False when ``alive`` has none (Edmonds' blossom algorithm, polynomial)."""
    alive_set = set(alive)
    for root in alive:
        if root in match:
            continue
        parent: dict[int, int] = {}
        end = _find_augmenting_end(root, alive, alive_set, neighbours, match, parent)
        if end is None:
            return False
        while end is not None:  # flip the path's edges
            before = parent[end]
            after = match.get(before)
            match[end], match[before] = before, end
            end = after
    return True


def _pair_without_rematch(order: Sequence[int], met: frozenset[frozenset[int]]
                          ) -> list[tuple[int, int]] | None:
    """Pairs of ``order`` (an even list, best first) in which nobody meets a former
    opponent, each player taken top down with the first one below that still leaves the
    others a full pairing; ``None`` when there is none. (The same pairs as a depth-first
    search with backtracking, found in polynomial time: whether the others still have a
    pairing is a perfect matching, kept and repaired as players are paired.)"""
    neighbours = {v: [u for u in order if u != v and frozenset((u, v)) not in met]
                  for v in order}
    alive = list(order)
    match: dict[int, int] = {}
    if not _complete(alive, neighbours, match):
        return None
    pairs = []
    while alive:
        first = alive[0]
        for other in alive[1:]:
            if frozenset((first, other)) in met:
                continue
            gone = {first, other, match[first], match[other]}
            trial = {v: u for v, u in match.items() if v not in gone}
            rest = [p for p in alive if p not in (first, other)]
            if _complete(rest, neighbours, trial):
                pairs.append((first, other))
                alive, match = rest, trial
                break
        else:  # pragma: no cover - the perfect matching names a partner that works
            raise AssertionError(f"no partner for {first} although a pairing exists")
    return pairs


def pair_round(order: Sequence[int], met: frozenset[frozenset[int]],
               had_bye: frozenset[int]) -> tuple[tuple[tuple[int, int], ...], int | None]:
    """The pairs and the bye of a round for players in pairing ``order`` (best first)."""
    candidates: list[int | None] = [None]
    if len(order) % 2:
        candidates = [p for p in reversed(order) if p not in had_bye]
        if not candidates:
            raise ContestError("every player has had a bye: no round can be paired")
    for bye in candidates:
        rest = [p for p in order if p != bye]
        pairs = _pair_without_rematch(rest, met)
        if pairs is not None:
            return tuple(pairs), bye
    rest = [p for p in order if p != candidates[0]]
    return tuple(zip(rest[::2], rest[1::2], strict=True)), candidates[0]


@dataclass(frozen=True)
class Swiss(PlayedInRounds):
    """A Swiss tournament: the players in seed order, the number of rounds, and the rounds
    paired so far (the last one being played until the tournament is finished)."""

    seeds: tuple[int, ...]
    rounds: int
    played: tuple[SwissRound, ...]

    # ------------------------------------------------------------------ making one
    @classmethod
    def start(cls, entrants: Iterable[Entrant], rounds: int) -> Swiss:
        """A Swiss of ``rounds`` rounds for a field seeded by rating, round 1 paired."""
        return cls.seeded(seed_order(entrants), rounds)

    @classmethod
    def seeded(cls, seeds: Sequence[int], rounds: int) -> Swiss:
        """A Swiss for players already in seed order, round 1 paired."""
        players = check_players(seeds)
        if isinstance(rounds, bool) or not isinstance(rounds, int) \
                or not 1 <= rounds <= most_rounds(len(players)):
            raise ContestError(f"{len(players)} players play 1 to "
                               f"{most_rounds(len(players))} Swiss rounds, not {rounds!r}")
        return cls(players, rounds, ())._pair_next()

    # ------------------------------------------------------------------ reading it
    def score(self, player: int) -> int:
        """Points so far: one a win, one for the bye."""
        return sum((r.bye == player) + sum(w == player for w in r.winners)
                   for r in self.played)

    def opponents(self, player: int) -> tuple[int, ...]:
        """Everyone the player has been paired with, in round order."""
        return tuple(b if a == player else a for r in self.played for a, b in r.pairs
                     if player in (a, b))

    def buchholz(self, player: int) -> int:
        """The sum of the scores of the player's opponents (the bye adds nothing)."""
        return sum(self.score(o) for o in self.opponents(player))

    def standings(self) -> tuple[int, ...]:
        """Every player, best first: score, then Buchholz, then seed."""
        return tuple(sorted(self.seeds, key=lambda p: (
            -self.score(p), -self.buchholz(p), self.seeds.index(p))))

    def _met(self) -> frozenset[frozenset[int]]:
        return frozenset(frozenset(pair) for r in self.played for pair in r.pairs)

    def matches(self, round: int) -> tuple[Match, ...]:
        """A paired round's matches, the bye last (as a one-player match it has won)."""
        if not 0 <= round < len(self.played):
            raise ContestError(f"round {round} is not paired (rounds paired: "
                               f"{len(self.played)})")
        played = self.played[round]
        found = [Match(round, i, pair, w, i in played.void)
                 for i, (pair, w) in enumerate(zip(played.pairs, played.winners, strict=True))]
        if played.bye is not None:
            found.append(Match(round, len(played.pairs), (played.bye,), played.bye))
        return tuple(found)

    def pending(self) -> tuple[Match, ...]:
        """The matches to play now."""
        round = self.current_round
        return () if round is None else tuple(m for m in self.matches(round) if m.pending)

    # ------------------------------------------------------------------ results
    def _pair_next(self) -> Swiss:
        """This Swiss with its next round paired, if its last is complete and one is left."""
        if not self._next_round_due():
            return self
        order = sorted(self.seeds, key=lambda p: (-self.score(p), self.seeds.index(p)))
        had_bye = frozenset(r.bye for r in self.played if r.bye is not None)
        pairs, bye = pair_round(order, self._met(), had_bye)
        return replace(self, played=(*self.played,
                                     SwissRound(pairs, bye, (None,) * len(pairs))))

    def _open_match(self, round: int, index: int) -> SwissRound:
        """The round of a match that can take its result (else :class:`ContestError`)."""
        if round != self.current_round:
            raise ContestError(f"round {round} is not the round being played "
                               f"({self.current_round})")
        played = self.played[round]
        if isinstance(index, bool) or not isinstance(index, int) \
                or not 0 <= index < len(played.pairs):
            raise ContestError(f"round {round} has no match {index!r}")
        if played.winners[index] is not None or index in played.void:
            raise ContestError(f"match {index} of round {round} has its result already")
        return played

    def record(self, round: int, index: int, winner: int) -> Swiss:
        """The Swiss with a match's result; the last one of a round pairs the next."""
        played = self._open_match(round, index)
        if not is_player(winner) or winner not in played.pairs[index]:
            raise ContestError(f"{winner!r} does not play match {index} of round {round} "
                               f"({played.pairs[index]})")
        winners = list(played.winners)
        winners[index] = winner
        done = replace(played, winners=tuple(winners))
        return replace(self, played=(*self.played[:round], done))._pair_next()

    def record_both_lost(self, round: int, index: int) -> Swiss:
        """The Swiss with a match that both players lost (neither came: no point for
        either, each still counts as the other's opponent); may pair the next round."""
        played = self._open_match(round, index)
        done = replace(played, void=tuple(sorted((*played.void, index))))
        return replace(self, played=(*self.played[:round], done))._pair_next()

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        """Plain JSON: the format, the seeds, the rounds and each paired round."""
        return {"format": FORMAT, "seeds": list(self.seeds), "rounds": self.rounds,
                "played": [{"pairs": [list(p) for p in r.pairs], "bye": r.bye,
                            "winners": list(r.winners), "void": list(r.void)}
                           for r in self.played]}

    @classmethod
    def from_json(cls, data: Any) -> Swiss:
        """The Swiss of :meth:`to_json`. Its pairings are taken as stored (a stored round
        is never paired again) and checked: everyone plays once a round or has its bye,
        one bye a player at most, each winner one of its pair, only the last round open."""
        if field_of(data, "format", str) != FORMAT:
            raise ContestError(f"not a Swiss: {data.get('format')!r}")
        start = cls.seeded(field_of(data, "seeds", list), field_of(data, "rounds", int))
        rounds = field_of(data, "played", list)
        if not 1 <= len(rounds) <= start.rounds:
            raise ContestError(f"{len(rounds)} rounds paired of {start.rounds}")
        swiss = replace(start, played=())
        for number, stored in enumerate(rounds):
            pairs = field_of(stored, "pairs", list)
            bye = stored.get("bye")
            if not all(isinstance(p, list) and len(p) == 2 and all(map(is_player, p))
                       for p in pairs) or not (bye is None or is_player(bye)):
                raise ContestError(f"round {number}: a pair is not two players: {pairs}, "
                                   f"bye {bye!r}")
            present = [p for pair in pairs for p in pair] + ([] if bye is None else [bye])
            if sorted(present) != sorted(swiss.seeds):
                raise ContestError(f"round {number} does not seat every player once: "
                                   f"{pairs}, bye {bye}")
            if bye is not None and any(r.bye == bye for r in swiss.played):
                raise ContestError(f"round {number}: {bye} has had a bye already")
            if len(swiss.seeds) % 2 != (bye is not None):
                raise ContestError(f"round {number}: a bye for an odd field only")
            if swiss.played and not swiss.played[-1].complete:
                raise ContestError(f"round {number} is paired before round {number - 1} "
                                   f"is over")
            paired = SwissRound(tuple((a, b) for a, b in pairs), bye, (None,) * len(pairs))
            swiss = replace(swiss, played=(*swiss.played, paired))
            winners = field_of(stored, "winners", list)
            if len(winners) != len(pairs):
                raise ContestError(f"round {number}: {len(winners)} winners for "
                                   f"{len(pairs)} pairs")
            void = stored.get("void", [])
            if not isinstance(void, list):
                raise ContestError(f"round {number}: void is not a list: {void!r}")
            limited = replace(swiss, rounds=number + 1)  # reading: no new pairing
            for index in void:
                limited = limited.record_both_lost(number, index)
            for index, winner in enumerate(winners):
                if winner is not None:
                    limited = limited.record(number, index, winner)
            swiss = replace(limited, rounds=start.rounds)
        return swiss._pair_next()

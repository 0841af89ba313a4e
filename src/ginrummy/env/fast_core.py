"""The compiled core of :class:`~ginrummy.env.fast_vector.FastVectorGinRummy`: every game of
the batch held in arrays and stepped by numba-compiled functions (needs ``numba``).

It plays exactly what the pure-Python :class:`~ginrummy.env.vector.VectorGinRummy` plays for
the two-player hand it supports (:func:`~ginrummy.env.fast_vector.fast_path_problem` lists
what that is): the first-turn upcard offer (non-dealer first), draws, discards (the card just
taken may not be thrown back), knocks and gins laying the solver's best melds, the
defender's best defence (his least deadwood after layoffs), undercuts, a void hand at two
stock cards, and the same observation and mask rows
(``tests/env/test_env_fast_vector.py`` plays both in lock-step).

A game's numbers live in one row of an int64 matrix (the ``F_*`` columns); hands, known
cards and the discard pile are 52-bit card masks, the deck order and the pile's cards int8
rows. Least deadwood follows the solver's idea (:mod:`ginrummy.solver.melds`): per-suit run
tables, and every choice of sets among the ranks held three or four times.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ginrummy.solver.melds import RUN_COVER, RUN_DEADWOOD

# the columns of the state matrix
F_PHASE = 0
F_TO_MOVE = 1
F_DEALER = 2
F_PASSES = 3
F_STOCK_ONLY = 4
F_STOCK_POS = 5
"""Index in the deck order of the next stock card (the stock holds ``52 - F_STOCK_POS``)."""
F_PILE_LEN = 6
F_TAKEN = 7
F_HAND = 8
"""Seat 0's cards; seat 1's at ``F_HAND + 1``."""
F_KNOWN = 10
F_PILE = 12
"""Every card of the discard pile, as a mask."""
F_KNOCKED = 13
F_KNOCKER = 14
F_KNOCK_DEADWOOD = 15
F_DEFENCE_DEADWOOD = 16
F_DECISIONS = 17
F_NEXT_DEALER = 18
"""The dealer of the game's next deal (drawn ahead, with its deck order)."""
FIELDS = 19

# the parameters (one int64 vector)
P_KNOCK_LIMIT = 0
P_GIN_BONUS = 1
P_UNDERCUT_BONUS = 2
P_TIES_TO_DEFENDER = 3
P_LAYOFF_REACH = 4
P_NO_REDISCARD = 5
P_MAX_DECISIONS = 6
P_TARGET = 7
P_HAND_SIZE = 8
PARAMS = 9

OFFER, DRAW, DISCARD, LAYOFF, OVER = 0, 1, 2, 3, 4
"""Phases, numbered as the observation's one-hot."""

NUM_ACTIONS = 109
OBS_SIZE = 387
_LANE = 8191

_RUN_DEADWOOD = np.array(RUN_DEADWOOD, dtype=np.int64)
_RUN_COVER = np.array(RUN_COVER, dtype=np.int64)


@njit(cache=True, inline="always")
def _bit(card: int) -> int:
    return int(np.int64(1) << np.int64(card))


@njit(cache=True)
def _popcount(mask: int) -> int:
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


@njit(cache=True)
def _lowest(mask: int) -> int:
    index = 0
    while not (mask >> index) & 1:
        index += 1
    return index


@njit(cache=True)
def _runs_deadwood(mask: int) -> int:
    t = _RUN_DEADWOOD
    return int(t[mask & _LANE] + t[(mask >> 13) & _LANE] + t[(mask >> 26) & _LANE]
               + t[(mask >> 39) & _LANE])


@njit(cache=True)
def _set_option(mask: int, rank: int, option: int) -> int:
    """Option ``option`` of a rank's set, as the cards it takes: the full set, then (with
    four) the triples leaving out spades, hearts, diamonds, clubs, then no set (the solver's
    ``_set_removals`` order)."""
    spread = (_bit(rank) | _bit(rank + 13) | _bit(rank + 26) | _bit(rank + 39))
    full = mask & spread
    if full == spread:
        if option == 0:
            return full
        if option <= 4:
            return full ^ _bit(rank + 13 * (option - 1))
        return 0
    return full if option == 0 else 0


@njit(cache=True)
def best_sets(mask: int) -> tuple[int, int]:
    """Least deadwood of ``mask`` and the cards its sets take, the first best choice in the
    solver's order (``best_melds_mask``: ranks low to high, the last rank's choice varying
    fastest, a later choice kept only when strictly better)."""
    s = mask & _LANE
    h = (mask >> 13) & _LANE
    d = (mask >> 26) & _LANE
    c = (mask >> 39) & _LANE
    triples = (s & h & (d | c)) | (d & c & (s | h))
    if not triples:
        return _runs_deadwood(mask), 0
    ranks = np.zeros(4, dtype=np.int64)
    counts = np.ones(4, dtype=np.int64)
    k = 0
    rest = triples
    while rest:
        rank = _lowest(rest)
        rest &= rest - 1
        ranks[k] = rank
        counts[k] = 6 if (s & h & d & c) >> rank & 1 else 2
        k += 1
    best = 1 << 30
    taken = 0
    for i0 in range(counts[0]):
        r0 = _set_option(mask, ranks[0], i0) if k > 0 else 0
        for i1 in range(counts[1]):
            r1 = _set_option(mask, ranks[1], i1) if k > 1 else 0
            for i2 in range(counts[2]):
                r2 = _set_option(mask, ranks[2], i2) if k > 2 else 0
                for i3 in range(counts[3]):
                    r3 = _set_option(mask, ranks[3], i3) if k > 3 else 0
                    removed = r0 | r1 | r2 | r3
                    value = _runs_deadwood(mask ^ removed)
                    if value < best:
                        best = value
                        taken = removed
    return best, taken


@njit(cache=True)
def deadwood(mask: int) -> int:
    """Least deadwood of the cards of ``mask`` (the solver's ``deadwood_mask``)."""
    return best_sets(mask)[0]


@njit(cache=True)
def _add_prefixes(options: np.ndarray, count: int, cards: np.ndarray, length: int,
                  hand: int) -> int:
    """Extend ``options[:count]`` by every prefix of ``cards[:length]`` the hand holds."""
    prefix = 0
    size = count
    for j in range(length):
        card = cards[j]
        if not (hand >> card) & 1:
            break
        prefix |= _bit(card)
        for o in range(count):
            options[size] = options[o] | prefix
            size += 1
    return size


@njit(cache=True)
def defence_deadwood(hand: int, rest: int, reach: int) -> int:
    """The least deadwood ``hand`` keeps after laying off onto the knocker's best melds of
    ``rest`` (the solver's ``best_melds_mask`` choice; ``reach``: how many cards one end of a
    run takes, R4.5): the engine's ``best_defence`` deadwood."""
    best = deadwood(hand)
    if best == 0:
        return 0
    _, taken = best_sets(rest)
    runs = rest ^ taken
    table = taken
    for suit in range(4):
        table |= _RUN_COVER[(runs >> (13 * suit)) & _LANE] << (13 * suit)
    combos = np.zeros(4096, dtype=np.int64)
    combos[0] = 0
    ncombos = 1
    options = np.zeros(256, dtype=np.int64)
    ends = np.zeros(13, dtype=np.int64)
    # sets of three: the fourth card, unless it is on the table (in one of his runs)
    rest_ranks = taken
    while rest_ranks:
        card = _lowest(rest_ranks)
        rank = card % 13
        spread = _bit(rank) | _bit(rank + 13) | _bit(rank + 26) | _bit(rank + 39)
        cards = taken & spread
        rest_ranks &= ~spread
        if _popcount(cards) == 3:
            fourth = spread & ~cards
            if not fourth & table and fourth & hand:
                for o in range(ncombos):
                    combos[ncombos + o] = combos[o] | fourth
                ncombos *= 2
    # runs: each maximal block, extended low and high by prefixes of the cards he holds
    for suit in range(4):
        base = 13 * suit
        covered = _RUN_COVER[(runs >> base) & _LANE]
        while covered:
            lo = _lowest(covered)
            hi = lo
            while hi + 1 < 13 and (covered >> (hi + 1)) & 1:
                hi += 1
            for r in range(lo, hi + 1):
                covered &= ~(1 << r)
            options[0] = 0
            count = 1
            length = 0
            r = lo - 1
            while r >= 0 and length < reach and not (table >> (base + r)) & 1:
                ends[length] = base + r
                length += 1
                r -= 1
            count = _add_prefixes(options, count, ends, length, hand)
            length = 0
            r = hi + 1
            while r < 13 and length < reach and not (table >> (base + r)) & 1:
                ends[length] = base + r
                length += 1
                r += 1
            count = _add_prefixes(options, count, ends, length, hand)
            if count > 1:
                size = ncombos
                for o in range(1, count):
                    for c in range(ncombos):
                        combos[size] = combos[c] | options[o]
                        size += 1
                ncombos = size
    for c in range(1, ncombos):
        value = deadwood(hand ^ combos[c])
        if value < best:
            best = value
    return best


@njit(cache=True)
def deal(state: np.ndarray, decks: np.ndarray, piles: np.ndarray, game: int,
         hand_size: int) -> None:
    """Deal game ``game`` from its deck row and ``F_NEXT_DEALER`` (``Hand.__init__``:
    one card at a time from the dealer's left, then the upcard, the rest the stock)."""
    row = state[game]
    dealer = row[F_NEXT_DEALER]
    row[F_HAND] = 0
    row[F_HAND + 1] = 0
    for i in range(2 * hand_size):
        row[F_HAND + (dealer + 1 + i) % 2] |= _bit(decks[game, i])
    upcard = decks[game, 2 * hand_size]
    piles[game, 0] = upcard
    row[F_PILE_LEN] = 1
    row[F_PILE] = _bit(upcard)
    row[F_STOCK_POS] = 2 * hand_size + 1
    row[F_DEALER] = dealer
    row[F_PHASE] = OFFER
    row[F_TO_MOVE] = (dealer + 1) % 2
    row[F_PASSES] = 0
    row[F_STOCK_ONLY] = 0
    row[F_TAKEN] = -1
    row[F_KNOWN] = 0
    row[F_KNOWN + 1] = 0
    row[F_KNOCKED] = 0
    row[F_KNOCKER] = -1
    row[F_KNOCK_DEADWOOD] = 0
    row[F_DEFENCE_DEADWOOD] = 0
    row[F_DECISIONS] = 0


@njit(cache=True)
def legal_row(row: np.ndarray, params: np.ndarray, mask: np.ndarray) -> None:
    """The legal ids of the seat to move as int8 zeros and ones (``actions.legal_bits``)."""
    mask[:] = 0
    phase = row[F_PHASE]
    if phase == OFFER:
        mask[1] = 1
        mask[2] = 1
    elif phase == DRAW:
        mask[0] = 1
        if not row[F_STOCK_ONLY] and row[F_PILE_LEN] > 0:
            mask[1] = 1
    elif phase == DISCARD:
        cards = row[F_HAND + row[F_TO_MOVE]]
        forbidden = row[F_TAKEN] if params[P_NO_REDISCARD] else -1
        limit = params[P_KNOCK_LIMIT]
        rest = cards
        while rest:
            card = _lowest(rest)
            rest &= rest - 1
            if card == forbidden:
                continue
            mask[3 + card] = 1
            if deadwood(cards ^ _bit(card)) <= limit:
                mask[55 + card] = 1
    elif phase == LAYOFF:
        mask[108] = 1


@njit(cache=True)
def _planes(out: np.ndarray, offset: int, mask: int) -> None:
    while mask:
        card = _lowest(mask)
        mask &= mask - 1
        out[offset + card] = 1.0


@njit(cache=True)
def _capped(value: float) -> np.float32:
    return np.float32(value if value < 1.0 else 1.0)


@njit(cache=True)
def observe_row(row: np.ndarray, piles: np.ndarray, game: int, seat: int, phase: int,
                scores: np.ndarray, params: np.ndarray, out: np.ndarray) -> None:
    """The observation of ``seat`` (layout: :mod:`ginrummy.env.observation`); ``phase`` is
    the one-hot's, ``scores`` the match scores of seats 0 and 1."""
    out[:] = 0.0
    other = 1 - seat
    mine = row[F_HAND + seat]
    _planes(out, 0, mine)
    length = row[F_PILE_LEN]
    if length:
        top = piles[game, length - 1]
        out[52 + top] = 1.0
        _planes(out, 104, row[F_PILE] & ~_bit(top))
    shown = row[F_HAND + other] if row[F_KNOCKED] else row[F_KNOWN + other]
    _planes(out, 156, shown)
    if row[F_TAKEN] >= 0:
        out[312 + row[F_TAKEN]] = 1.0
    out[364 + phase] = 1.0
    out[369 + (1 if row[F_DEALER] != seat else 0)] = 1.0
    out[373] = _capped((52 - row[F_STOCK_POS]) / 52.0)
    out[374] = _capped(params[P_KNOCK_LIMIT] / 10.0)
    out[375] = _capped(deadwood(mine) / 100.0)
    out[376] = _capped(_popcount(row[F_HAND + other]) / 11.0)
    out[379] = 1.0
    target = params[P_TARGET]
    if target:
        out[383] = _capped(scores[seat] / target)
        out[384] = _capped(scores[other] / target)


@njit(cache=True)
def _score(row: np.ndarray, knocker: int, knock_deadwood: int, defence: int, gin: bool,
           params: np.ndarray, points: np.ndarray) -> None:
    """The hand's match points by seat (``scoring.score_hand``, two players)."""
    points[0] = 0
    points[1] = 0
    defender = 1 - knocker
    if gin:
        points[knocker] = defence + params[P_GIN_BONUS]
    elif defence < knock_deadwood or (params[P_TIES_TO_DEFENDER] and defence == knock_deadwood):
        points[defender] = knock_deadwood - defence + params[P_UNDERCUT_BONUS]
    else:
        points[knocker] = defence - knock_deadwood


@njit(cache=True)
def _discard(row: np.ndarray, piles: np.ndarray, game: int, seat: int, card: int) -> None:
    bit = _bit(card)
    row[F_HAND + seat] &= ~bit
    row[F_KNOWN + seat] &= ~bit
    piles[game, row[F_PILE_LEN]] = card
    row[F_PILE_LEN] += 1
    row[F_PILE] |= bit
    row[F_TAKEN] = -1


@njit(cache=True)
def _play(row: np.ndarray, decks: np.ndarray, piles: np.ndarray, game: int, action: int,
          params: np.ndarray, points: np.ndarray) -> int:
    """Play ``action`` for the seat to move: 1 if the hand ended scored, 0 otherwise (a void
    hand ends with the phase ``OVER`` and no points)."""
    seat = row[F_TO_MOVE]
    row[F_DECISIONS] += 1
    if action == 0:  # draw from the stock
        card = decks[game, row[F_STOCK_POS]]
        row[F_STOCK_POS] += 1
        row[F_HAND + seat] |= _bit(card)
        row[F_TAKEN] = -1
        row[F_PHASE] = DISCARD
    elif action == 1:  # take the top discard (or the upcard)
        row[F_PILE_LEN] -= 1
        card = piles[game, row[F_PILE_LEN]]
        bit = _bit(card)
        row[F_PILE] &= ~bit
        row[F_HAND + seat] |= bit
        row[F_KNOWN + seat] |= bit
        row[F_TAKEN] = card
        row[F_PHASE] = DISCARD
    elif action == 2:  # pass the upcard
        row[F_PASSES] += 1
        if row[F_PASSES] >= 2:
            row[F_PHASE] = DRAW
            row[F_TO_MOVE] = (row[F_DEALER] + 1) % 2
            row[F_STOCK_ONLY] = 1
        else:
            row[F_TO_MOVE] = 1 - seat
    elif action < 55:  # discard
        _discard(row, piles, game, seat, action - 3)
        row[F_STOCK_ONLY] = 0
        if 52 - row[F_STOCK_POS] <= 2:  # R4.7: void at two stock cards
            row[F_PHASE] = OVER
        else:
            row[F_PHASE] = DRAW
            row[F_TO_MOVE] = 1 - seat
    elif action < 107:  # knock (or gin), discarding action - 55
        card = action - 55
        _discard(row, piles, game, seat, card)
        rest = row[F_HAND + seat]
        knock_deadwood = deadwood(rest)
        defender = 1 - seat
        row[F_KNOCKED] = 1
        row[F_KNOCKER] = seat
        row[F_KNOCK_DEADWOOD] = knock_deadwood
        if knock_deadwood == 0:
            _score(row, seat, 0, deadwood(row[F_HAND + defender]), True, params, points)
            row[F_PHASE] = OVER
            return 1
        row[F_DEFENCE_DEADWOOD] = defence_deadwood(row[F_HAND + defender], rest,
                                                   params[P_LAYOFF_REACH])
        row[F_PHASE] = LAYOFF
        row[F_TO_MOVE] = defender
    else:  # 108: the defender's best defence
        _score(row, row[F_KNOCKER], row[F_KNOCK_DEADWOOD], row[F_DEFENCE_DEADWOOD], False,
               params, points)
        row[F_PHASE] = OVER
        return 1
    return 0


@njit(cache=True)
def check_actions(actions: np.ndarray, masks: np.ndarray) -> int:
    """The first game whose id is outside 0-108 or not legal in its row, else -1."""
    for game in range(actions.shape[0]):
        action = actions[game]
        if action < 0 or action >= NUM_ACTIONS or not masks[game, action]:
            return game
    return -1


@njit(cache=True)
def observe_all(state: np.ndarray, piles: np.ndarray, params: np.ndarray, obs: np.ndarray,
                masks: np.ndarray, seats: np.ndarray) -> None:
    """Every game's row: the observation and mask of its seat to move, and the seat."""
    zeros = np.zeros(2, dtype=np.int64)
    for game in range(state.shape[0]):
        row = state[game]
        seat = row[F_TO_MOVE]
        seats[game] = seat
        legal_row(row, params, masks[game])
        observe_row(row, piles, game, seat, row[F_PHASE], zeros, params, obs[game])


@njit(cache=True)
def step_all(state: np.ndarray, decks: np.ndarray, next_decks: np.ndarray,
             piles: np.ndarray, params: np.ndarray, actions: np.ndarray, scale: float,
             rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray,
             final_obs: np.ndarray, final_seats: np.ndarray, obs: np.ndarray,
             masks: np.ndarray, seats: np.ndarray) -> int:
    """One (legal) action per game; a game that ends gets its final observation (for the
    seat that moved, ``final_seats``; -1 for the others), and is dealt again from its next
    deck (``next_decks``, which the caller then refills). Then every game's row. Returns how
    many games ended."""
    points = np.zeros(2, dtype=np.int64)
    zeros = np.zeros(2, dtype=np.int64)
    hand_size = params[P_HAND_SIZE]
    ended = 0
    for game in range(state.shape[0]):
        row = state[game]
        mover = row[F_TO_MOVE]
        final_seats[game] = -1
        scored = _play(row, decks, piles, game, actions[game], params, points)
        over = row[F_PHASE] == OVER
        if over or row[F_DECISIONS] >= params[P_MAX_DECISIONS]:
            if over:
                terminated[game] = True
            else:
                truncated[game] = True
            if scored:
                mean = (points[0] + points[1]) / 2.0
                rewards[game, 0] = 2.0 * (points[0] - mean) * scale
                rewards[game, 1] = 2.0 * (points[1] - mean) * scale
                observe_row(row, piles, game, mover, row[F_PHASE], points, params,
                            final_obs[game])
            else:
                observe_row(row, piles, game, mover, row[F_PHASE], zeros, params,
                            final_obs[game])
            final_seats[game] = mover
            decks[game, :] = next_decks[game, :]
            deal(state, decks, piles, game, hand_size)
            ended += 1
        seat = row[F_TO_MOVE]
        seats[game] = seat
        legal_row(row, params, masks[game])
        observe_row(row, piles, game, seat, row[F_PHASE], zeros, params, obs[game])
    return ended

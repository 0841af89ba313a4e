"""The database schema (SQLAlchemy 2 declarative models).

A table's game is stored as its record: the rules and seats (``game_tables``, ``seats``) and
an ordered list of events (``events``): ``match`` (a match starts), ``deal`` (the deck of a
hand, 52 cards in deal order) and ``action`` (an accepted action in notation, chance
reshuffles included). Replaying the events rebuilds every state. Secrets are stored hashed
(seat tokens, invite codes); decks are stored in clear because the server needs them.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """The declarative base of every model."""


class TableRow(Base):
    """One game table: its rules, settings, status and current version."""

    __tablename__ = "game_tables"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    preset: Mapped[str] = mapped_column(String(20))
    rules: Mapped[str] = mapped_column(Text)
    """``Ruleset.to_dict()`` as JSON text."""
    players: Mapped[int] = mapped_column(Integer)
    public: Mapped[bool] = mapped_column(Boolean)
    invite_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    clock_ms: Mapped[int] = mapped_column(Integer, default=0)
    pool_chips: Mapped[int | None] = mapped_column(Integer, nullable=True)
    buy_in: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Chips each seat taken by an account pays into the table's pool (arena tables)."""
    status: Mapped[str] = mapped_column(String(10))
    """``waiting``, ``playing`` or ``over``."""
    version: Mapped[int] = mapped_column(Integer, default=0)
    clock_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    clock_deadline: Mapped[float | None] = mapped_column(Float, nullable=True)
    """When the running turn clock expires (Unix time, seconds)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_game_tables_status", "status"),)


class SeatRow(Base):
    """One seat of a table: empty, a guest (token hash) or a computer player."""

    __tablename__ = "seats"

    table_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    """``empty``, ``human`` or ``bot``."""
    name: Mapped[str | None] = mapped_column(String(40), nullable=True)
    level: Mapped[str | None] = mapped_column(String(32), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    rematch: Mapped[bool] = mapped_column(Boolean, default=False)
    account_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("accounts.id"), nullable=True, index=True)
    """The account sitting here (``None``: a guest, a computer or nobody)."""


class EventRow(Base):
    """One committed event of a table, numbered by the table version it produced."""

    __tablename__ = "events"

    table_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    """``match``, ``deal`` or ``action``."""
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    payload: Mapped[str] = mapped_column(Text)
    source: Mapped[str | None] = mapped_column(String(8), nullable=True)
    """Who chose an action: ``human``, ``bot``, ``clock`` (timeout), ``away``, ``chance``."""
    client_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


# ----------------------------------------------------------------------------- players
class AccountRow(Base):
    """A player's account: a unique name, an Argon2id password hash and a role."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(24))
    """As the player typed it (case kept)."""
    name_key: Mapped[str] = mapped_column(String(24), unique=True)
    """The name folded for look-alikes (case, confusable letters): unique."""
    password_hash: Mapped[str] = mapped_column(String(200))
    role: Mapped[str] = mapped_column(String(8), default="player")
    """``player`` or ``admin``."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    banned_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True,
                                                       index=True)
    """When it was banned (indexed: leaderboards leave the few banned accounts out)."""
    muted_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                         nullable=True)
    topped_up_on: Mapped[str | None] = mapped_column(String(10), nullable=True)
    """The UTC day (``YYYY-MM-DD``) of the last daily free top-up."""


class SessionRow(Base):
    """A logged-in session: the SHA-256 of its opaque random token."""

    __tablename__ = "sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("accounts.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatingRow(Base):
    """An account's rating in one category: a preset's 2-player Glicko-2 (``classic``...)
    or the multi-player rating of 3-4 player arena deals (``arena-multi``)."""

    __tablename__ = "ratings"

    account_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True)
    category: Mapped[str] = mapped_column(String(20), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    """What the leaderboard orders by (Glicko-2 rating; for the multi-player rating its mean
    on the same scale, ``1500 + 42 * (mu - 25)``: :mod:`ginrummy.server.players.ratings`)."""
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    """Glicko-2 volatility (0 for the multi-player rating)."""
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_ratings_board", "category", "rating", "account_id"),)
    """The leaderboard's order and a rank's count, read from the index alone."""


class RatingBucketRow(Base):
    """How many accounts of a category have a rating in ``[bucket * 10, bucket * 10 + 10)``:
    kept with every rating write, so that a rank counts buckets, not every account ahead."""

    __tablename__ = "rating_buckets"

    category: Mapped[str] = mapped_column(String(20), primary_key=True)
    bucket: Mapped[int] = mapped_column(Integer, primary_key=True)
    accounts: Mapped[int] = mapped_column(Integer, default=0)


class MatchRow(Base):
    """A finished (or abandoned) match of a table: its events are
    ``first_version..last_version`` of that table's record."""

    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("game_tables.id", ondelete="CASCADE"), index=True)
    first_version: Mapped[int] = mapped_column(Integer)
    last_version: Mapped[int] = mapped_column(Integer)
    preset: Mapped[str] = mapped_column(String(20))
    category: Mapped[str | None] = mapped_column(String(20), nullable=True)
    """The rating category it counted in (``None``: unrated)."""
    players: Mapped[int] = mapped_column(Integer)
    ending: Mapped[str] = mapped_column(String(10))
    """``over`` (played to the end), ``abandoned`` or ``closed`` (by an admin)."""
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    public_id: Mapped[str | None] = mapped_column(String(24), nullable=True)
    """The id links and the API use: random, so that no match can be found by counting
    (``id`` stays the key rows refer to). Every row has one (the migration gave the older
    ones theirs)."""

    __table_args__ = (Index("ix_matches_public_id", "public_id", unique=True),)


class MatchPlayerRow(Base):
    """One seat of a finished match: who, how it ended for them, and their statistics."""

    __tablename__ = "match_players"

    match_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("accounts.id"), nullable=True)
    level: Mapped[str | None] = mapped_column(String(32), nullable=True)
    name: Mapped[str] = mapped_column(String(40))
    score: Mapped[int] = mapped_column(Integer, default=0)
    place: Mapped[int] = mapped_column(Integer)
    """1 for the winner; an abandoning seat is placed last."""
    abandoned: Mapped[bool] = mapped_column(Boolean, default=False)
    rating_before: Mapped[float | None] = mapped_column(Float, nullable=True)
    rating_after: Mapped[float | None] = mapped_column(Float, nullable=True)
    hands: Mapped[int] = mapped_column(Integer, default=0)
    gins: Mapped[int] = mapped_column(Integer, default=0)
    knocks: Mapped[int] = mapped_column(Integer, default=0)
    undercuts: Mapped[int] = mapped_column(Integer, default=0)
    """Times this seat undercut a knocker."""
    voids: Mapped[int] = mapped_column(Integer, default=0)
    """Hands without a winner (drawn: the stock ran out) this seat played."""
    caught: Mapped[int] = mapped_column(Integer, default=0)
    """Hands this seat lost to another's knock or gin."""
    caught_deadwood: Mapped[int] = mapped_column(Integer, default=0)
    """Deadwood counted against this seat in those hands (after lay-offs)."""
    points: Mapped[int] = mapped_column(Integer, default=0)
    """Points this seat scored in the match's hands."""

    __table_args__ = (Index("ix_match_players_account", "account_id", "match_id"),)


# ----------------------------------------------------------------------------- chips
class WalletRow(Base):
    """A chip balance: an account's (``account:ID``), a table's pool (``pool:TABLE``), a
    tournament's prize pool (``tourney:ID``) or the house's (``house``: where free top-ups
    come from; its balance is minus every chip handed out). Every change is a
    :class:`LedgerEntryRow`; the sum of all wallets is 0."""

    __tablename__ = "wallets"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    account_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("accounts.id"), nullable=True, unique=True)
    table_id: Mapped[str | None] = mapped_column(String(16), nullable=True, index=True)
    tournament_id: Mapped[str | None] = mapped_column(String(16), nullable=True, index=True)
    balance: Mapped[int] = mapped_column(Integer, default=0)


class TransferRow(Base):
    """One chip transfer: its entries sum to zero. The key makes it idempotent (a retried
    or replayed settlement finds its key and pays nothing twice)."""

    __tablename__ = "transfers"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    kind: Mapped[str] = mapped_column(String(12))
    """``topup``, ``grant``, ``buy_in``, ``refund``, ``payout``."""
    table_id: Mapped[str | None] = mapped_column(String(16), nullable=True)
    tournament_id: Mapped[str | None] = mapped_column(String(16), nullable=True, index=True)
    """The tournament whose buy-in, refund or prize this is (``None`` for anything else)."""
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LedgerEntryRow(Base):
    """One side of a transfer: ``amount`` chips into (positive) or out of a wallet."""

    __tablename__ = "ledger_entries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    transfer_key: Mapped[str] = mapped_column(
        String(100), ForeignKey("transfers.key"), index=True)
    wallet_id: Mapped[str] = mapped_column(String(40), ForeignKey("wallets.id"), index=True)
    amount: Mapped[int] = mapped_column(Integer)


# ----------------------------------------------------------------------------- moderation
class ModerationRow(Base):
    """The moderation log: who did what to whom."""

    __tablename__ = "moderation_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    actor_id: Mapped[int | None] = mapped_column(Integer, ForeignKey("accounts.id"),
                                                 nullable=True)
    action: Mapped[str] = mapped_column(String(16))
    """``kick``, ``mute``, ``unmute``, ``ban``, ``unban``, ``close``, ``notice``,
    ``report``, ``admin``."""
    target_account_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("accounts.id"), nullable=True)
    table_id: Mapped[str | None] = mapped_column(String(16), nullable=True)
    detail: Mapped[str] = mapped_column(Text, default="")


class ReportRow(Base):
    """A chat message a player reported."""

    __tablename__ = "chat_reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    reporter_id: Mapped[int | None] = mapped_column(Integer, ForeignKey("accounts.id"),
                                                    nullable=True)
    reporter_name: Mapped[str] = mapped_column(String(40))
    table_id: Mapped[str] = mapped_column(String(16))
    author_name: Mapped[str] = mapped_column(String(40))
    author_account_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("accounts.id"), nullable=True)
    text: Mapped[str] = mapped_column(Text)
    handled: Mapped[bool] = mapped_column(Boolean, default=False)
    line_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The reported line's number at its table (``chat_lines.seq``)."""
    reporter_key: Mapped[str | None] = mapped_column(String(40), nullable=True)
    """Who reported it, once per line: ``a<account id>``, or ``s<seat>`` for a guest's
    seat (rows made before the key existed have none)."""

    __table_args__ = (UniqueConstraint("table_id", "line_seq", "reporter_key",
                                       name="uq_chat_reports_once"),)


# ----------------------------------------------------------------------------- chat
class ChatLineRow(Base):
    """A chat line said at a table, numbered per table (``seq``); each table keeps its last
    lines only (:mod:`ginrummy.storage.chatlog`). Only what every connection at the table
    saw is stored, plus the author's account for reports."""

    __tablename__ = "chat_lines"

    table_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The author's seat (``None``: a spectator)."""
    name: Mapped[str] = mapped_column(String(40))
    """The author's name as chat showed it."""
    account_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("accounts.id"), nullable=True)
    """The author's account (never sent to a client; a report names it)."""
    text: Mapped[str] = mapped_column(Text)


# ----------------------------------------------------------------------------- fair deals
class HandSeedRow(Base):
    """The seeds of one hand's provably fair deal (docs/fair.md): the server's seed, stored
    before its commitment is sent and never sent before the hand is over, then the seats'
    client seeds, stored with the deal (:mod:`ginrummy.storage.fairseeds`)."""

    __tablename__ = "hand_seeds"

    table_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    """The table version at which the server seed was stored (committed)."""
    hand: Mapped[int] = mapped_column(Integer)
    """The hand's number in its match, from 1."""
    deal_version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The version of the hand's ``deal`` event (``None`` until it is dealt)."""
    server_seed: Mapped[str] = mapped_column(String(64))
    """32 bytes as hex."""
    commitment: Mapped[str] = mapped_column(String(64))
    """SHA-256 of the server seed, as hex (what every connection saw before the deal)."""
    client_seeds: Mapped[str] = mapped_column(Text)
    """JSON list, one per seat: hex, or null until the deal."""
    server_made: Mapped[str] = mapped_column(Text)
    """JSON list, one per seat: true where the server made the seat's client seed."""
    scheme: Mapped[int] = mapped_column(Integer, server_default="1", default=2)
    """The fair scheme (docs/fair.md): 1 for rows stored before scheme 2 (their server-made
    seeds are random, their first dealer not drawn from the seeds), 2 since."""


# ----------------------------------------------------------------------------- cluster
class TableOwnerRow(Base):
    """The fencing token of a table's owner process (docs/cluster.md): every commit by an
    owner raises it to the owner's lease token, and fails when a newer owner's token is
    already stored, so a process that lost its lease can never commit again."""

    __tablename__ = "table_owners"

    table_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True)
    token: Mapped[int] = mapped_column(BigInteger)
    """The highest lease token that committed for this table (Redis ``INCR``, from 1)."""
    owner: Mapped[str] = mapped_column(String(120))
    """The owner process that stored ``token`` (uuid, host and pid)."""
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class DutyOwnerRow(Base):
    """The fencing token of the process that holds a cluster duty's lease (the tournament
    driver; docs/cluster.md): each of its writes raises it to its lease token, and fails
    when a newer holder's token is stored."""

    __tablename__ = "duty_owners"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    token: Mapped[int] = mapped_column(BigInteger)
    """The highest lease token that took or wrote for the duty."""
    owner: Mapped[str] = mapped_column(String(120))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


# ----------------------------------------------------------------------------- tournaments
class TournamentRow(Base):
    """A tournament for people (docs/tournaments.md): its settings, its status and, once
    started, its format's state as JSON (``ginrummy.contest``'s ``to_json``)."""

    __tablename__ = "tournaments"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    format: Mapped[str] = mapped_column(String(10))
    """``knockout``, ``swiss`` or ``arena``."""
    preset: Mapped[str] = mapped_column(String(20))
    rules: Mapped[str] = mapped_column(Text)
    """``Ruleset.to_dict()`` as JSON text: every match's rules."""
    rounds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Swiss and arena series: the number of rounds (a knock-out's follows from its field)."""
    min_players: Mapped[int] = mapped_column(Integer)
    max_players: Mapped[int] = mapped_column(Integer)
    clock_ms: Mapped[int] = mapped_column(Integer)
    """The turn clock of every match (required)."""
    buy_in: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Chips each registration pays into the prize pool (``tourney:ID``); ``None``: free."""
    starts_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    status: Mapped[str] = mapped_column(String(10))
    """``open`` (registration), ``running``, ``over`` or ``cancelled``."""
    state: Mapped[str | None] = mapped_column(Text, nullable=True)
    """The format's state as JSON once started; ``None`` before."""
    version: Mapped[int] = mapped_column(Integer, default=0)
    """Raised by every change (each change first raises it, which locks the row)."""
    created_by: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("accounts.id"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_tournaments_status_starts", "status", "starts_at"),)


class RegistrationRow(Base):
    """An account's registration to a tournament. Withdrawing keeps the row (``withdrawn``);
    registering again raises ``entries``, which numbers the buy-in and refund keys."""

    __tablename__ = "tournament_players"

    tournament_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("accounts.id"), primary_key=True, index=True)
    status: Mapped[str] = mapped_column(String(10))
    """``registered``, ``withdrawn`` (by the player) or ``refunded`` (a cancellation)."""
    entries: Mapped[int] = mapped_column(Integer)
    """How many times the account has registered (1 the first time)."""
    registered_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    rating: Mapped[float | None] = mapped_column(Float, nullable=True)
    """The rating that seeded the player, stored when the tournament starts."""
    place: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The final place (tied players share the better one), once over."""
    prize: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The chips won, once over (0 for an unpaid place)."""


class TournamentRoundRow(Base):
    """One round of a started tournament: when it started (the forfeit grace period runs
    from there) and when its last match ended."""

    __tablename__ = "tournament_rounds"

    tournament_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class TournamentMatchRow(Base):
    """One match (or arena table) of a round and the game table that plays it: a table is
    opened for a match once (``table_id`` is unique), so a restart never starts it twice."""

    __tablename__ = "tournament_matches"

    tournament_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    slot: Mapped[int] = mapped_column(Integer, primary_key=True)
    """The match's index in its round (``ginrummy.contest``'s ``Match.index``)."""
    players: Mapped[str] = mapped_column(Text)
    """The account ids in seat order, as a JSON list."""
    table_id: Mapped[str | None] = mapped_column(String(16), nullable=True, unique=True)
    status: Mapped[str] = mapped_column(String(10))
    """``waiting`` (no table yet), ``playing``, ``done`` or ``forfeit``."""
    winner: Mapped[int | None] = mapped_column(Integer, nullable=True)
    result: Mapped[str | None] = mapped_column(Text, nullable=True)
    """The result as the format records it, as JSON (an arena table's penalties)."""
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        ForeignKeyConstraint(["tournament_id", "round"],
                             ["tournament_rounds.tournament_id", "tournament_rounds.round"],
                             ondelete="CASCADE"),
    )


class FriendshipRow(Base):
    """Two accounts' friendship, one row per pair (``low_id`` < ``high_id``): asked by
    ``requester_id`` (``pending``) until the other accepts it (``accepted``)."""

    __tablename__ = "friendships"

    low_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True)
    high_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, index=True)
    requester_id: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(8))
    """``pending`` or ``accepted``."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    accepted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class BlockRow(Base):
    """``blocker_id`` blocks ``blocked_id``: no requests or invitations from them, their chat
    hidden, their seat at the blocker's private tables refused."""

    __tablename__ = "blocks"

    blocker_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True)
    blocked_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

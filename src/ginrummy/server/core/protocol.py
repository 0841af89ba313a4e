"""The client messages of docs/protocol.md as pydantic models, and the error codes.

Client messages are validated strictly (unknown fields refused, strings not coerced from
numbers); server messages are typed dicts built by :mod:`ginrummy.server.play.messages`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ginrummy.server.core.clienttext import BadText, check_strings, may_hold_refused
from ginrummy.server.core.jsontext import MAX_INT, JSONTextError, loads

PROTOCOL = 3
"""The protocol this server speaks by default (3: after the first ``state``, a ``delta`` of
what changed; :mod:`ginrummy.server.core.delta`)."""
PROTOCOLS = (1, 2, 3)
"""Every protocol a client may ask for in ``hello`` (2: a full ``state`` after every change,
its ``ack`` in the sender's; 1: the ``ack`` in a frame of its own)."""


class Code(StrEnum):
    """Error codes of ``error`` messages."""

    BAD_MESSAGE = "bad_message"
    UNKNOWN_TYPE = "unknown_type"
    PROTOCOL = "protocol"
    NOT_SEATED = "not_seated"
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL_ACTION = "illegal_action"
    STALE_VERSION = "stale_version"
    NO_HAND = "no_hand"
    CHAT_REJECTED = "chat_rejected"
    RATE_LIMITED = "rate_limited"
    STORAGE = "storage"
    ENDLESS_HAND = "endless_hand"
    MUTED = "muted"
    RESIGNED = "resigned"
    SEED_REFUSED = "seed_refused"
    SPECTATOR_CHAT = "spectator_chat"
    """A chat line from a spectator without an account (issue 25: log in to chat)."""


class Close:
    """WebSocket close codes."""

    POLICY = 1008
    TOO_BIG = 1009
    SERVER_ERROR = 1011
    RESTARTING = 1012
    BAD_HELLO = 4400
    BAD_TOKEN = 4401
    FORBIDDEN = 4403
    UNKNOWN_TABLE = 4404


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Hello(_Message):
    """The first client message."""

    type: Literal["hello"]
    protocol: int = Field(ge=0, le=MAX_INT)
    token: str | None = Field(default=None, max_length=128)
    invite: str | None = Field(default=None, max_length=128)
    since: int | None = Field(default=None, ge=0, le=MAX_INT)
    seeds: bool = False
    """The client sends a ``seed`` for each hand (docs/protocol.md, *Fair deals*)."""


class ActionMessage(_Message):
    """An action in notation, against the state version the client saw."""

    type: Literal["action"]
    id: str = Field(min_length=1, max_length=64)
    version: int = Field(ge=0, le=MAX_INT)
    action: str = Field(min_length=1, max_length=400)


class ChatMessage(_Message):
    """A chat line (checked for length by the chat module)."""

    type: Literal["chat"]
    text: str = Field(max_length=8192)


class MuteMessage(_Message):
    """Stop or resume receiving a seat's chat on this connection (``None``: spectators)."""

    type: Literal["mute"]
    seat: int | None = Field(ge=0, le=MAX_INT)
    muted: bool


class SeedMessage(_Message):
    """A seat's client seed for a hand's fair deal (hex; checked by the table)."""

    type: Literal["seed"]
    hand: int = Field(ge=1, le=MAX_INT)
    seed: str = Field(max_length=128)


class SimpleMessage(_Message):
    """Messages with no field besides their type."""

    type: Literal["rematch", "next", "resync", "ping", "resign", "leave"]


AnyClientMessage = (Hello | ActionMessage | ChatMessage | MuteMessage | SeedMessage
                    | SimpleMessage)
"""Every client message (a new one is a model above and one more member here)."""
ClientMessage = Annotated[AnyClientMessage, Field(discriminator="type")]
_CLIENT = TypeAdapter(ClientMessage)
CLIENT_TYPES = frozenset(kind for model in get_args(AnyClientMessage)
                         for kind in get_args(model.model_fields["type"].annotation))
"""Every ``type`` a client may send (from the models' ``type`` literals)."""


class MessageError(ValueError):
    """A client message that cannot be used; ``code`` is the error code to send."""

    def __init__(self, code: Code, message: str) -> None:
        super().__init__(message)
        self.code = code


def parse_client_message(text: str) -> AnyClientMessage:
    """Parse one frame; :class:`MessageError` says what is wrong with it (never another
    exception: an integer of thousands of digits or a nesting deeper than the parser's stack is
    a ``bad_message`` like any text that is not JSON; a control character in any string is a
    ``bad_message`` naming its field: :mod:`.clienttext`)."""
    try:
        data = loads(text)
    except JSONTextError as exc:
        raise MessageError(Code.BAD_MESSAGE, str(exc)) from None
    if not isinstance(data, dict):
        raise MessageError(Code.BAD_MESSAGE, "a message must be a JSON object")
    try:
        if may_hold_refused(text):  # most messages cannot: the walk is skipped
            check_strings(data)
    except BadText as exc:
        raise MessageError(Code.BAD_MESSAGE, str(exc)) from None
    kind = data.get("type")
    if not isinstance(kind, str):
        raise MessageError(Code.BAD_MESSAGE, "a message needs a string \"type\"")
    if kind not in CLIENT_TYPES:
        raise MessageError(Code.UNKNOWN_TYPE, f"unknown message type {kind[:40]!r}")
    try:
        return _CLIENT.validate_python(data)
    except (ValidationError, RecursionError) as exc:
        detail = _describe(exc) if isinstance(exc, ValidationError) else "nested too deeply"
        raise MessageError(Code.BAD_MESSAGE, detail) from None


def _describe(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"][1:]) or "message"
    return f"{where[:80]}: {first['msg'][:200]}"


# ---------------------------------------------------------------------- HTTP bodies
class _Body(BaseModel):
    """An HTTP body: unknown fields refused; numbers, booleans and strings strict (``"100"``
    and ``true`` are not numbers, ``1`` is not a boolean); ``bots``' seat keys are JSON object
    keys (strings of digits) and so are read as numbers."""

    model_config = ConfigDict(extra="forbid", strict=True)


Nickname = Annotated[str, Field(min_length=1, max_length=24)]


class CreateTable(_Body):
    """``POST /api/tables``."""

    nickname: Nickname
    name: str | None = Field(default=None, max_length=40)
    preset: str = "classic"
    options: dict[str, Any] = Field(default_factory=dict)
    players: int | None = None
    """Checked by the rules' own schema (``Ruleset``: 2 to 4)."""
    bots: dict[Annotated[int, Field(strict=False)], str] = Field(default_factory=dict)
    public: bool = True
    clock_seconds: float = Field(default=0, ge=0)
    pool_chips: int | None = Field(default=None, ge=0, le=1_000_000_000)
    buy_in: int | None = Field(default=None, ge=1, le=1_000_000)
    """Chips each seat pays into the pool (single_hand tables; docs/chips.md)."""
    seeds: bool = False
    """The creator's client will send a client seed for each hand: the first deal waits for
    it (docs/protocol.md, *Fair deals*)."""


class JoinTable(_Body):
    """``POST /api/tables/{id}/join``."""

    nickname: Nickname
    seat: int | None = Field(default=None, ge=0, le=MAX_INT)
    """Checked against the table's seats when joining."""
    invite: str | None = Field(default=None, max_length=128)
    seeds: bool = False
    """The joining client will send a client seed for each hand (as ``CreateTable``)."""

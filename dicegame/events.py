"""What happens in Penta, told to whoever wants to know, without the teller importing them: a small bus
(as lichess's lila has one).

Play publishes what happens to a game; the apps that react (the live pushes, ratings, the review's
analysis, puzzles, the daily challenge, the winning chances) subscribe from their `AppConfig.ready`.
`publish` calls every subscriber at once, in the publisher's thread and inside its transaction, in the
order they subscribed; a subscriber that must wait for the commit asks for it (`transaction.on_commit`).
A subscriber's error is the publisher's: a rating that cannot be written fails the game's end with it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dicegame.models import Game, Player, Turn
    from dicegame.offers import Challenge

# A change that leaves the position as it was: which dice are held, the box chosen (not yet written),
# a screen opening or closing. Any other change is None ("anything may have changed").
HOLDS = "holds"
CHOICE = "choice"
PRESENCE = "presence"


@dataclass(frozen=True)
class GameChanged:
    """A game changed (a new version), inside the transaction that changed it."""

    game: Game
    change: str | None = None  # HOLDS, CHOICE, PRESENCE, or None


@dataclass(frozen=True)
class TurnStarted:
    """A seat's turn began (inside the transaction that began it): a person's, or a computer's."""

    game: Game
    turn: Turn


@dataclass(frozen=True)
class GameFinished:
    """A game ended, inside the transaction that ended it (under the game's row lock): ranks written."""

    game: Game
    players: list[Player] = field(default_factory=list)


@dataclass(frozen=True)
class GamesAnalysed:
    """Finished games' analyses were stored (`analysis.store`, inside the transaction that
    stored them): what is made from an analysis follows (the puzzles)."""

    game_ids: tuple[int, ...]


@dataclass(frozen=True)
class BoardPushed:
    """The board of a committed change went to the game's screens (`live.pushes`), after the commit."""

    game: Game
    change: str | None = None


@dataclass(frozen=True)
class GuestGamesClaimed:
    """A guest signed up or logged in: their games are the account's now (inside that transaction)."""

    user: Any
    guest_key: str


_subscribers: dict[type, list[Callable[[Any], None]]] = defaultdict(list)


def subscribe[Event](event_type: type[Event], handler: Callable[[Event], None]) -> None:
    """Call `handler(event)` for every event of this type from now on (once, however often asked)."""
    if handler not in _subscribers[event_type]:
        _subscribers[event_type].append(handler)


def unsubscribe[Event](event_type: type[Event], handler: Callable[[Event], None]) -> None:
    """Stop calling `handler` (a benchmark measures play without one of its listeners)."""
    if handler in _subscribers[event_type]:
        _subscribers[event_type].remove(handler)


def publish(event: object) -> None:
    for handler in _subscribers.get(type(event), ()):
        handler(event)


@dataclass(frozen=True)
class Notice:
    """What a person is told on their open pages: a sentence, and maybe a link with its words."""

    text: str
    link: str = ""
    link_text: str = ""


@dataclass(frozen=True)
class PersonNotified:
    """Tell a person something on every page they have open (an invitation, a friend's answer, a seat
    freed), published inside the transaction that caused it: the notifications send it after the
    commit. `notice()` is called once in each of the site's languages, with that language active, so
    every page shows it in its own."""

    user_id: int
    notice: Callable[[], Notice]


@dataclass(frozen=True)
class AccountMarked:
    """Staff marked an account for unfair play (fair play's review), inside that transaction: the
    features that rank people undo what its games did to others since `since` (the ratings refund its
    rated opponents' losses)."""

    user_id: int
    since: Any  # a datetime


@dataclass(frozen=True)
class ChallengeSent:
    """A person was challenged to a game (inside that transaction): beside the live notice
    (`PersonNotified`), a push reaches them if they are away."""

    challenge: Challenge


@dataclass(frozen=True)
class ChatLineWaiting:
    """A line was said at a correspondence game's table (inside that transaction), and these players
    have not heard from it for a while: beside the live notice (`PersonNotified`), a push reaches those
    of them who are away."""

    game_id: int
    user_ids: tuple[int, ...]


@dataclass(frozen=True)
class InboxChanged:
    """What waits for these people changed (a challenge sent, answered, cancelled or expired; an
    invitation; a seek paired), inside that transaction: after the commit their open pages ask for their
    inbox and its count again, as they do when a turn starts."""

    user_ids: tuple[int, ...]


@dataclass(frozen=True)
class AccountErased:
    """An account's personal data goes (accounts.erasure, at the end of its deletion's grace period),
    inside that transaction: each app forgets what it keeps about the person (the notifications their
    devices, address and queue; fair play the signals no open case needs; problem reports who sent
    them; chat their lines). Their games, ratings and records stay, anonymised."""

    user_id: int

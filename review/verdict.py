"""A review's one-line verdict per seat, the first thing it says: what luck gave or cost, and what the
choices cost, in whole points ("Luck cost you 9 points; your choices 13"). The viewer's own seat comes
first, in the second person."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from dicegame.actors import Actor


@dataclass(frozen=True)
class Verdict:
    seat: int
    text: str
    mine: bool


def verdicts(review, actor: Actor) -> list[Verdict]:
    """One verdict per seat of `review` (a review.replay.Review), the actor's seats first."""
    found = []
    # A tournament round still open: the luck of its dice is the round's secret (dicegame.records).
    secret = getattr(review, "results_secret_until", None) is not None
    for seat in review.seats:
        mine = actor.owns(seat.player)
        # While secret the analysis has no luck figure at all (review.replay.without_the_dice).
        luck = None if secret or seat.luck is None else round(seat.luck)
        values = {"luck": abs(luck or 0), "loss": round(seat.total_loss), "name": seat.player.display_name}
        if luck is None:
            text = (
                _("Your choices cost %(loss)s points.")
                if mine
                else _("%(name)s's choices cost %(loss)s points.")
            )
        elif mine:
            text = (
                _("Luck gave you %(luck)s points; your choices cost %(loss)s.")
                if luck >= 0
                else _("Luck cost you %(luck)s points; your choices %(loss)s.")
            )
        else:
            text = (
                _("Luck gave %(name)s %(luck)s points; their choices cost %(loss)s.")
                if luck >= 0
                else _("Luck cost %(name)s %(luck)s points; their choices %(loss)s.")
            )
        found.append(Verdict(seat.player.seat, text % values, mine))
    return sorted(found, key=lambda v: not v.mine)

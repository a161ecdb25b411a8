"""The standings on the tournament's open pages, live: rendered once per language after the change was
committed and sent to the tournament's group (the round in play's results so far to the group of the
entrants who have finished it). The clock sends them, at most once a sweep per tournament, from the
changes the games and the entrants left (`StandingsChange`): 200 games ending in the same second make
one table and one render per language, not 200. It also closes a round as soon as every entrant has
played it, here rather than on the last player's request (which only notes its game's end)."""

from __future__ import annotations

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from core import courier
from tournaments import markup, rounds, selectors
from tournaments.models import StandingsChange, Tournament

DETAIL_TEMPLATE = "tournaments/detail.html"
BATCH = 500  # tournaments pushed in one sweep


def push_due() -> None:
    """The clock's work: for each tournament whose standings changed since the last push, close the
    round in play if everyone has played it, then push the standings. Two clocks may run it: the one
    whose delete takes a tournament's changes pushes (a push twice would be harmless anyway). The
    changes are taken before the standings are read, so none committed meanwhile is lost."""
    tournament_ids = list(
        StandingsChange.objects.order_by("tournament_id")
        .values_list("tournament_id", flat=True)
        .distinct()[:BATCH]
    )
    for tournament_id in tournament_ids:
        taken, _kinds = StandingsChange.objects.filter(tournament_id=tournament_id).delete()
        if not taken:
            continue
        if rounds.close_if_complete(tournament_id=tournament_id):
            # The close noted a change of its own: this push shows it.
            StandingsChange.objects.filter(tournament_id=tournament_id).delete()
        push_standings(tournament_id=tournament_id)


def _by_language(template: str, context: dict, rows=None, *, so_far=None) -> dict[str, str]:
    """The partial in every language (its rows' markup made in each, for the numbers' decimal mark)."""
    out = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            extra = {}
            if rows is not None:
                extra["rows_html"] = markup.standings_rows(rows)
            if so_far is not None:
                extra["so_far_html"] = markup.so_far_rows(so_far)
            out[code] = render_to_string(template, {**context, **extra})
    return out


def push_standings(*, tournament_id: int) -> None:
    """Render the standings (for everyone: no viewer's own view) and send them to the open pages."""
    t = Tournament.objects.filter(pk=tournament_id).first()
    if t is None:
        return
    data = selectors.load(t)
    rows = selectors.table(data)
    context = {
        "tournament": t,
        "rows": rows,
        "views": data.views,
        "phase": selectors.phase(data),
        "oob": True,
    }
    messages = [
        (
            "group",
            selectors.standings_group(t.pk),
            {"type": "standings", "by_language": _by_language(f"{DETAIL_TEMPLATE}#standings", context, rows)},
        )
    ]
    open_round = next(
        (r for r, v in zip(data.rounds, data.views, strict=True) if v.state == selectors.OPEN), None
    )
    if open_round is not None:
        html = _by_language(
            f"{DETAIL_TEMPLATE}#round-so-far",
            {"tournament": t, "open_round": open_round, "oob": True},
            so_far=selectors.round_so_far(data, open_round),
        )
        messages.append(
            (
                "group",
                selectors.round_group(t.pk, open_round.number),
                {"type": "standings", "by_language": html},
            )
        )
    courier.dispatch(messages)

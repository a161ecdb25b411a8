"""The standings on the tournament's open pages, live: rendered once per language after the change was
committed and sent to the tournament's group (the round in play's results so far to the group of the
entrants who have finished it). The clock sends them, at most once a sweep per tournament, from the
changes the games and the entrants left (`StandingsChange`): 200 games ending in the same second make
one table and one render per language, not 200."""

from __future__ import annotations

from collections import defaultdict

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from dicegame import courier
from tournaments import selectors
from tournaments.models import StandingsChange, Tournament

DETAIL_TEMPLATE = "tournaments/detail.html"
BATCH = 1000


def push_due() -> None:
    """The clock's work: push each tournament whose standings changed since the last push. Two clocks may
    run it: the one whose delete takes the rows pushes (a push twice would be harmless anyway)."""
    rows = list(StandingsChange.objects.order_by("pk").values_list("pk", "tournament_id")[:BATCH])
    by_tournament: dict[int, list[int]] = defaultdict(list)
    for pk, tournament_id in rows:
        by_tournament[tournament_id].append(pk)
    for tournament_id, pks in by_tournament.items():
        taken, _kinds = StandingsChange.objects.filter(pk__in=pks).delete()
        if taken:
            push_standings(tournament_id=tournament_id)


def _by_language(template: str, context: dict) -> dict[str, str]:
    out = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            out[code] = render_to_string(template, context)
    return out


def push_standings(*, tournament_id: int) -> None:
    """Render the standings (for everyone: no viewer's own view) and send them to the open pages."""
    t = Tournament.objects.filter(pk=tournament_id).first()
    if t is None:
        return
    data = selectors.load(t)
    context = {
        "tournament": t,
        "rows": selectors.table(data),
        "views": data.views,
        "phase": selectors.phase(data),
        "oob": True,
    }
    messages = [
        (
            "group",
            selectors.standings_group(t.pk),
            {"type": "standings", "by_language": _by_language(f"{DETAIL_TEMPLATE}#standings", context)},
        )
    ]
    open_round = next(
        (r for r, v in zip(data.rounds, data.views, strict=True) if v.state == selectors.OPEN), None
    )
    if open_round is not None:
        so_far = {
            "tournament": t,
            "open_round": open_round,
            "so_far": selectors.round_so_far(data, open_round),
        }
        html = _by_language(f"{DETAIL_TEMPLATE}#round-so-far", {**so_far, "oob": True})
        messages.append(
            (
                "group",
                selectors.round_group(t.pk, open_round.number),
                {"type": "standings", "by_language": html},
            )
        )
    courier.dispatch(messages)

"""The standings' rows, written here as strings rather than by a template loop: 200 entrants' rows cost a
template about 150 ms a render and these a few milliseconds, and the clock renders them once per
language after every change (`tournaments.pushes`) as every page view does. The `standings` partial of
tournaments/detail.html prints them, so the page and the pushes share one markup."""

from __future__ import annotations

from django.urls import reverse
from django.utils.formats import get_format
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from tournaments.selectors import Row, SoFarRow


def _number(value: float, separator: str) -> str:
    """One decimal, in the active language's way (the percentages stay below a thousand)."""
    return f"{value:.1f}".replace(".", separator)


def standings_rows(rows: list[Row]) -> SafeString:
    """The table's rows (`<tr>`s): place, name, each round's cell, score, points, against par. Every
    text is escaped here; the viewer's own row is marked by the page (tournaments.js), as the pushes are
    made for everyone."""
    separator = get_format("DECIMAL_SEPARATOR")
    # The words are gettext calls of their own, outside the f-strings, where makemessages finds them.
    words = {"finished": _("played"), "playing": _("playing"), "waiting": _("not started")}
    marks = {"finished": "✓", "playing": "…", "waiting": "·"}
    status = {
        kind: f'<span aria-hidden="true" title="{escape(word)}">{marks[kind]}</span>'
        f'<span class="visually-hidden">{escape(word)}</span>'
        for kind, word in words.items()
    }
    no_game = escape(_("no game"))
    withdrew_word = escape(_("withdrew"))
    withdrew = f' <span class="badge" data-withdrew>{withdrew_word}</span>'
    parts = []
    for row in rows:
        name = escape(row.name)
        classes = " ".join(c for c in ("me" if row.is_me else "", "withdrawn" if row.withdrawn else "") if c)
        place = "" if row.place is None else str(row.place)
        parts.append(
            f'<tr class="{classes}" data-user="{name}" data-user-id="{row.user_id}" data-place="{place}"'
            f' data-score="{row.percent:.2f}"><td>{place or "–"}</td>'
            f'<td><a href="{escape(reverse("review:player", args=[row.name]))}">{name}</a>'
            f"{withdrew if row.withdrawn else ''}</td>"
        )
        for n, cell in enumerate(row.cells, start=1):
            if cell.status in status:
                parts.append(f'<td class="round-col" data-cell="{n}" data-status="{cell.status}">')
                parts.append(status[cell.status])
            elif not cell.counted or cell.percent is None:
                parts.append(f'<td class="round-col" data-cell="{n}">–')
            else:
                total = "" if cell.total is None else str(cell.total)
                parts.append(
                    f'<td class="round-col" data-cell="{n}">{_number(cell.percent, separator)}%<br>'
                    f'<span class="small" data-total="{total}">{total or no_game}</span>'
                )
            parts.append("</td>")
        vs_par = "–" if row.vs_par is None else f"{row.vs_par:+d}"
        if not any(not cell.status and cell.counted for cell in row.cells):
            # No round of theirs is closed: no score yet, not a 0.0% beside the round in play's 50%
            # (its matchpoints so far are in their own table).
            parts.append('<td data-percent="">–</td><td data-points="">–</td><td>–</td></tr>')
            continue
        parts.append(
            f'<td data-percent="{row.percent:.1f}"><strong>{_number(row.percent, separator)}%</strong></td>'
            f'<td data-points="{row.points}">{row.points}</td><td>{vs_par}</td></tr>'
        )
    return mark_safe("".join(parts))


def so_far_rows(rows: list[SoFarRow]) -> SafeString:
    """The round in play's rows among those who have finished it: place, name, total, matchpoints."""
    separator = get_format("DECIMAL_SEPARATOR")
    return mark_safe(
        "".join(
            f'<tr class="{"me" if row.is_me else ""}" data-user="{escape(row.name)}"><td>{row.place}</td>'
            f'<td>{escape(row.name)}</td><td data-total="{row.total}">{row.total}</td>'
            f"<td>{_number(row.percent, separator)}%</td></tr>"
            for row in rows
        )
    )

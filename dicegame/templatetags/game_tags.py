"""What waits for the person on every page: the header's count (live: the notice socket tells the page
when to ask again); deadlines in words; the game screen's regions."""

from __future__ import annotations

from django import template
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from dicegame import labels
from dicegame.play.inbox import inbox_count
from dicegame.screen import regions

register = template.Library()


@register.inclusion_tag("dicegame/waiting.html#waiting-count", takes_context=True)
def waiting_count(context):
    """The header's badge: what waits for the person (games for their move, challenges and
    invitations for their answer)."""
    user = context["request"].user
    return {"count": inbox_count(user_id=user.pk) if user.is_authenticated else 0}


@register.filter
def by_when(moment) -> str:
    """A deadline as the inbox says it ("by 21:40 tomorrow"), in the page's zone."""
    return labels.by_when(moment) if moment else ""


@register.simple_tag(takes_context=True)
def messages_area(context):
    """The message area (`#messages`) of every page and answer, made by dicegame.screen.regions as the
    game screen's answers make it without a template."""
    return regions.messages(
        context.get("messages") or (), str(context.get("error") or ""), oob=bool(context.get("oob"))
    )


@register.simple_tag(takes_context=True)
def region(context, name: str):
    """A live region of the game screen, made by dicegame.screen.regions: the same markup on the page,
    in an htmx answer and in a push (which renders it without this template)."""
    board, game = context.get("board"), context["game"]
    oob = bool(context.get("oob"))
    csrf = str(context.get("csrf_token") or "")
    if csrf == "NOTPROVIDED":
        csrf = ""
    if name == "game-status":
        return regions.game_status(game, oob=oob)
    if name == "hints-badge":
        return regions.hints_badge(game, oob=oob)
    if name == "turn-status":
        return regions.turn_status(board, oob=oob, csrf=csrf, token=context.get("token") or "")
    if name == "dice-tray":
        return regions.dice_tray(board, oob=oob)
    if name == "moments":
        return regions.moments(board, oob=oob)
    if name == "game-controls":
        return regions.game_controls(board, oob=oob, csrf=csrf)
    if name == "hints":
        return regions.hints(board, oob=oob, csrf=csrf)
    if name == "scoresheet":
        return regions.scoresheet(board, oob=oob)
    if name == "next-game":
        return regions.next_game(context.get("next_waiting"), oob=oob)
    raise template.TemplateSyntaxError(f"no region named {name!r}")


@register.simple_tag
def roll_dice(roll, number: int):
    """One roll of a turn's log (a finished game's, the review's) as a row of small dice, a held one
    framed: read aloud as "Roll 2: 4, 1 held, 4, 2, 1" (it read "41421*" before)."""
    dice = []
    for value, held in roll:
        mark = f'<span class="visually-hidden"> {escape(_("held"))}</span>' if held else ""
        dice.append(f'<span class="log-die{" held" if held else ""}">{int(value)}{mark}</span>')
    comma = '<span class="visually-hidden">, </span>'
    label = _("Roll %(n)s") % {"n": number}
    return format_html(
        '<span class="roll" data-roll="{}"><span class="visually-hidden">{}: </span>{}</span>',
        number,
        label,
        mark_safe(comma.join(dice)),  # made above of whole numbers and a translated word, escaped
    )

"""The game screen's live regions, made as strings: every region that a change redraws (the turn status,
the dice, the sheet, the hints, the moments, the controls, the status marker), one function each, named
after the DOM id it fills.

They are the regions of dicegame/game.html: its partials of the same names print them (`{% region %}`,
dicegame.templatetags.board), so the page, the htmx answers and the socket pushes share one markup. A
push renders nothing else (`live_update`): no template at all. Made by a template, these regions cost a
live action most of its CPU (two viewers' renders, about 1 ms each, against 0.1 ms here), since Django's
template engine walks every tag, variable and translation of them for every viewer of every change.

Each function takes the viewer's `Board` (dicegame.screen.view), in the active language; `oob` marks
a region for an out-of-band swap (answers and pushes); `csrf` is the request's token for the forms of a
page or an answer (a push has none: the page sends its own, on <body hx-headers>).
"""

from __future__ import annotations

from functools import cache
from html import escape as _escape
from urllib.parse import quote

from django.template.defaultfilters import floatformat
from django.urls import reverse
from django.utils.html import conditional_escape as esc
from django.utils.safestring import SafeString
from django.utils.translation import get_language, ngettext, pgettext
from django.utils.translation import gettext as _

from core.times import clock_time, time_left
from dicegame.models import Game
from dicegame.rules.scoring import UPPER_BONUS, UPPER_BONUS_THRESHOLD
from dicegame.screen import win_hints
from dicegame.screen.announce import announcement


@cache
def _words(language: str) -> dict:
    """The regions' fixed words in `language` (the active one), escaped for HTML: the same few dozen
    strings for every viewer of every change, translated once per process instead of each time."""
    words = {
        "round": _("Round %(round)s of 13"),
        "rolls_left": [
            ngettext("%(rolls)s roll left", "%(rolls)s rolls left", n) % {"rolls": n} for n in range(4)
        ],
        "left": [ngettext("%(rolls)s left", "%(rolls)s left", n) % {"rolls": n} for n in range(4)],
        "roll": _("Roll"),
        "confirm": _("Confirm turn"),
        "chosen": _("Chosen: %(box)s"),
        "sacrifice": _("No open box scores points: you must sacrifice one"),
        "you_left": _("You left this game: the computer plays your seat to the end."),
        "stand_in": _("The computer is keeping your seat while you were away."),
        "take_back": _("Take back my seat"),
        "watching": _("You are watching this game."),
        "time_left_move": _("Time left for %(name)s: %(left)s"),
        "time_left": _("Time left for %(name)s"),
        "until": _("until %(when)s"),
        "bot_playing": _("%(name)s is playing…"),
        "stand_in_playing": _("The computer plays for %(name)s…"),
        "speed_up": _("Speed up"),
        "countdown": _("No box chosen: the computer writes this roll in"),
        "countdown_stop": _("Choosing a box stops the countdown."),
        "own_time": _("This game allows your own time to choose a box: %(s)s s (Game settings)."),
        "start": _("Roll the dice to start your turn"),
        "space": _("(Space)"),
        "waiting_for": _("%(name)s's turn."),
        "pass_to": _("Pass to %(name)s"),
        "tap_to_start": _("%(name)s, tap to start your turn"),
        "dice": _("Dice"),
        "hints_used": _("hints used"),
        "leave": _("Leave the game…"),
        "leave_yes": _("Yes, leave the game"),
        "leave_note": _(
            "The computer plays your remaining turns so the table can finish. You can't take the seat "
            "back, and the game counts as a loss for you."
        ),
        "resign": _("Resign…"),
        "resign_yes": _("Yes, resign"),
        "resign_note": _(
            "The game ends now with the points written so far; the empty boxes stay empty, and it is "
            "marked resigned."
        ),
        "scoresheet": _("Scoresheet"),
        "upper": _("Upper section"),
        "lower": _("Lower section"),
        "upper_total": _("Upper total"),
        "bonus": _("Bonus (%(bonus)s at %(threshold)s)")
        % {"bonus": UPPER_BONUS, "threshold": UPPER_BONUS_THRESHOLD},
        "penta_bonus": _("Penta bonus"),
        "total": _("Total"),
        # A narrow sheet of several seats shows these instead (the full words stay for screen readers).
        "sum_short": pgettext("sheet, short", "Sum"),
        "bonus_short": pgettext("sheet, short", "Bonus"),
        "penta_bonus_short": pgettext("sheet, short", "P+"),
        "total_short": pgettext("sheet, short", "Tot"),
    }
    return {k: [_word(x) for x in v] if isinstance(v, list) else _word(v) for k, v in words.items()}


def _word(text: str) -> str:
    """A fixed text escaped for the regions: for an element's text and a double-quoted attribute (an
    apostrophe stays one, as a template leaves a translation's own text)."""
    return _escape(text, quote=False).replace('"', "&quot;")


def _oob(oob: bool) -> str:
    return ' hx-swap-oob="morph"' if oob else ""


def _csrf_input(csrf: str) -> str:
    return f'<input type="hidden" name="csrfmiddlewaretoken" value="{_escape(csrf)}">'


def _tick(board, delay_ms: int, token: str) -> str:
    """A hidden element that asks the server to apply what is due in this turn once `delay_ms` have
    passed."""
    query = f"&amp;t={_escape(quote(token, safe='/'))}" if token else ""
    return (
        f'<span hidden hx-post="{board.game_url}tick/?turn={board.turn.number}{query}" '
        f'hx-trigger="load delay:{delay_ms}ms"></span>'
    )


def game_status(game: Game, *, oob: bool) -> SafeString:
    """The status marker every answer and push carries: the version a screen compares, the status (a
    finished page reloads), the rematch's progress."""
    extra = ""
    if game.status == Game.Status.FINISHED and game.kind == Game.Kind.FRIENDS:
        extra = f' data-rematch-yes="{game.rematch_yes_count}"'
        rematch = getattr(game, "rematch", None)
        if rematch is not None:
            # A player goes to the rematch by its address; a spectator watches it by its link.
            url = reverse("dicegame:game", args=[rematch.pk])
            token = _escape(quote(rematch.invite_token, safe="/"))
            extra += f' data-next-game="{url}" data-next-watch="{url}?t={token}"'
    return SafeString(
        f'<div id="game-status" hidden{_oob(oob)} data-status="{game.status}" '
        f'data-version="{game.version}"{extra}></div>'
    )


def turn_status(board, *, oob: bool, csrf: str = "", token: str = "") -> SafeString:
    game, turn = board.game, board.turn
    w = _words(board.language)
    url = board.game_url
    # Not a live region itself (its every line and button would be read at each change): #announce says
    # what changed, in a sentence (dicegame.screen.announce).
    out = [
        f'<section id="turn-status" class="turn-status"{_oob(oob)}>'
        f'<p id="announce" class="visually-hidden" aria-live="polite" aria-atomic="true">'
        f"{_escape(announcement(board))}</p>"
    ]
    hidden = ""
    # On one's own turn of a rated game or one on shared dice (daily, tournament), penta.js tells fair play
    # when the page is hidden (a weak signal; the server checks the turn is theirs, once a turn).
    if board.my_turn and (game.rated or game.on_shared_dice):
        hidden = f' data-hidden-report="{reverse("fairplay:hidden", args=[game.pk])}"'
    out.append(
        f'<form id="game-form" method="post" action="{url}"{hidden}>{_csrf_input(csrf)}'
        f'<input type="hidden" name="turn" value="{turn.number if turn else ""}">'
        f'<input type="hidden" name="roll" value="{board.rolls_used}"></form>'
    )
    if board.pass_to:
        out.append(pass_to(board, w))
    if board.written_note:
        out.append(f'<p class="written-note" data-written-note>{_escape(board.written_note)}</p>')
    rolls_left = board.rolls_left
    name = _escape(turn.player.display_name) if turn else ""
    # Whose turn, when it is another person's (the viewer's own is the sheet's marked column, and the
    # computer's is said below with its Speed up): the line stays one line on a phone.
    local = game.kind == Game.Kind.LOCAL  # one screen for everyone: always whose turn it is
    named = len(board.seats) > 1 and not board.bot_playing and (local or not board.my_turn)
    who = f" · {name}" if named else ""
    if turn is not None:  # a game between its creation and its first turn has no round yet
        round_text = w["round"] % {"round": turn.round}
        out.append(f'<p class="turn-line">{round_text}{who} · {w["rolls_left"][rolls_left]}</p>')
    if not board.spectator:
        # A local game's pass screen is the turn's first roll: no second Roll beside it. The button for
        # the next step is the highlighted one: Confirm once a box is chosen.
        roll_class, confirm_class = ("", "primary ") if board.can_confirm else ("primary ", "")
        out.append(
            f'<div class="actions"{" hidden" if board.pass_to else ""}>'
            f'<button type="submit" form="game-form" class="{roll_class}roll-button" '
            f'data-action="roll" '
            f'formaction="{url}roll/" hx-post="{url}roll/"{"" if board.can_roll else " disabled"}>'
            f'{w["roll"]} <span class="rolls-left">({w["left"][rolls_left]})</span></button> '
            f'<button type="submit" form="game-form" class="{confirm_class}confirm-button" '
            f'data-action="confirm" '
            f'formaction="{url}confirm/" hx-post="{url}confirm/"{"" if board.can_confirm else " disabled"}>'
            f"{w['confirm']}</button></div>"
        )
    if board.chosen_label:
        # The label comes escaped (dicegame.screen.markup.box_labels).
        out.append(f'<p class="chosen">{w["chosen"] % {"box": board.chosen_label}}</p>')
    if board.must_sacrifice:
        out.append(f'<p class="msg msg-warning" data-sacrifice>{w["sacrifice"]}</p>')
    seat = board.my_seat
    if seat is not None and seat.left_at:
        out.append(f'<p class="msg msg-warning" data-left>{w["you_left"]}</p>')
    elif seat is not None and seat.stand_in:
        out.append(
            f'<p class="msg msg-warning" data-stand-in>{w["stand_in"]}</p>'
            f'<button type="submit" form="game-form" class="primary" data-action="take-back" '
            f'formaction="{url}take-back/" hx-post="{url}take-back/">{w["take_back"]}</button>'
        )
    if board.spectator:
        out.append(f'<p class="small" data-spectator>{w["watching"]}</p>')
    if board.deadline_ms is not None and game.is_correspondence:
        # A move's days and hours, not a count of seconds; the server's clock keeps the time.
        # With the clock time, day and zone it runs out at (a correspondence move lasts hours to days).
        left = w["time_left_move"] % {"name": name, "left": _escape(time_left(turn.deadline_at))}
        until = _escape(w["until"] % {"when": clock_time(turn.deadline_at)})
        out.append(f'<p class="turn-timer" data-move-deadline>{left} ({until})</p>')
    elif board.deadline_ms is not None:
        seconds = round(board.deadline_ms / 1000)
        out.append(
            f'<p class="turn-timer" data-deadline-ms="{board.deadline_ms}">'
            f"{w['time_left'] % {'name': name}}: <span data-deadline-seconds>{seconds}</span> s</p>"
        )
        if not board.spectator:
            out.append(_tick(board, board.deadline_ms + 150, token))
    if board.bot_playing:
        # The computer's turn and the button that hurries it, on one line (a phone's dock stays short).
        text = w["bot_playing" if turn.player.is_bot else "stand_in_playing"] % {"name": name}
        out.append(f'<div class="bot-row"><p class="bot-playing" data-bot-playing>{text}</p>')
        if not board.spectator:
            out.append(
                f'<button type="submit" form="game-form" class="hurry-button" data-action="hurry" '
                f'formaction="{url}hurry/" hx-post="{url}hurry/">{w["speed_up"]}</button>'
            )
        out.append("</div>")
        if not board.spectator and board.next_step_ms is not None:
            out.append(_tick(board, board.next_step_ms + 50, token))
    elif board.countdown is not None:
        # While it runs, the page says how to stop it; and where a game allows a player's own longer
        # time (rated, the daily, a tournament round), that it does.
        stop = f'<span class="countdown-stop"> {w["countdown_stop"]}</span>' if board.my_turn else ""
        out.append(
            f'<p class="countdown" data-countdown-ms="{board.countdown_ms}">{w["countdown"]} '
            f'<span class="countdown-seconds" data-countdown-seconds>{board.countdown_seconds}</span> s.'
            f"{stop}</p>"
        )
        own = seat.auto_commit_seconds if board.my_turn and seat is not None else None
        if own and (game.rated or game.on_shared_dice):
            out.append(f'<p class="small" data-own-time>{w["own_time"] % {"s": own}}</p>')
        if not board.spectator:
            out.append(_tick(board, board.countdown_ms + 150, token))
    elif board.can_roll and board.rolls_used == 0 and not board.pass_to:
        out.append(f'<p class="hint">{w["start"]}<span class="key-hint"> {w["space"]}</span></p>')
    elif not board.my_turn and turn and not board.pass_to:
        # Whose turn it is, said plainly (Roll is not this screen's to press now).
        out.append(f'<p class="hint" data-waiting-for>{w["waiting_for"] % {"name": name}}</p>')
    out.append("</section>")
    return SafeString("".join(out))


def pass_to(board, w: dict) -> str:
    """A local game's hand-over: whom to hand the device to, and the one big button that is the turn's
    first roll (so the pass screen needs no state of its own)."""
    name = {"name": _escape(board.pass_to)}
    url = board.game_url
    return (
        f'<div class="pass-screen" data-pass-to="{name["name"]}">'
        f'<p class="pass-title">{w["pass_to"] % name}</p>'
        f'<button type="submit" form="game-form" class="primary big pass-button" data-action="pass-start" '
        f'formaction="{url}roll/" hx-post="{url}roll/">{w["tap_to_start"] % name}</button></div>'
    )


def dice_tray(board, *, oob: bool) -> SafeString:
    w = _words(board.language)
    return SafeString(
        f'<section id="dice-tray" class="dice-tray"{_oob(oob)} aria-label="{w["dice"]}">'
        f"{board.dice_html}</section>"
    )


def hints_badge(game: Game, *, oob: bool) -> SafeString:
    badge = ""
    if game.hints_used:
        badge = f'<span class="badge" data-hints-used>{_words(get_language())["hints_used"]}</span>'
    return SafeString(f'<span id="hints-badge"{_oob(oob)}>{badge}</span>')


def moments(board, *, oob: bool) -> SafeString:
    items = "".join(
        f'<p data-moment="{_escape(m.key)}" data-kind="{_escape(m.kind)}">{_escape(str(m.text))}</p>'
        for m in board.moments
    )
    return SafeString(f'<div id="moments" hidden{_oob(oob)}>{items}</div>')


def game_controls(board, *, oob: bool, csrf: str = "") -> SafeString:
    """Resign (solo, computer) or leave (friends): asked twice, in a <details>, which works without JS."""
    game, seat = board.game, board.my_seat
    inner = ""
    if seat is not None and not seat.left_at and game.is_active:
        w = _words(board.language)
        if game.kind == Game.Kind.FRIENDS:
            kind, data, action = "leave-game", "data-leave", "leave"
        elif game.kind in (Game.Kind.SOLO, Game.Kind.COMPUTER):
            kind, data, action = "resign-game", "data-resign", "resign"
        else:
            kind = ""
        if kind:
            post = f"{board.game_url}{action}/"
            inner = (
                f'<details class="{kind}" {data}><summary>{w[action]}</summary>'
                f'<p class="small">{w[action + "_note"]}</p>'
                f'<form method="post" action="{post}" hx-post="{post}">{_csrf_input(csrf)}'
                f'<button type="submit" data-action="{action}">{w[action + "_yes"]}</button></form></details>'
            )
    return SafeString(f'<section id="game-controls" class="game-controls"{_oob(oob)}>{inner}</section>')


def hints(board, *, oob: bool, csrf: str = "") -> SafeString:
    """The hints: kept (hidden) where they are not offered, e.g. live games, so pushes find their target.
    (Their words are gettext calls of their own, outside the f-strings, where makemessages finds them.)"""
    game = board.game
    shown = board.can_hint and not game.on_shared_dice
    head = (
        f'<section id="hints" class="hints"{_oob(oob)}{"" if shown else " hidden"} '
        f'aria-labelledby="hints-heading">'
    )
    if not shown:
        return SafeString(head + "</section>")
    url = f"{board.game_url}hints/"
    on = board.hints_on
    heading = esc(_("Hints"))
    toggle = esc(_("Hide hints") if on else _("Show hints"))
    out = [
        head,
        f'<form method="post" action="{url}" hx-post="{url}" class="hints-toggle">{_csrf_input(csrf)}'
        f'<input type="hidden" name="on" value="{"0" if on else "1"}">'
        f'<h2 id="hints-heading">{heading}</h2>'
        f'<button type="submit" aria-pressed="{"true" if on else "false"}" data-action="hints">'
        f"{toggle}</button></form>",
    ]
    if not on:
        note = esc(
            _("Showing hints marks this game “hints used”: it will not count for ratings or leaderboards.")
        )
        out.append(f'<p class="small hints-note" data-hints-note>{note}</p>')
    found = board.hints
    if found:
        if found.sentence:
            out.append(f'<p class="hint-sentence" data-hint-sentence>{esc(found.sentence)}</p>')
        out.append(win_hints.region(board.win_hint, poll=f"{board.game_url}win-hint/"))
        figures = esc(_("The exact figures"))
        expected = esc(_("Expected final total with optimal play from here"))
        total, cost = esc(_("Expected total")), esc(_("Cost"))
        out.append(
            f'<details class="hint-figures"><summary>{figures}</summary>'
            f'<p class="hint-expected">{expected}: <strong data-expected-total='
            f'"{floatformat(found.expected_total, 2)}">{floatformat(found.expected_total, 1)}</strong></p>'
        )
        for kind, lines, caption, first in (
            ("keeps", found.keeps, _("What to hold"), _("Choice")),
            ("boxes", found.boxes, _("Where to write"), _("Box (points)")),
        ):
            if lines:
                rows = "".join(_hint_line(line) for line in lines)
                out.append(
                    f'<table class="hint-table" data-hint="{kind}"><caption>{esc(caption)}</caption>'
                    f'<thead><tr><th scope="col">{esc(first)}</th><th scope="col">{total}</th>'
                    f'<th scope="col">{cost}</th></tr></thead><tbody>{rows}</tbody></table>'
                )
        out.append("</details>")
    out.append("</section>")
    return SafeString("".join(out))


def _hint_line(line) -> str:
    cost = esc(_("best")) if line.is_best else f"−{floatformat(line.cost, 1)}"
    return (
        f'<tr class="{"best" if line.is_best else ""}"><td>{esc(line.label)}</td>'
        f"<td>{floatformat(line.expected_total, 1)}</td><td>{cost}</td></tr>"
    )


def scoresheet(board, *, oob: bool) -> SafeString:
    """The heads, rows and totals come made (dicegame.screen.markup), the same for page and pushes.

    Two tables, the upper section and the lower one, each with the seats' names: stacked on a wide
    screen, side by side on a phone, where the whole sheet then fits beside the dice (penta.css)."""
    w = _words(board.language)
    joker = f'<p class="joker-note" data-joker>{_escape(board.joker_note)}</p>' if board.joker_note else ""
    cols = f'<colgroup><col class="col-box"><col span="{len(board.seats)}"></colgroup>'
    return SafeString(
        f'<section id="scoresheet" class="scoresheet seats-{len(board.seats)}"{_oob(oob)} '
        f'aria-labelledby="sheet-heading"><h2 id="sheet-heading" class="visually-hidden">'
        f'{w["scoresheet"]}</h2>{joker}<div class="sheet-halves">'
        f'<table class="sheet-upper">{cols}'
        f'<thead><tr><th scope="col">{w["upper"]}</th>{board.seat_heads_html}</tr></thead>'
        f'<tbody class="upper">{board.upper_rows_html}'
        f'<tr class="subtotal"><th scope="row" data-short="{w["sum_short"]}">{w["upper_total"]}</th>'
        f"{board.upper_total_cells}</tr>"
        f'<tr class="subtotal"><th scope="row" data-short="{w["bonus_short"]}">{w["bonus"]}</th>'
        f"{board.upper_bonus_cells}</tr></tbody>"
        f'</table><table class="sheet-lower">{cols}'
        f'<thead><tr><th scope="col">{w["lower"]}</th>{board.lower_seat_heads_html}</tr></thead>'
        f'<tbody class="lower">{board.lower_rows_html}'
        f'<tr class="subtotal"><th scope="row" data-short="{w["penta_bonus_short"]}">{w["penta_bonus"]}</th>'
        f"{board.penta_bonus_cells}</tr>"
        f"</tbody><tfoot>"
        f'<tr class="total"><th scope="row" data-short="{w["total_short"]}">{w["total"]}</th>'
        f"{board.total_cells}</tr></tfoot>"
        "</table></div></section>"
    )


def messages(items, error: str = "", *, oob: bool, answer: dict | None = None) -> SafeString:
    """The message area (`#messages`): the request's queued messages (`items`, Django's messages, read
    once as the template reads them) and a refusal's `error`. In the game socket's answer to an action
    it carries `answer` (live.answers): the action's id, echoed, and the version it made or the status
    of its refusal (`data-answer`, `data-answer-version`, `data-answer-status`)."""
    swap = ' hx-swap-oob="true"' if oob else ""
    for name, value in (answer or {}).items():
        swap += f' data-answer{"" if name == "id" else "-" + name}="{int(value)}"'
    out = [f'<div id="messages" class="messages" role="status" aria-live="polite"{swap}>']
    for message in items:
        alert = ' role="alert"' if message.level >= 40 else ""
        out.append(f'<p class="msg msg-{esc(message.tags)}"{alert}>{esc(message)}</p>')
    if error:
        out.append(f'<p class="msg msg-error" role="alert">{esc(error)}</p>')
    out.append("</div>")
    return SafeString("".join(out))


def next_game(waiting, *, oob: bool) -> SafeString:
    """The viewer's next game waiting for their move while this one waits for someone else (`waiting`:
    a play.selectors.Waiting, or None): on the page and in the answer to their own action, never in a
    push (it is theirs alone)."""
    text = ""
    if waiting is not None:
        text = _("Your turn against %(names)s too") % {"names": waiting.opponent_names}
        if waiting.deadline:
            text += " (" + _("%(left)s left") % {"left": time_left(waiting.deadline)} + ")"
        url = reverse("dicegame:game", args=[waiting.game.pk])
        text = (
            f'{esc(text)}:\n      <a href="{url}" data-next-game="{waiting.game.pk}">{esc(_("play it"))}</a>'
        )
    return SafeString(f'<p id="next-game" class="small"{_oob(oob)}>{text}</p>')


def answer_update(
    board,
    *,
    regions: frozenset,
    csrf: str,
    token: str,
    message_items,
    error: str,
    waiting,
    answer: dict | None = None,
) -> str:
    """The answer to an htmx request on the game screen (an action, a refusal, a question at a box),
    for a game past its lobby: the message area, the status marker and the regions the change can
    alter (all of them when `regions` is empty), each for an out-of-band swap. The same regions as a
    push, plus what belongs to this request: its messages, its token for the forms, the viewer's
    next game. (The game socket's refusal is this answer too, with its `answer` marker: live.answers.)"""
    game = board.game
    out = [messages(message_items, error, oob=True, answer=answer), game_status(game, oob=True)]
    if not game.is_finished:
        if not regions or "turn-status" in regions:
            out.append(turn_status(board, oob=True, csrf=csrf, token=token))
        if not regions or "dice-tray" in regions:
            out.append(dice_tray(board, oob=True))
        if not regions or "hints" in regions:
            out += [hints(board, oob=True, csrf=csrf), hints_badge(game, oob=True)]
        if not regions:
            out += [
                moments(board, oob=True),
                game_controls(board, oob=True, csrf=csrf),
                next_game(waiting, oob=True),
            ]
    if not regions or "scoresheet" in regions:
        out.append(scoresheet(board, oob=True))
    return "".join(out)


def live_update(board, regions: frozenset = frozenset()) -> str:
    """What a push carries for a game in play: the status marker and the regions the change can alter
    (all of them when `regions` is empty), each for an out-of-band swap."""
    game = board.game
    out = [game_status(game, oob=True)]
    if game.is_active:
        if not regions or "turn-status" in regions:
            out.append(turn_status(board, oob=True))
        if not regions or "dice-tray" in regions:
            out.append(dice_tray(board, oob=True))
        if not regions:
            out += [
                hints(board, oob=True),
                hints_badge(game, oob=True),
                moments(board, oob=True),
                game_controls(board, oob=True),
            ]
        if not regions or "scoresheet" in regions:
            out.append(scoresheet(board, oob=True))
    return "".join(out)

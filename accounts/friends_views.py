"""The friends page: find players, answer friend requests, see who is online, game invitations.

Every form posts with its CSRF token and works without JavaScript (post, then redirect back to the
page). With htmx a form posts from inside ``#friends-panel`` and gets the fresh panel back with the
message area out of band. A refusal answers 4xx with its message and changes nothing.
"""

from __future__ import annotations

from functools import wraps
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from accounts import selectors, services
from accounts.models import FriendRequest
from accounts.services import FriendError
from dicegame.play import lobby
from live import presence

FRIENDS_TEMPLATE = "accounts/friends.html"


def _login_required(view):
    """Like login_required, but an htmx request is sent to the login page as a whole page."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs):
        if not request.user.is_authenticated and request.htmx:
            login = redirect_to_login(reverse("accounts:friends"))
            return HttpResponseClientRedirect(login["Location"])
        return login_required(view)(request, *args, **kwargs)

    return wrapper


def _query(request: HttpRequest) -> str:
    return (request.GET.get("q") or request.POST.get("q") or "").strip()[:150]


def _panel_context(request: HttpRequest) -> dict:
    user_id = request.user.pk
    q = _query(request)
    friends = list(selectors.friends_of(user_id=user_id))
    online = presence.online_user_ids([f.pk for f in friends], viewer_id=user_id)
    incoming = list(selectors.friend_requests_incoming(user_id))
    outgoing = list(selectors.friend_requests_outgoing(user_id))
    friend_ids = {f.pk for f in friends}
    asked = {r.to_user_id for r in outgoing}
    asking = {r.from_user_id for r in incoming}

    def relation(pk: int) -> str:
        if pk in friend_ids:
            return "friend"
        if pk in asked:
            return "asked"
        return "asking" if pk in asking else "none"

    results = [
        {"user": u, "relation": relation(u.pk)} for u in selectors.players_search(q, exclude_user_id=user_id)
    ]
    return {
        "q": q,
        "results": results,
        "friends": [{"user": f, "online": f.pk in online} for f in friends],
        "incoming": incoming,
        "outgoing": outgoing,
        "invitations": list(lobby.game_invitations_pending(user_id)),
    }


def _page(request: HttpRequest, *, error: str = "", status: int = 200) -> HttpResponse:
    context = {**_panel_context(request), "error": error}
    if request.htmx and not request.htmx.history_restore_request:
        template = f"{FRIENDS_TEMPLATE}#friends-update"
    else:
        template = FRIENDS_TEMPLATE
    return TemplateResponse(request, template, context, status=status)


def _done(request: HttpRequest, message: str) -> HttpResponse:
    messages.success(request, message)
    if request.htmx:
        return _page(request)
    url = reverse("accounts:friends")
    q = _query(request)
    return redirect(f"{url}?{urlencode({'q': q})}" if q else url)


@require_GET
@_login_required
def friends(request: HttpRequest) -> HttpResponse:
    return _page(request)


@require_POST
@_login_required
def friend_request_send(request: HttpRequest) -> HttpResponse:
    try:
        sent = services.friend_request_send(from_user=request.user, username=request.POST.get("username", ""))
    except FriendError as exc:
        return _page(request, error=exc.message, status=exc.status)
    if sent.status == FriendRequest.Status.ACCEPTED:
        return _done(
            request, _("You and %(name)s are now friends.") % {"name": sent.from_user.get_username()}
        )
    return _done(request, _("Friend request sent to %(name)s.") % {"name": sent.to_user.get_username()})


@require_POST
@_login_required
def friend_request_accept(request: HttpRequest, request_id: int) -> HttpResponse:
    try:
        friendship = services.friend_request_accept(user=request.user, request_id=request_id)
    except FriendError as exc:
        return _page(request, error=exc.message, status=exc.status)
    other = friendship.user_high if friendship.user_low_id == request.user.pk else friendship.user_low
    return _done(request, _("You and %(name)s are now friends.") % {"name": other.get_username()})


@require_POST
@_login_required
def friend_request_decline(request: HttpRequest, request_id: int) -> HttpResponse:
    try:
        declined = services.friend_request_decline(user=request.user, request_id=request_id)
    except FriendError as exc:
        return _page(request, error=exc.message, status=exc.status)
    name = declined.from_user.get_username()
    return _done(request, _("You declined the friend request from %(name)s.") % {"name": name})


@require_POST
@_login_required
def friend_remove(request: HttpRequest, friend_id: int) -> HttpResponse:
    try:
        former = services.friend_remove(user=request.user, friend_id=friend_id)
    except FriendError as exc:
        return _page(request, error=exc.message, status=exc.status)
    return _done(request, _("%(name)s is no longer your friend.") % {"name": former.get_username()})

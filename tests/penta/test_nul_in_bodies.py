"""A NUL inside a body that is not a form (penta.middleware.RejectNulMiddleware): a JSON string that holds
one (written \\u0000), at any depth, or a raw NUL byte, is refused with a 400 before any view runs: as JSON
({"error": ...}, which the pages' scripts show) for a JSON request, as the message page otherwise."""

import json

import pytest
from django.test import Client

from accounts.models import FriendRequest
from tests.support.factories import UserFactory, client_for

NUL_MESSAGE = "NUL character"


def nested(depth: int, inner) -> object:
    for _ in range(depth):
        inner = {"a": [inner]}
    return inner


@pytest.mark.django_db
@pytest.mark.parametrize(
    "data",
    [
        {"username": "femke\x00"},
        {"username\x00": "femke"},
        ["ok", {"deeper": ["\x00"]}],
        nested(200, "x\x00y"),
    ],
    ids=["value", "key", "list", "deep"],
)
def test_a_nul_in_any_json_body_is_a_400_in_json(data):
    hana = UserFactory(username="hana")
    UserFactory(username="femke")
    response = client_for(hana).post(
        "/accounts/friends/request/", data=json.dumps(data), content_type="application/json"
    )
    assert response.status_code == 400
    assert NUL_MESSAGE in response.json()["error"]
    assert not FriendRequest.objects.exists()


@pytest.mark.django_db
def test_a_raw_nul_byte_in_another_body_is_a_400_page():
    response = Client().post("/accounts/login/", data=b"hana\x00", content_type="text/plain")
    assert response.status_code == 400
    assert NUL_MESSAGE in response.content.decode()


@pytest.mark.django_db
def test_json_without_a_nul_passes_even_with_a_backslash_u0000_in_its_text():
    body = json.dumps({"text": "a \\u0000 b"})  # a backslash, then "u0000": no NUL
    assert "\\\\u0000" in body
    response = Client().post("/accounts/login/", data=body, content_type="application/json")
    assert NUL_MESSAGE not in response.content.decode()  # the view answered (a form with no fields)

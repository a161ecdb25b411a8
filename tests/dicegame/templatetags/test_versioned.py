"""{% versioned fragment %}: the markup between is rendered once per version of what it shows and per
language, served from the cache after that, and rendered at every view while a version was never bumped."""

from __future__ import annotations

import pytest
from django.template import Context, Template, TemplateSyntaxError
from django.utils import translation

from core import versions

pytestmark = pytest.mark.django_db

PAGE = Template("{% load versioned %}[{% versioned fragment %}{{ shown }}{% endversioned %}]")


def render(shown: str, name: str = "board") -> str:
    return PAGE.render(
        Context({"fragment": versions.fragment("test-fragment", versions.read([name])), "shown": shown})
    )


def test_the_fragment_is_served_from_the_cache_until_its_version_moves():
    versions.bump("board")
    assert render("first") == "[first]"
    assert render("second") == "[first]"  # the data changed behind the versions' back: not read
    versions.bump("board")
    assert render("second") == "[second]"
    assert render("third") == "[second]"


def test_each_language_has_its_own_markup():
    versions.bump("board")
    assert render("english") == "[english]"
    with translation.override("nl"):
        assert render("nederlands") == "[nederlands]"
        assert render("other") == "[nederlands]"
    assert render("other") == "[english]"


def test_nothing_is_kept_while_the_version_was_never_bumped():
    assert render("first", "never-bumped") == "[first]"
    assert render("second", "never-bumped") == "[second]"


def test_the_tag_wants_one_fragment():
    with pytest.raises(TemplateSyntaxError, match="one argument"):
        Template("{% load versioned %}{% versioned %}x{% endversioned %}")

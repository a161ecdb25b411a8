"""Ratings in words (issue 40): "1553, provisional", with the range it likely lies in on hover or tap, not
the jargon of "1553? ±332"; and the end card says "provisional" too."""

from django.utils import translation

from ratings.selectors import Shown
from ratings.templatetags.rating_tags import _badge


def test_a_provisional_rating_says_so_in_words_with_its_range():
    html = _badge(Shown(rating=1553, rd=332, provisional=True, games=1))
    assert "<summary>1553, provisional</summary>" in html
    assert "likely between 889 and 2217" in html  # two deviations either side
    assert 'title="likely between 889 and 2217"' in html
    assert "?" not in html and "±" not in html
    assert html.startswith("<details") and "data-provisional" in html


def test_an_established_rating_is_its_number_and_its_range_in_dutch():
    with translation.override("nl"):
        html = _badge(Shown(rating=1612, rd=80, provisional=False, games=30))
    assert "<summary>1612</summary>" in html and "data-provisional" not in html
    assert "waarschijnlijk tussen 1452 en 1772" in html

"""The question-shape reader: a verdict is owed to a yes / no question however it opens, a why
is a why however it is worded, and a request with no question word asks in no shape."""

import pytest

from voicecoach.domain.asked import shapes


@pytest.mark.parametrize(
    ("said", "shape"),
    [
        ("can we even win this", "yes_no"),
        ("im getting destroyed, can i still win this", "yes_no"),  # the question after a remark
        ("bro are we cooked", "yes_no"),
        ("my fox is screwed vs it, right", "yes_no"),  # a claim with its tag
        ("so it smacks the turtle?", "yes_no"),  # a statement asked back
        ("why do we lose every fight on the middle pier", "why"),
        ("how come my fox dies so fast", "why"),
        ("what's going wrong for us", "why"),
        ("who do i put it on", "which"),
        ("how many pets can i bring", "how_many"),
        ("how do i get past the big shield guy", "how"),
        ("what does null grenade do", "what"),
    ],
)
def test_each_shape_is_read_from_how_the_player_asks(said: str, shape: str) -> None:
    assert shape in shapes(said)


@pytest.mark.parametrize(
    ("said", "not_shape"),
    [
        ("we got smoked first round, what do we change", "yes_no"),  # asks what, not whether
        ("what's going wrong for us", "what"),  # the why, not a what-is
        ("how come my fox dies so fast", "how"),
        ("how many rounds left", "how"),
        ("island hopping is fun", "yes_no"),  # a remark with no question in it
    ],
)
def test_a_shape_the_words_do_not_ask_is_not_read(said: str, not_shape: str) -> None:
    assert not_shape not in shapes(said)


def test_a_request_without_a_question_word_asks_in_no_shape() -> None:
    assert shapes("load up my long range group") == frozenset()


def test_a_hesitation_before_the_auxiliary_still_asks_yes_or_no() -> None:
    assert "yes_no" in shapes("umm the stag thing, oak guy, can he hit the cat good")
    assert "yes_no" in shapes("hmm is it any good")

def test_a_second_answer_that_restates_the_first_is_not_said_twice() -> None:
    from voicecoach.talker.speakable import unsaid

    first = "Nadira unlocks at account level 27, and you're at account level 10."
    assert unsaid("No, Nadira isn't unlocked yet: Nadira comes at account level 27.", first) == ""
    # a new name or number is news, however alike the words
    said = "Against Voltail, Galehawk deals half damage."
    assert unsaid("Against Voltail, Granitusk deals double damage.", said) != ""

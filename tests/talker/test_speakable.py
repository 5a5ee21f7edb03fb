def test_a_second_answer_that_restates_the_first_is_not_said_twice() -> None:
    from voicecoach.talker.speakable import unsaid

    first = "Nadira unlocks at account level 27, and you're at account level 10."
    assert unsaid("No, Nadira isn't unlocked yet: Nadira comes at account level 27.", first) == ""
    # a new name or number is news, however alike the words
    said = "Against Voltail, Galehawk deals half damage."
    assert unsaid("Against Voltail, Granitusk deals double damage.", said) != ""


def test_a_reason_is_said_once_in_a_reply() -> None:
    from voicecoach.talker.speakable import reasons_once, unsaid

    # Two answers that share a reason: the second keeps its advice, not the reason again.
    said = "Shellbastion is their biggest threat: water beats your Emberfox's fire."
    again = "Go after Shellbastion first: its water beats your Emberfox's fire."
    assert reasons_once([said, again]) == [said, "Go after Shellbastion first."]
    assert unsaid(again, said) == "Go after Shellbastion first."
    other = "Go after Voltail first: it's their fastest."
    assert reasons_once([said, other]) == [said, other]

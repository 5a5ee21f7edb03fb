"""W1 Perception (paper section 4): the intent prior and the tag-stream kernel that labels the turn and
dispatches tools early."""

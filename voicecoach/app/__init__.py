"""The entry points people use: the `voicecoach` command, the game client, pack check / pack new."""

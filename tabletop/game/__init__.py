"""The game: executing actions as logged events, undo, replay, and the action registry."""

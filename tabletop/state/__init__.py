"""Game state: the SQLite store, the event log, undo and replay."""

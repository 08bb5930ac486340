"""tabletop: a command-line referee assistant for WWII miniatures wargames."""

__version__ = "0.1.0"

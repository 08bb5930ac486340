"""Rules procedures. Nothing here imports click or prints; every roll takes a dice object."""

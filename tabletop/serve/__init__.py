"""The players' live pages (``tabletop serve``): each side's view of the game, and the
referee's, each behind its own private link, following the game as it is logged.

``links`` keeps the links' secrets beside the game file; ``snapshot`` reads what one view may
know through ``game/`` and ``rules/views`` (nothing here decides what a side knows); ``page``
writes it as HTML; ``app`` is the Starlette application (``create_app``) with its watcher of
the game's log; ``server`` runs it under uvicorn. Starlette, uvicorn and segno are imported
only here, and only ``tabletop serve`` imports this package.
"""

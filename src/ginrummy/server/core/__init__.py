"""What every part of the server shares: the settings (:mod:`.settings`), the wire
protocol's client messages, error codes and close codes (:mod:`.protocol`), protocol 3's
deltas and the client's reducer (:mod:`.delta`), bounded JSON
text (:mod:`.jsontext`), the kinds of seats, tables, events and sources (:mod:`.kinds`),
rate limits (:mod:`.limits`), secrets and their hashes (:mod:`.auth`), structured logs
(:mod:`.logs`) and uvicorn's HTTP protocol tuning (:mod:`.httpproto`).

May import: the engine (:mod:`ginrummy.gameloop`, :mod:`ginrummy.rules`...) and
:mod:`ginrummy.web` (the client's files); nothing else of the server.
"""

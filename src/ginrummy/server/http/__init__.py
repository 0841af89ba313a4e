"""The HTTP surface: everything a client reaches by URL.

What the routes share (:mod:`.common`: the ``Server`` of ``app.state``, the error body, the
JSON body reader); the JSON routes (:mod:`.lobby_api`, :mod:`.account_api`,
:mod:`.player_api`, :mod:`.chips_api`, :mod:`.coach_api`, :mod:`.admin_api`,
:mod:`.friends_api` with the account's push socket ``/ws/account``, and
:mod:`.tournament_api`); the edge middleware (:mod:`.edge`: body caps, origins, security
headers); the web client's files
(:mod:`.static`, :mod:`.pages`); ``/metrics`` (:mod:`.metrics`); the WebSocket endpoint
(:mod:`.table_socket`) and a table's session (:mod:`.ws`); in a cluster, requests answered
by a table's owner process (:mod:`.forwarding`) and sockets relayed to it (:mod:`.bridge`).

May import: :mod:`ginrummy.server.players`, :mod:`ginrummy.server.play`,
:mod:`ginrummy.server.cluster`, :mod:`ginrummy.server.core`, :mod:`ginrummy.storage`,
:mod:`ginrummy.coach`, :mod:`ginrummy.contest`, :mod:`ginrummy.bots` and the engine. Never the app
(:mod:`ginrummy.server.app`), which imports this.
"""

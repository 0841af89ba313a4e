"""People: who is playing, and what stays with them after a match.

Sessions and the account of a request (:mod:`.sessions`), account names (:mod:`.names`),
ratings (:mod:`.ratings`) and the match records they come from (:mod:`.matchrecord`),
chip buy-ins and payouts (:mod:`.chips`), moderation of live tables (:mod:`.moderation`),
the replay of stored matches (:mod:`.replay`), friends live: presence, push sockets and
invitations (:mod:`.friends`), and the driver of tournaments (:mod:`.tournaments`).

May import: :mod:`ginrummy.server.play`, :mod:`ginrummy.server.core`,
:mod:`ginrummy.storage`, :mod:`ginrummy.contest`, the engine and :mod:`ginrummy.bots`.
Never the HTTP surface or the app.
"""

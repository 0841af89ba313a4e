"""Tables: what happens between sitting down and the last hand.

The lobby (:mod:`.lobby`: create, join, load, unload), a table's state rebuilt from its
events (:mod:`.table`, :mod:`.seat`), its single writer (:mod:`.tablewriter`: one action at a
time, commit, then broadcast), what each recipient may see (:mod:`.messages`,
:mod:`.viewcache`, :mod:`.layoffhints`), connections and their caps (:mod:`.connections`),
timers, the turn clock and presence (:mod:`.timers`, :mod:`.clock`, :mod:`.presence`),
computer seats (:mod:`.computer`), chat (:mod:`.chat`), fair deals (:mod:`.fairdeal`; a
writer's seeds: :mod:`.seeding`), resignations (:mod:`.resign`), the hooks other parts add
to a table's commits (:mod:`.settlement`), the commit path (:mod:`.commits`) and the group
committer that writes every batch in one transaction (:mod:`.committer`).

May import: :mod:`ginrummy.server.core`, :mod:`ginrummy.server.cluster`,
:mod:`ginrummy.storage`, the engine and :mod:`ginrummy.bots`. Never the players, the HTTP
surface or the app: they hook into tables through :mod:`.settlement`.
"""

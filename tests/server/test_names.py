"""Look-alike names (issue 25, 6; docs/security.md, *Names*): the UTS #39 confusables
skeleton, invisible and filler characters refused, staff names reserved; for account names
and guests' nicknames alike."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from server_helpers import LiveServer

from ginrummy.server.players.names import (
    STAFF_NAMES,
    BadName,
    check_name,
    guest_name_key,
    name_key,
    skeleton,
)

LOOK_ALIKES_OF_ANN2BE1 = (
    "ann2be1", "ANN2BE1",
    "\u1d00nn2be1",  # ᴀ LATIN LETTER SMALL CAPITAL A
    "\u0251nn2be1",  # ɑ LATIN SMALL LETTER ALPHA
    "\u0410nn2be1",  # А CYRILLIC CAPITAL LETTER A
    "\u0391nn2be1",  # Α GREEK CAPITAL LETTER ALPHA
    "Ann2beI", "Ann2bel", "Ann2be\u0131",  # I, l, dotless i for the 1
    "Ann2b\u04351",  # е CYRILLIC SMALL LETTER IE
    "\uff21nn2be1",  # Ａ FULLWIDTH (NFKC)
    "Ann2be1.", "Ann_2be1", "Ánn2be1",
)
INVISIBLE = ("Ann2be1\u3164", "\u3164Ann2be1", "Ann\u200b2be1", "Ann2be1\u200d",
             "Ann2be1\u2060", "Ann2be1\ufeff", "Ann2\u115fbe1", "Ann2\u1160be1",
             "Ann2be1\u00ad", "Ann2be1\u034f", "Ann2be1\ufe0f", "Ann2be1\U000e0061")
ONLY_FILLERS = ("\u3164\u3164\u3164", "\u115f\u1160\u3164", "\u3164\u115f",
                "\u200b\u200b\u200b", "\uffa0\uffa0\uffa0")


def test_look_alikes_share_the_key() -> None:
    for name in LOOK_ALIKES_OF_ANN2BE1:
        assert name_key(name) == name_key("Ann2be1"), name
    assert name_key("Anna") != name_key("Anne")
    assert name_key("Ann2be1") != name_key("Ann2be2")


def test_cyrillic_and_greek_letters_drawn_as_latin_ones_share_the_key() -> None:
    # letters whose UTS #39 prototype is not the Latin letter they are drawn as (в → ʙ,
    # к → ĸ, м → ʍ, н → ʜ, т → ᴛ, β → ß, ε → ꞓ): the project's own table folds them
    for name, latin in (("\u0432ob", "bob"), ("\u0412ob", "Bob"), ("\u043aate", "kate"),
                        ("\u043cary", "mary"), ("\u043dank", "hank"), ("\u0442om", "tom"),
                        ("\u03b2ob", "bob"), ("\u03b5ve", "eve"), ("\u03baate", "kate"),
                        ("\u03c4om", "tom"), ("\u03c7ena", "xena")):
        assert name_key(name) == name_key(latin), name


def test_the_skeleton_is_unicodes() -> None:
    assert skeleton("\u0251") == "a"  # UTS #39 confusables.txt: ɑ → a
    assert skeleton("\u0430") == "a"  # Cyrillic а → a
    assert skeleton("A\u3164") == "A"  # default-ignorable dropped


def test_invisible_characters_and_fillers_are_refused() -> None:
    for name in (*INVISIBLE, *ONLY_FILLERS):
        with pytest.raises(BadName, match="invisible"):
            check_name(name)
        with pytest.raises(BadName, match="invisible"):
            guest_name_key(name)


def test_staff_names_are_reserved() -> None:
    for name in (*STAFF_NAMES, "Admin", "ADMIN", "\u0430dmin", "Adm1n", "admin_Ann",
                 "SuperAdmin", "Moderator7", "GinRummy", "gin.rummy", "R00t", "Sy5tem",
                 "Mr_Moderator_7", "TheAdminAnn", "ginrummy-team"):
        shown = name.replace("-", "")
        if len(shown) < 3:
            continue
        with pytest.raises(BadName, match="staff"):
            check_name(shown)
        with pytest.raises(BadName, match="staff"):
            guest_name_key(shown)
    assert check_name("Root", staff=True) == "Root"  # ginrummy admin create may
    for fine in ("Model", "Kmoda", "Rooter", "Stafford", "Systematic", "Supporter",
                 "Badminton", "Badminton_Bea", "Sadmina"):  # a staff word inside a word
        assert check_name(fine) == fine


def test_sign_up_refuses_every_look_alike(make_server: Any) -> None:
    server: LiveServer = make_server(signups_per_address=100, login_attempts_per_address=500)
    with httpx.Client(base_url=server.base, headers={"Origin": server.base},
                      trust_env=False, timeout=30) as client:
        made = client.post("/api/account/signup", json={"name": "Ann2be1",
                                                        "password": "a password 1"})
        assert made.status_code == 201, made.text
        client.cookies.clear()
        for name in LOOK_ALIKES_OF_ANN2BE1:
            answer = client.post("/api/account/signup", json={"name": name,
                                                              "password": "a password 1"})
            if answer.status_code == 400:  # not a name at all (".", "_" in a row...)
                continue
            assert answer.status_code == 409, (name, answer.text)
            assert answer.json()["error"]["code"] == "name_taken"
        for name in (*INVISIBLE, *ONLY_FILLERS, "admin", "Administrator", "\u0430dmin"):
            answer = client.post("/api/account/signup", json={"name": name,
                                                              "password": "a password 1"})
            assert answer.status_code == 400, (name, answer.text)
            assert answer.json()["error"]["field"] == "name"
        # a guest's nickname is held to the same: not the account's, nor invisible
        for nickname in (*LOOK_ALIKES_OF_ANN2BE1, *INVISIBLE, *ONLY_FILLERS, "admin"):
            answer = client.post("/api/tables", json={"nickname": nickname})
            assert answer.status_code in (400, 409), (nickname, answer.text)
            assert answer.json()["error"]["field"] == "nickname"
        assert client.get("/api/account/me").status_code == 401


def test_keys_of_an_older_folding_are_renewed_at_start_up(make_server: Any) -> None:
    """Accounts made before the skeleton keep working: their keys are renewed when the
    server starts; one whose new key another account has keeps its old key."""
    first = make_server()
    store = first.app.state.server.accounts
    alpha = store.create("\u0251nna", "\u0251nna", "$argon2id$x")  # the old key of "ɑnna"
    plain = store.create("Anna", "anna", "$argon2id$x")
    small = store.create("\u1d00lice", "\u1d00llce", "$argon2id$x")  # "ᴀlice"'s old key
    db = first.settings.db
    first.server.should_exit = True
    first.thread.join(10)
    second = make_server(db=db)
    store = second.app.state.server.accounts
    assert store.by_key(name_key("Alice")).id == small.id  # renewed
    assert store.by_key("anna").id == plain.id
    assert store.by_id(alpha.id).name_key == "\u0251nna"  # a clash: its old key kept

"""``pip install ginrummy`` with no extra: the sdist and wheel built from a copy of the sources
pass ``twine check``, the wheel carries the web client, the migrations and ``py.typed``, and
installed alone in a fresh venv (offline: the core has no dependencies) its ``ginrummy``
command runs every core subcommand, while the server commands and ``--backend ray`` say in
one line which extra to install (exit status 2). scripts/check-installs does the same for each
extra (from PyPI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from install_checks import CHECKS, Install, build, check_wheel_files


@pytest.mark.slow
@pytest.mark.soak
def test_the_wheel_without_extras(tmp_path: Path) -> None:
    wheel = build(tmp_path)
    check_wheel_files(wheel)
    install = Install.create(tmp_path, wheel)
    assert install.present() == set()  # nothing but the core
    for check in CHECKS[""]:
        check(install)
    assert sorted(p.name for p in install.work.iterdir()) == [
        "fair.ginrec.json", "game.ginrec.json"]  # the server commands created no database

"""Settings from the environment and the command line; ``ginrummy serve`` argument errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from ginrummy.cli.main import main
from ginrummy.cli.serve import _safe_url
from ginrummy.server import Settings


def test_environment_then_overrides() -> None:
    env = {"GINRUMMY_PORT": "9000", "GINRUMMY_HOLD_SECONDS": "2.5",
           "GINRUMMY_ALLOWED_ORIGINS": "http://a.example, http://b.example",
           "GINRUMMY_WS_COMPRESSION": "yes", "GINRUMMY_STATIC_DIR": "/srv/web"}
    settings = Settings.from_env(env, port=9100, db=None)
    assert settings.port == 9100 and settings.hold_seconds == 2.5
    assert settings.allowed_origins == ("http://a.example", "http://b.example")
    assert settings.ws_compression is True and settings.static_dir == Path("/srv/web")
    assert settings.db == "sqlite:///ginrummy.db"


def test_a_bad_environment_value_names_the_variable() -> None:
    with pytest.raises(ValueError, match="GINRUMMY_PORT: bad value 'eighty'"):
        Settings.from_env({"GINRUMMY_PORT": "eighty"})


def test_serve_refuses_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "70000"]) == 2
    assert "--port: 70000 is not a port number" in capsys.readouterr().err
    assert main(["serve", "--port", "x"]) == 2


def test_database_passwords_stay_out_of_the_banner() -> None:
    assert _safe_url("postgresql://gin:secret@db/gin") == "postgresql://gin@db/gin"
    assert _safe_url("sqlite:///ginrummy.db") == "sqlite:///ginrummy.db"

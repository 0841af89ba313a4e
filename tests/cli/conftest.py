"""Fixtures of the command-line tests (defined in ``cli_helpers``)."""

from cli_helpers import autopilot, cli

__all__ = ["autopilot", "cli"]

"""Fixtures of the tournament tests (defined in ``tournament_helpers``)."""

from tournament_helpers import cli

__all__ = ["cli"]

"""Argument types shared by the command-line entry points (a bad value is refused by argparse, naming it)."""

from __future__ import annotations

import argparse


def _integer(text: str, low: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what} integer, got {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"expected {what} integer, got {value}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (worker counts)."""
    return _integer(text, 1, "a positive")


def nonnegative_int(text: str) -> int:
    """An integer >= 0 (worker counts where 0 means "in this process")."""
    return _integer(text, 0, "a non-negative")

"""Errors raised by the gate."""


class GateError(Exception):
    """Root of the gate's errors."""


class GateNotTrained(GateError):
    """No trained gate is stored yet."""


class GateStale(GateError):
    """The stored gate was trained on a different corpus."""

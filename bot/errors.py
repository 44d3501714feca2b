"""Errors raised at the edges."""


class BotError(Exception):
    """Root of the edge errors."""


class MalformedMessage(BotError):
    """An inbound message that cannot be parsed; it is quarantined with this reason."""


class ChannelError(BotError):
    """A channel (IMAP, SMTP, Slack) failed."""


class SendUncertain(ChannelError):
    """The connection broke after the whole message was handed over: the server may or may not have accepted it."""


class TokenError(ChannelError):
    """An OAuth access token for a mailbox could not be obtained."""

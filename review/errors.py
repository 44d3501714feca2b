"""Errors raised by the review package."""


class ReviewError(Exception):
    """Root of the review package's errors."""


class NotFound(ReviewError):
    """No such message or draft."""


class InvalidTransition(ReviewError):
    """The lifecycle does not allow this state change."""

    def __init__(self, message_id: int, current: str, target: str) -> None:
        super().__init__(f"message {message_id}: cannot go from {current!r} to {target!r}")
        self.message_id, self.current, self.target = message_id, current, target


class ConcurrentUpdate(ReviewError):
    """Someone else changed the record first (optimistic concurrency)."""

    def __init__(self, message_id: int, actor: str | None, action: str | None) -> None:
        who = f" by {actor}" if actor else ""
        what = f" ({action})" if action else ""
        super().__init__(f"message {message_id} was already handled{who}{what}")
        self.message_id, self.actor, self.action = message_id, actor, action


class NotAuthorised(ReviewError):
    """The actor may not review drafts."""


class UnconfirmedLinks(ReviewError):
    """The reply carries links that are not in the documents and the reviewer has not confirmed them."""

    def __init__(self, draft_id: int, links: list[str]) -> None:
        super().__init__(f"draft #{draft_id} contains links that are not in the documents ({', '.join(links)}); confirm them explicitly to send")
        self.draft_id, self.links = draft_id, links


class OfficeError(ReviewError):
    """An office of a campus deployment cannot be created, found or used as asked."""


class UnknownOffice(OfficeError):
    """No office with this name (or it was removed)."""


class RoutingLoop(OfficeError):
    """A move would send a message back to an office it already left (A -> B -> A)."""

    def __init__(self, message_id: int, path: list[str], target: str) -> None:
        route = " -> ".join(path)
        super().__init__(f"message {message_id} already went through office {target!r} ({route}); sending it back would make a loop")
        self.message_id, self.path, self.target = message_id, path, target

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

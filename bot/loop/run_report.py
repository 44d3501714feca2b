"""What one pass of the loop did (counts shared by intake, drafting and sending)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class RunReport:
    """What one pass of the loop did."""

    stored: int = 0
    duplicates: int = 0
    skipped: int = 0
    quarantined: int = 0
    drafted: int = 0
    acknowledged: int = 0
    waiting: int = 0  # drafting failed transiently: the message waits for its next attempt (not drafted, not quarantined)
    offline: int = 0  # drafted offline after waiting drafting.offline_fallback_after_s (counted in drafted too)
    sent: int = 0
    failed: int = 0
    uncertain: int = 0
    purged: int = 0
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return self.__dict__.copy()

"""The campus: every office of the deployment (the default one, those declared in settings, those created with
`orienta offices add`) and the services scoped to each."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bot.wiring.services import Services
from pipeline.settings import OfficeSettings, office_slug
from review.db import session_scope
from review.errors import UnknownOffice


@dataclass(frozen=True)
class OfficeInfo:
    """One office as the rest of the code sees it, wherever it was declared."""

    name: str
    documents: tuple[Path, ...] = ()
    review_channel: str | None = None
    channels: tuple[str, ...] = ()
    mailbox: str | None = None
    reply_from: str | None = None
    reviewers: tuple[str, ...] = ()
    retention_days: int | None = None  # None: the deployment's database.retention_days
    default: bool = False
    source: str = "settings"  # default | settings | database

    @property
    def slug(self) -> str:
        return office_slug(self.name)


@dataclass
class Campus:
    """The offices of one deployment around the default office's services; office services are built once and shared
    the database engine and the embedder."""

    services: Services
    _scoped: dict[str, Services] = field(default_factory=dict)

    @property
    def default(self) -> str:
        return self.services.settings.offices.default

    def offices(self) -> list[OfficeInfo]:
        """The default office first, then the declared ones, then those created in the database."""
        s = self.services.settings
        out = [OfficeInfo(name=s.offices.default, documents=tuple(self.services.settings.paths.documents), review_channel=s.slack.review_channel, default=True, source="default")]
        out += [_from_settings(o) for o in s.offices.declared]
        from review.offices import list_offices

        with session_scope(self.services.engine) as session:
            rows = list_offices(session=session)
            taken = {o.slug for o in out}
            out += [
                OfficeInfo(
                    name=r.name, documents=tuple(Path(d) for d in r.documents or []), review_channel=r.review_channel, channels=tuple(r.channels or []),
                    mailbox=r.mailbox, reply_from=r.reply_from, reviewers=tuple(r.reviewers or []), retention_days=r.retention_days, source="database",
                )
                for r in rows
                if r.slug not in taken
            ]
        return out

    def names(self) -> list[str]:
        return [o.name for o in self.offices()]

    def info(self, name: str) -> OfficeInfo:
        slug = office_slug(name)
        for office in self.offices():
            if office.slug == slug or office.name.lower() == name.strip().lower():
                return office
        raise UnknownOffice(f"no office {name!r}; offices: {', '.join(self.names())}")

    def is_campus(self) -> bool:
        """More than the default office."""
        return bool(self.services.settings.offices.declared) or len(self.offices()) > 1

    def only_office(self) -> str | None:
        """The one office a command without --office means when the default office is unused (no documents configured,
        nothing indexed) and exactly one other office exists; None otherwise (the default office)."""
        s = self.services.settings
        if s.paths.documents or s.offices.shared_documents:
            return None
        others = [o for o in self.offices() if not o.default]
        if len(others) != 1:
            return None
        if (s.qdrant.url or s.paths.qdrant_dir.exists()) and self.services.index.count():
            return None
        return others[0].name

    def office_services(self, name: str | None) -> Services:
        """The services of one office (None or the default office's name: the default services themselves)."""
        if name is None:
            return self.services
        office = self.info(name)
        if office.default:
            return self.services
        if office.slug not in self._scoped:
            settings = self.services.settings.for_office(office.name, documents=list(office.documents), review_channel=office.review_channel, reply_from=office.reply_from)
            scoped = Services(settings)
            scoped.__dict__["engine"] = self.services.engine  # one database for the campus
            scoped.__dict__["embedder"] = self.services.embedder  # one model in memory
            scoped.office = office.name
            scoped.__dict__["_campus"] = self  # campus_of(office services) is this campus, not one around them
            self._scoped[office.slug] = scoped
        return self._scoped[office.slug]

    def indexed(self) -> list[tuple[OfficeInfo, Services]]:
        """Offices whose index holds documents (the ones a message can be routed to)."""
        out = []
        for office in self.offices():
            svc = self.office_services(office.name)
            if (svc.settings.qdrant.url or svc.settings.paths.qdrant_dir.exists()) and svc.index.count():
                out.append((office, svc))
        return out

    def close(self) -> None:
        for svc in self._scoped.values():
            svc.close()
        self._scoped.clear()


def _from_settings(o: OfficeSettings) -> OfficeInfo:
    return OfficeInfo(
        name=o.name, documents=tuple(o.documents), review_channel=o.review_channel, channels=tuple(o.channels), mailbox=o.mailbox,
        reply_from=o.reply_from, reviewers=tuple(o.reviewers), retention_days=o.retention_days, source="settings",
    )


def campus_of(services: Services) -> Campus:
    """The campus around these (default-office) services, built once per Services object."""
    campus = services.__dict__.get("_campus")
    if campus is None:
        campus = services.__dict__["_campus"] = Campus(services)
    return campus

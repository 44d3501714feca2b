"""Campus mode in Slack: each office's cards go to its review channel, and only its reviewers, clicking there (or the
campus lead), may decide them."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from bot.slack import blocks
from bot.slack.poster import post_pending_cards
from review.db import session_scope
from review.models import AuditEvent, Decision, InboundMessage
from review.office_models import OfficeCreate
from review.offices import add_office
from tests.bot.slack.conftest import REVIEW_CHANNEL
from tests.bot.slack.helpers import click, drain, make_app
from tests.review.factories import make_drafted

BECAS_CHANNEL = "CBECAS001"


@pytest.fixture
def campus(services):
    """Office «becas» reviewed by U0BEA in its own channel; U0ANA and U0BETO review the default office; U0LEAD leads the campus."""
    services.settings.offices.leads = ["U0LEAD"]
    with session_scope(services.engine) as session:
        add_office(session=session, data=OfficeCreate(name="becas", slug="", review_channel=BECAS_CHANNEL, reviewers=["U0BEA"]), actor="test")
    return services


def _card(services, slack_server, office: str | None):
    with session_scope(services.engine) as session:
        draft, message = make_drafted(session)
        message.office = office
        session.add(message)
    assert post_pending_cards(services) == 1
    return draft


def _decisions(services) -> list[tuple[int, str]]:
    with Session(services.engine) as s:
        return [(d.draft_id, d.actor) for d in s.exec(select(Decision)).all()]


def _refusals(services) -> int:
    with Session(services.engine) as s:
        return len(s.exec(select(AuditEvent).where(AuditEvent.event == "unauthorised")).all())


def test_an_offices_card_goes_to_its_review_channel(campus, slack_server):
    _card(campus, slack_server, "becas")
    assert len(slack_server.posted(BECAS_CHANNEL)) == 1 and not slack_server.posted(REVIEW_CHANNEL)


def test_another_offices_reviewer_is_refused(campus, slack_server):
    draft = _card(campus, slack_server, "becas")
    app = make_app(campus, slack_server)
    click(app, blocks.APPROVE, draft.id, user="U0ANA", channel=BECAS_CHANNEL)  # a reviewer of the default office
    drain(app)
    assert _decisions(campus) == [] and _refusals(campus) == 1


def test_an_offices_card_clicked_from_another_offices_channel_is_refused(campus, slack_server):
    draft = _card(campus, slack_server, "becas")
    app = make_app(campus, slack_server)
    click(app, blocks.APPROVE, draft.id, user="U0BEA", channel=REVIEW_CHANNEL)
    drain(app)
    assert _decisions(campus) == [] and _refusals(campus) == 1


def test_the_offices_reviewer_in_its_channel_decides(campus, slack_server):
    draft = _card(campus, slack_server, "becas")
    app = make_app(campus, slack_server)
    click(app, blocks.APPROVE, draft.id, user="U0BEA", channel=BECAS_CHANNEL)
    drain(app)
    assert _decisions(campus) == [(draft.id, "slack:U0BEA")]


def test_the_default_offices_card_is_not_another_offices_reviewers(campus, slack_server):
    draft = _card(campus, slack_server, None)
    app = make_app(campus, slack_server)
    click(app, blocks.REJECT, draft.id, user="U0BEA", channel=REVIEW_CHANNEL)
    drain(app)
    assert _decisions(campus) == [] and _refusals(campus) == 1


def test_the_campus_lead_may_act_on_any_office_and_on_messages_no_office_takes(campus, slack_server):
    app = make_app(campus, slack_server)
    becas = _card(campus, slack_server, "becas")
    click(app, blocks.APPROVE, becas.id, user="U0LEAD", channel=BECAS_CHANNEL)
    gone = _card(campus, slack_server, "cerrada")  # an office that does not exist: its card goes to the deployment's channel
    assert slack_server.posted(REVIEW_CHANNEL)
    click(app, blocks.APPROVE, gone.id, user="U0ANA", channel=REVIEW_CHANNEL)  # not the default office's business
    click(app, blocks.APPROVE, gone.id, user="U0LEAD", channel=REVIEW_CHANNEL)
    drain(app)
    assert sorted(_decisions(campus)) == sorted([(becas.id, "slack:U0LEAD"), (gone.id, "slack:U0LEAD")]) and _refusals(campus) == 1
    with Session(campus.engine) as s:
        assert s.get(InboundMessage, gone.message_id).office == "cerrada"


def test_one_office_keeps_the_deployments_reviewers(services, slack_server):
    draft = _card(services, slack_server, None)
    app = make_app(services, slack_server)
    click(app, blocks.APPROVE, draft.id, user="U0BETO", channel=REVIEW_CHANNEL)
    drain(app)
    assert _decisions(services) == [(draft.id, "slack:U0BETO")]


def test_the_app_home_lists_only_the_offices_the_user_reviews(campus, slack_server):
    from slack_sdk import WebClient

    from bot.slack import reviewing

    _card(campus, slack_server, "becas")
    _card(campus, slack_server, None)
    client = WebClient(token="xoxb-test", base_url=slack_server.api_url)
    assert reviewing.offices_of(campus, client, user_id="U0BEA") == ["becas"]
    assert reviewing.offices_of(campus, client, user_id="U0ANA") == [None]
    assert reviewing.offices_of(campus, client, user_id="U0LEAD") is None
    bea = reviewing.home_for(campus, user_id="U0BEA", offices=["becas"])
    lead = reviewing.home_for(campus, user_id="U0LEAD", offices=None)
    pending = lambda view: next(f["text"] for b in view["blocks"] for f in b.get("fields") or [] if "\n" in f["text"] and f["text"].startswith("*")).split("\n")[1]  # noqa: E731
    assert (pending(bea), pending(lead)) == ("1", "2")

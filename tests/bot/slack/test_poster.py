"""The rate-limited card poster: pacing per channel, Retry-After, and one card per pending draft."""

from __future__ import annotations

import pytest
from slack_sdk import WebClient
from sqlmodel import Session, select

from bot.slack.poster import PostFailed, RateLimitedPoster, post_pending_cards
from review import queue
from review.db import session_scope
from review.models import Draft
from tests.bot.slack.conftest import REVIEW_CHANNEL
from tests.review.factories import make_drafted


class FakeClock:
    def __init__(self) -> None:
        self.now, self.sleeps = 0.0, []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 3))
        self.now += seconds


def test_posts_to_one_channel_are_paced_and_other_channels_are_not_held_up(slack_server):
    slack_server.rate_limit = False
    clock = FakeClock()
    poster = RateLimitedPoster(WebClient(token="xoxb-test", base_url=slack_server.api_url), rate_per_channel=1.0, clock=clock, sleep=clock.sleep)
    for text in ("a1", "a2", "a3"):
        poster.post_message(channel="CA", text=text)
    poster.post_message(channel="CB", text="b1")
    assert clock.sleeps == [1.0, 1.0]  # a2 and a3 waited one second each; b1 went straight out
    assert [m["text"] for m in slack_server.posted("CA")] == ["a1", "a2", "a3"]


def test_retry_after_is_honoured_until_the_message_goes_out(slack_server):
    slack_server.ratelimit_next("chat.postMessage", retry_after=3, count=2)
    clock = FakeClock()
    poster = RateLimitedPoster(WebClient(token="xoxb-test", base_url=slack_server.api_url), clock=clock, sleep=clock.sleep)
    response = poster.post_message(channel="CA", text="hola")
    assert response["ok"] and clock.sleeps == [3.0, 3.0]
    assert poster.stats.rate_limited == 2 and [m["text"] for m in slack_server.posted("CA")] == ["hola"]


def test_gives_up_after_max_attempts_and_on_real_errors(slack_server):
    clock = FakeClock()
    poster = RateLimitedPoster(WebClient(token="xoxb-test", base_url=slack_server.api_url), max_attempts=2, clock=clock, sleep=clock.sleep)
    slack_server.ratelimit_next("chat.postMessage", retry_after=1, count=2)
    with pytest.raises(PostFailed, match="ratelimited"):
        poster.post_message(channel="CA", text="x")
    slack_server.fail_next("chat.postMessage", "channel_not_found")
    with pytest.raises(PostFailed, match="channel_not_found"):
        poster.post_message(channel="CA", text="y")
    assert clock.sleeps == [1.0] and slack_server.posted("CA") == []


def test_pending_drafts_get_exactly_one_card_each_in_order(services, slack_server):
    slack_server.post_message_rate, slack_server.post_message_burst = 50.0, 3  # a faster configured limit keeps the test short
    with session_scope(services.engine) as s:
        drafts = [make_drafted(s, subject=f"consulta {i}")[0] for i in range(6)]
        queue.reject(session=s, draft_id=drafts[5].id, actor="u", reason="spam")  # decided: no card
    poster = RateLimitedPoster(WebClient(token="xoxb-test", base_url=slack_server.api_url), rate_per_channel=20.0)
    assert post_pending_cards(services, poster=poster) == 5
    assert post_pending_cards(services, poster=poster) == 0
    posted = slack_server.posted(REVIEW_CHANNEL)
    assert [m["text"].split(": ", 1)[1] for m in posted] == [f"consulta {i}" for i in range(5)]
    with Session(services.engine) as s:
        stored = {d.id: (d.slack_channel, d.slack_ts) for d in s.exec(select(Draft)).all()}
    assert [stored[d.id] for d in drafts[:5]] == [(REVIEW_CHANNEL, m["ts"]) for m in posted]
    assert stored[drafts[5].id] == (None, None)


def test_backlog_under_slack_style_limits_posts_without_errors(services, slack_server):
    slack_server.post_message_rate, slack_server.post_message_burst = 10.0, 2  # Slack's shape, scaled 10x to keep the test short
    with session_scope(services.engine) as s:
        for i in range(12):
            make_drafted(s, subject=f"c{i}")
    poster = RateLimitedPoster(WebClient(token="xoxb-test", base_url=slack_server.api_url), rate_per_channel=10.0)
    assert post_pending_cards(services, poster=poster) == 12
    assert poster.stats.errors == [] and len(slack_server.posted(REVIEW_CHANNEL)) == 12


def test_the_loop_step_posts_new_cards_and_is_a_no_op_without_slack(services, slack_server):
    from bot.slack.reviewing import review_pass

    with session_scope(services.engine) as s:
        make_drafted(s)
    assert review_pass(services) == {"cards_posted": 1, "cards_synced": 0}
    assert len(slack_server.posted(REVIEW_CHANNEL)) == 1
    services.settings.slack.review_channel = None
    assert review_pass(services) == {}


def test_campus_mode_posts_each_card_to_its_office_review_channel(services, slack_server):
    from review.office_models import OfficeCreate
    from review.offices import add_office

    slack_server.post_message_rate, slack_server.post_message_burst = 50.0, 3
    with session_scope(services.engine) as s:
        add_office(session=s, data=OfficeCreate(name="Becas", slug="", documents=[], review_channel="C0BECAS"), actor="lead")
        make_drafted(s, subject="de la oficina principal")
        _, becas = make_drafted(s, subject="de becas")
        becas.office = "Becas"
        _, gone = make_drafted(s, subject="de una oficina que no existe")
        gone.office = "Tesorería"
        s.add_all([becas, gone])
    poster = RateLimitedPoster(WebClient(token="xoxb-test", base_url=slack_server.api_url), rate_per_channel=20.0)
    assert post_pending_cards(services, poster=poster) == 3
    assert [m["text"].split(": ", 1)[1] for m in slack_server.posted("C0BECAS")] == ["de becas"]
    assert [m["text"].split(": ", 1)[1] for m in slack_server.posted(REVIEW_CHANNEL)] == ["de la oficina principal", "de una oficina que no existe"]  # the campus lead's channel

"""Slack card poster benchmark: post a backlog of review cards through the rate-limited poster.

  .venv/bin/python benchmarks/slack_poster.py [--cards 500] [--server-rate 1.0] [--burst 10] [--poster-rate 1.0]

The local FakeSlackServer enforces Slack's chat.postMessage limit (token bucket: --server-rate messages/s per
channel, burst --burst, HTTP 429 + Retry-After beyond it). All cards go to one review channel, so at Slack's
1 msg/s 500 cards take ~8 minutes. Prints a table and writes benchmarks/results/slack_poster.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pydantic import SecretStr  # noqa: E402
from slack_sdk import WebClient  # noqa: E402

from bot.wiring.services import Services  # noqa: E402
from bot.slack.poster import RateLimitedPoster, post_pending_cards  # noqa: E402
from pipeline.settings import Settings  # noqa: E402
from review.db import session_scope  # noqa: E402
from tests.review.factories import make_drafted  # noqa: E402
from tests.servers.slack_server import FakeSlackServer  # noqa: E402

CHANNEL = "CREVIEW01"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=500)
    ap.add_argument("--server-rate", type=float, default=1.0, help="Slack limit: chat.postMessage per second per channel")
    ap.add_argument("--burst", type=float, default=10)
    ap.add_argument("--poster-rate", type=float, default=1.0, help="the poster's own pacing (settings.slack.post_rate_per_channel)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "slack_poster.json"))
    args = ap.parse_args()

    server = FakeSlackServer(post_message_rate=args.server_rate, post_message_burst=args.burst)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), _env_file=None)  # type: ignore[call-arg]
        settings.slack.bot_token, settings.slack.signing_secret = SecretStr("xoxb-test"), SecretStr("bench-signing-secret")
        settings.slack.base_url, settings.slack.review_channel = server.api_url, CHANNEL
        services = Services(settings)
        with session_scope(services.engine) as s:
            for i in range(args.cards):
                make_drafted(s, subject=f"consulta {i}")
        poster = RateLimitedPoster(WebClient(token="xoxb-test", base_url=server.api_url), rate_per_channel=args.poster_rate)
        t0 = time.perf_counter()
        posted = post_pending_cards(services, poster=poster)
        elapsed = time.perf_counter() - t0
        services.close()
    msgs = server.posted(CHANNEL)
    in_order = [m["text"].split(": ", 1)[1] for m in msgs] == [f"consulta {i}" for i in range(args.cards)]
    server.stop()
    result = {
        "cards": args.cards,
        "posted": posted,
        "errors": len(poster.stats.errors),
        "in_order": in_order,
        "http_429": poster.stats.rate_limited,
        "server_rate_per_s": args.server_rate,
        "server_burst": args.burst,
        "poster_rate_per_s": args.poster_rate,
        "elapsed_s": round(elapsed, 1),
        "measured_rate_per_s": round(posted / elapsed, 3) if elapsed else None,
        "waited_s": round(poster.stats.waited_s, 1),
    }
    print(f"{'cards':>6} {'posted':>6} {'errors':>6} {'429s':>5} {'elapsed s':>10} {'rate/s':>7} {'in order':>8}")
    print(f"{args.cards:>6} {posted:>6} {result['errors']:>6} {result['http_429']:>5} {result['elapsed_s']:>10} {result['measured_rate_per_s']:>7} {str(in_order):>8}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()

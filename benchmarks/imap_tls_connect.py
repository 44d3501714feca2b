"""IMAP logins over TLS against a real Dovecot on loopback: how many of N connections (IMAPS and STARTTLS) succeed, and how long one takes.

Run: python benchmarks/imap_tls_connect.py [--n 300] [--stock]
Writes benchmarks/results/imap_tls_connect.json (or imap_tls_connect_stock.json). --stock uses imaplib2's own TLS
(ca_certs=..., no host-name check, reader and writer threads racing on the SSL object) instead of bot.email.imap.connect,
to show the hang the fix removed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[0] = str(REPO)  # not benchmarks/: its queue.py would shadow the standard library

import imaplib2  # noqa: E402
import trustme  # noqa: E402
from pydantic import SecretStr  # noqa: E402

from bot.email.imap import connect  # noqa: E402
from bot.errors import ChannelError  # noqa: E402
from pipeline.settings import IMAPSettings  # noqa: E402
from tests.servers.dovecot import DovecotServer  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--timeout", type=float, default=4.0, help="seconds without a response that count as a hang")
    ap.add_argument("--stock", action="store_true")
    args = ap.parse_args()
    d = Path(tempfile.mkdtemp(prefix="orienta-tls-bench-"))
    os.chmod(d, 0o755)
    ca = trustme.CA()
    cert = ca.issue_cert("localhost")
    ca.cert_pem.write_to_path(str(d / "ca.pem"))
    (d / "server.pem").write_bytes(b"".join(p.bytes() for p in cert.cert_chain_pems))
    cert.private_key_pem.write_to_path(str(d / "server.key"))
    results: dict = {"n": args.n, "timeout_s": args.timeout, "client": "imaplib2 stock TLS" if args.stock else "bot.email.imap.connect",
                     "load_average_at_start": os.getloadavg()[0]}
    with DovecotServer(tls=(d / "server.pem", d / "server.key")) as server:
        results["dovecot"] = server.version
        for mode in ("ssl", "starttls"):
            port = server.ssl_port if mode == "ssl" else server.port
            settings = IMAPSettings(host="localhost", port=port, user=server.user, password=SecretStr(server.password),
                                    security=mode, ca_file=d / "ca.pem", timeout_s=args.timeout)
            ok, hangs, times = 0, [], []
            for i in range(args.n):
                t0 = time.perf_counter()
                try:
                    if args.stock:
                        if mode == "ssl":
                            conn = imaplib2.IMAP4_SSL("localhost", port, ca_certs=str(d / "ca.pem"), timeout=args.timeout)
                        else:
                            conn = imaplib2.IMAP4("localhost", port, timeout=args.timeout)
                            conn.starttls(ca_certs=str(d / "ca.pem"))
                        conn.login(server.user, server.password)
                    else:
                        conn = connect(settings)
                    conn.logout()
                    ok += 1
                    times.append(time.perf_counter() - t0)
                except (ChannelError, imaplib2.IMAP4.error) as exc:
                    hangs.append(f"{i}: {exc}")
            results[mode] = {"ok": ok, "failed": len(hangs), "failures": hangs[:5],
                             "median_connect_s": round(statistics.median(times), 4) if times else None}
            print(f"{mode:9s} {ok}/{args.n} ok, {len(hangs)} failed, median {results[mode]['median_connect_s']} s per login")
    out = REPO / "benchmarks" / "results" / ("imap_tls_connect_stock.json" if args.stock else "imap_tls_connect.json")
    out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {out.relative_to(REPO)}")


if __name__ == "__main__":
    main()

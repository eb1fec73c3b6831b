#!/usr/bin/env python3
"""What a labeling-tool integration does, against the demo study of ``./dev run``.

1. upload a batch of annotations into the open round ("Main") of the demo study,
2. request an agreement computation of that round and wait for it,
3. print the study's agreement history, round after round.

Run ``./dev run`` in one terminal, then in another::

    python examples/client_demo.py --username admin --password <the printed password>

or, with a token (a personal token of a member, or a study token with the annotator role)::

    AGREEMENT_URL=http://127.0.0.1:8000 AGREEMENT_TOKEN=<secret> python examples/client_demo.py

With a username and password the script logs in once and creates a personal token named
"client demo" (tokens are listed and revoked under /api/v1/tokens/ or in the admin).
Standard library only; run it from the repository root (or install the package).
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import sys
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agreement_client import AgreementClient, AgreementError

DEMO_STUDY_NAME = "Demo: forum posts"


def token_from_login(base_url: str, username: str, password: str) -> str:
    """Log in like a browser (session + CSRF) and create a personal token."""
    root = base_url.rstrip("/")
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(f"{root}/admin/login/").read()
    csrf = next((c.value or "" for c in jar if c.name == "csrftoken"), "")
    form = urllib.parse.urlencode(
        {"username": username, "password": password, "csrfmiddlewaretoken": csrf, "next": "/admin/"}
    ).encode()
    opener.open(
        urllib.request.Request(
            f"{root}/admin/login/", data=form, headers={"Referer": f"{root}/admin/login/"}
        )
    ).read()
    if not any(c.name == "sessionid" for c in jar):
        raise SystemExit("Login failed: check the username and password printed by ./dev run.")
    csrf = next((c.value or "" for c in jar if c.name == "csrftoken"), csrf)
    request = urllib.request.Request(
        f"{root}/api/v1/tokens/",
        data=json.dumps({"name": "client demo"}).encode(),
        headers={
            "Content-Type": "application/json",
            "X-CSRFToken": csrf,
            "Referer": f"{root}/api/v1/tokens/",
        },
        method="POST",
    )
    with opener.open(request) as answer:
        return str(json.loads(answer.read())["secret"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("AGREEMENT_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=os.environ.get("AGREEMENT_TOKEN"))
    parser.add_argument("--username", default=os.environ.get("AGREEMENT_USERNAME"))
    parser.add_argument("--password", default=os.environ.get("AGREEMENT_PASSWORD"))
    parser.add_argument("--study", type=int, help="A study id (default: the demo study).")
    parser.add_argument("--round", default="Main", help="An open round's name or id.")
    parser.add_argument("--question", default="sentiment", help="A question's key.")
    args = parser.parse_args(argv)

    token = args.token
    if not token:
        if not (args.username and args.password):
            parser.error("give --token (or AGREEMENT_TOKEN), or --username and --password")
        token = token_from_login(args.url, args.username, args.password)
        print(f"Created a personal token ({token[:8]}…).")
    client = AgreementClient(args.url, token)

    try:
        study_id = args.study
        if study_id is None:
            demo = [s for s in client.list_studies() if s["name"] == DEMO_STUDY_NAME]
            if not demo:
                raise SystemExit(f"No study named {DEMO_STUDY_NAME!r}: did ./dev run load it?")
            study_id = demo[0]["id"]
        print(f"Study {study_id}: {client.study(study_id)['name']}")

        # 1. A labeling tool's export: three coders relabel five posts of the open round.
        rows = [
            ("post-001", "alice", "positive"), ("post-001", "bob", "positive"),
            ("post-001", "chen", "positive"), ("post-002", "alice", "negative"),
            ("post-002", "bob", "negative"), ("post-002", "chen", "neutral"),
            ("post-003", "alice", "neutral"), ("post-003", "bob", "neutral"),
            ("post-003", "chen", "neutral"), ("post-041", "alice", "positive"),
            ("post-041", "bob", "positive"), ("post-041", "dana", "positive"),
        ]  # fmt: skip
        report = client.upload_annotations(
            study_id, round=args.round, question=args.question, rows=rows, create_missing=True
        )
        print(f"Uploaded: {json.dumps(report)}")

        # 2. Agreement of the round, computed by the worker.
        computation = client.request_computation(
            study_id, question=args.question, round=args.round, bootstrap=500
        )
        print(f"Computation {computation['id']} {computation['status']}: {computation['url']}")
        done = client.wait_for_computation(computation, timeout=300, poll=0.5)
        for name, entry in sorted(done["results"]["coefficients"].items()):
            ci = entry.get("ci") or {}
            interval = f"  [{ci['low']:.3f}, {ci['high']:.3f}]" if ci.get("low") is not None else ""
            value = entry.get("value")
            print(f"  {name:>18} = {value:.3f}{interval}" if value is not None else f"  {name}: -")

        # 3. The history of the question, round after round.
        history = client.history(study_id, question=args.question)
        for question in history["questions"]:
            print(f"History of {question['question_key']}:")
            for entry in question["rounds"]:
                alpha = (entry["coefficients"].get("alpha") or {}).get("value")
                shown = f"{alpha:.3f}" if alpha is not None else "not computed"
                print(f"  {entry['round_name']:>8} ({entry['status']}): alpha = {shown}")
    except AgreementError as error:
        print(f"The server refused: {error} (codes: {error.codes})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

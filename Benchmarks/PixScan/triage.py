#!/usr/bin/env python3
"""Triages a folder through pixscan's HTTP API the way the page does, and times it.

Usage: triage.py PORT PREFETCH TOKEN

One photo is: GET /api/state (the card and the next photos) -> GET /api/thumbnail of the card
(1024 px, what the page shows) -> POST /api/decide (keep). With PREFETCH > 0, the next PREFETCH
photos' card thumbnails are requested in the background as soon as the state names them (two
connections, as a browser's image loads run beside the page's own requests), so that the card's
own request finds them made or in flight. Prints one JSON line: photos, seconds, photos/s.
"""

import http.client
import json
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

PORT = int(sys.argv[1])
PREFETCH = int(sys.argv[2])
TOKEN = sys.argv[3]
local = threading.local()


def connection():
    if not hasattr(local, "connection"):
        local.connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=120)
    return local.connection


def request(method, path, body=None):
    conn = connection()
    headers = {"X-PixScan-Token": TOKEN}
    if body is not None:
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    if response.status != 200:
        raise SystemExit(f"{method} {path}: HTTP {response.status} {data[:200]!r}")
    return data


def thumbnail(photo):
    path = urllib.parse.quote(photo["path"], safe="")
    version = f'{photo["byteCount"]}-{photo["modifiedMilliseconds"]}'
    return request("GET", f"/api/thumbnail?path={path}&size=card&v={version}")


def main():
    pool = ThreadPoolExecutor(max_workers=2)
    requested = set()
    photos = 0
    start = time.perf_counter()
    while True:
        state = json.loads(request("GET", f"/api/state?ahead={PREFETCH + 1}"))
        upcoming = state["upcoming"]
        if not upcoming:
            break
        for photo in upcoming[1:]:
            if photo["path"] not in requested:
                requested.add(photo["path"])
                pool.submit(thumbnail, photo)
        card = upcoming[0]
        jpeg = thumbnail(card)
        assert jpeg[:2] == b"\xff\xd8"
        request("POST", "/api/decide", json.dumps({"path": card["path"], "action": "keep"}))
        photos += 1
    seconds = time.perf_counter() - start
    pool.shutdown(wait=True)
    print(json.dumps({"photos": photos, "seconds": seconds, "per_second": photos / seconds}))


if __name__ == "__main__":
    main()

"""Sends events to `beacon agent` through the real Segment client library
(segment-analytics-python), and prints what the client saw as one JSON line.

Usage: segment_client.py HOST WRITE_KEY COUNT [DELAY_SECONDS]

Each event is a track call with messageId `seg-<i>`. The library batches with its
defaults (100 events or 0.5 s per request) and retries 5xx answers and connection errors
(refused while the agent restarts) with its own backoff; `max_retries` is raised so an
agent restart is ridden out. `on_error` records every final failure (events the library
gives up on). A wrapper around the library's `post` records which messageIds a 200
acknowledged.

Output (stdout, one line): {"tracked": N, "acknowledged": N, "acknowledgedUnique": N,
"failedEvents": N, "errors": ["..."], "acknowledgedIds": [...]}
"""

import json
import sys
import threading
import time

import segment.analytics as analytics
import segment.analytics.consumer as consumer


def main():
    host, write_key, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    delay = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
    lock = threading.Lock()
    acknowledged = []
    errors = []
    failed = []

    original_post = consumer.post

    def recording_post(*args, **kwargs):
        response = original_post(*args, **kwargs)  # raises on any answer but 200
        with lock:
            acknowledged.extend(item.get("messageId") for item in kwargs.get("batch", []))
        return response

    consumer.post = recording_post

    def on_error(error, items):
        with lock:
            errors.append(str(error))
            failed.extend(item.get("messageId") for item in items)

    analytics.write_key = write_key
    analytics.host = host
    analytics.max_retries = 40
    analytics.on_error = on_error
    analytics.debug = False

    for index in range(count):
        analytics.track(
            user_id="user-%d" % (index % 50),
            event="Agent Test",
            properties={"index": index, "price": 1.5, "tags": ["a", "b"]},
            message_id="seg-%d" % index,
        )
        if delay > 0:
            time.sleep(delay)

    analytics.flush()
    analytics.shutdown()
    with lock:
        print(json.dumps({
            "tracked": count,
            "acknowledged": len(acknowledged),
            "acknowledgedUnique": len(set(acknowledged)),
            "failedEvents": len(failed),
            "errors": errors[:20],
            "acknowledgedIds": sorted(set(acknowledged)),
        }))
    sys.stdout.flush()


if __name__ == "__main__":
    main()

"""Sends identify, track, page, screen and group calls through other vendors' Segment-compatible
client libraries (forks of Segment's analytics-python) to `beacon collector` or `beacon agent`,
and prints what the client saw as one JSON line.

Usage:
    vendor_clients.py CLIENT BASE_URL WRITE_KEY TAG [--gzip]
    vendor_clients.py --check [CLIENT...] prints {"available": [...], "missing": {NAME: why}};
                                          exit 0 when every CLIENT's library (default: all) imports
    vendor_clients.py --list              one line per client: NAME PACKAGE==VERSION

Each library is installed on its own, by `.ci/run`, with
`pip install --target $BEACON_VENDOR_CLIENTS/PACKAGE==VERSION PACKAGE==VERSION` (the default
folder is ~/.cache/beacon/vendor-clients): several of them install a top-level `analytics`
module, and their pinned dependencies differ. A library is only imported from its folder.

The library is used as an application would: its Client pointed at BASE_URL (its host or
endpoint setting; astronomer-analytics has none, see hook_http), the write key given the
library's way, one call of each kind, then flush and shutdown. Where the library takes a
`message_id`, the call carries `TAG-CLIENT-CALL`; otherwise it makes its own and the ids are
read from the batches it posted. `--gzip` turns on the library's gzip setting where it has one.

What is recorded: every batch the library posted and whether the server answered 200
(a wrapper around the library's own `post`), every HTTP exchange (path, status, auth scheme,
Content-Encoding, the body's top-level keys, the answer of a refusal), every `on_error`
call, and log records at ERROR or above from the library's loggers.

Output (stdout, one line): {"client", "package", "calls", "unsupported", "chosenIds", "sent",
"acknowledged", "requests", "errors", "warnings"}. Exit 1 on any client error, or when
a call's event was not acknowledged.
"""

import gzip as gzip_module
import json
import logging
import os
import sys
import threading

# name: (PyPI package, version, module to import, calls the library offers)
CLIENTS = {
    # Customer.io Data Pipelines: POST HOST/v1/batch, Basic auth (Bearer for pk_/sk_ keys).
    "customerio": ("customerio-cdp-analytics", "1.1.0", "customerio.analytics",
                   ("identify", "track", "page", "screen", "group")),
    # Hightouch Events: POST HOST/v1/batch, writeKey in the body, no Authorization header.
    "hightouch": ("events-sdk-python", "0.0.4", "hightouch.htevents",
                  ("identify", "track", "page", "screen", "group")),
    # June: POST HOST/sdk/batch, Basic auth.
    "june": ("june-analytics-python", "2.3.0", "june.analytics",
             ("identify", "track", "page", "screen", "group")),
    # Journify: POST HOST/v1/batch, writeKey in the body; its Client has no screen().
    "journify": ("journify-python-sdk", "2.2.5", "journify",
                 ("identify", "track", "page", "group")),
    # FindHotel's fork: POST to a full endpoint URL, key in `x-api-key`, epoch-ms timestamps.
    "findhotel": ("analytics-python-findhotel", "1.6.1", "analytics",
                  ("identify", "track", "page", "screen", "group")),
    # Astronomer's fork: POST https://api.astronomer.io/v1/batch (fixed), Basic auth.
    "astronomer": ("astronomer-analytics", "1.2.7", "analytics",
                   ("identify", "track", "page", "screen", "group")),
    # A third party's fork published as `segmentio`: POST HOST/v1/batch, Basic auth.
    "segmentio": ("segmentio", "1.2.8", "segmentio",
                  ("identify", "track", "page", "screen", "group")),
}

ALL_CALLS = ("identify", "track", "page", "screen", "group")
ASTRONOMER_HOST = "https://api.astronomer.io"


def vendor_root():
    return os.environ.get("BEACON_VENDOR_CLIENTS") or os.path.expanduser("~/.cache/beacon/vendor-clients")


def use_client(name):
    """Puts the client's own install folder first on sys.path and imports its module."""
    package, version, module, _ = CLIENTS[name]
    folder = os.path.join(vendor_root(), "%s==%s" % (package, version))
    if not os.path.isdir(folder):
        # No fallback to site-packages: another fork's `analytics` could stand in for this one.
        raise ImportError("%s==%s is not installed in %s" % (package, version, folder))
    sys.path.insert(0, folder)
    __import__(module)
    return sys.modules[module]


class Recorder:
    def __init__(self, client, tag):
        self.client = client
        self.tag = tag
        self.lock = threading.Lock()
        self.sent = []           # messageIds in the batches the library posted, in order, once each
        self.acknowledged = []   # messageIds in batches answered 200
        self.requests = []       # one entry per HTTP exchange
        self.errors = []
        self.warnings = []

    def message_id(self, call):
        return "%s-%s-%s" % (self.tag, self.client, call)

    def error(self, text):
        with self.lock:
            self.errors.append(text)

    # The library's post(), wrapped: it raises on any answer but 200.
    def wrap_post(self, original):
        def recording_post(*args, **kwargs):
            ids = [item.get("messageId") for item in kwargs.get("batch", [])]
            with self.lock:
                for message_id in ids:
                    if message_id not in self.sent:
                        self.sent.append(message_id)
            response = original(*args, **kwargs)
            with self.lock:
                self.acknowledged.extend(ids)
            return response
        return recording_post

    def on_error(self, error, items):
        ids = [item.get("messageId") for item in (items or [])]
        self.error("on_error: %s (messageIds %s)" % (error, ids))


class LogCapture(logging.Handler):
    def __init__(self, recorder):
        super().__init__(level=logging.WARNING)
        self.recorder = recorder

    def emit(self, record):
        text = "%s %s: %s" % (record.levelname, record.name, record.getMessage())
        if record.levelno >= logging.ERROR:
            self.recorder.error("log: " + text)
        else:
            with self.recorder.lock:
                self.recorder.warnings.append(text)


def hook_http(recorder, base_url, redirect_from=None):
    """Records each exchange requests makes; with `redirect_from`, sends requests aimed at that
    origin to `base_url` instead (as a hosts-file entry would), the rest of the request unchanged."""
    import requests
    from urllib.parse import urlsplit

    original_send = requests.Session.send

    def send(session, request, **kwargs):
        if redirect_from and request.url.startswith(redirect_from):
            request.url = base_url.rstrip("/") + request.url[len(redirect_from):]
        headers = request.headers
        authorization = headers.get("Authorization", "")
        body = request.body or b""
        if isinstance(body, str):
            body = body.encode()
        keys = []
        try:
            raw = gzip_module.decompress(body) if headers.get("Content-Encoding") == "gzip" else body
            parsed = json.loads(raw)
            keys = sorted(parsed) if isinstance(parsed, dict) else ["<%s>" % type(parsed).__name__]
        except Exception:  # noqa: BLE001 - a diagnostic only
            keys = ["<not JSON>"]
        entry = {
            "method": request.method,
            "path": urlsplit(request.url).path,
            "auth": authorization.split(" ", 1)[0] if authorization else None,
            "apiKeyHeader": "x-api-key" in {name.lower() for name in headers},
            "contentEncoding": headers.get("Content-Encoding"),
            "bodyKeys": keys,
        }
        try:
            response = original_send(session, request, **kwargs)
        except Exception as error:  # noqa: BLE001 - recorded, then re-raised for the library
            entry["exception"] = "%s: %s" % (type(error).__name__, error)
            with recorder.lock:
                recorder.requests.append(entry)
            raise
        entry["status"] = response.status_code
        if response.status_code != 200:
            entry["answer"] = response.text[:500]
        with recorder.lock:
            recorder.requests.append(entry)
        return response

    requests.Session.send = send


def make_client(name, lib, base_url, write_key, recorder, use_gzip):
    """The library's Client, pointed at `base_url`."""
    common = dict(on_error=recorder.on_error)
    if name in ("customerio", "hightouch", "june", "journify"):
        return lib.Client(write_key, host=base_url, gzip=use_gzip, max_retries=2, **common)
    if name == "findhotel":
        return lib.Client(write_key, endpoint=base_url.rstrip("/") + "/v1/batch", transport="http", **common)
    if name == "segmentio":
        return lib.Client(write_key, host=base_url, **common)
    if name == "astronomer":
        return lib.Client(write_key, **common)
    raise ValueError(name)


def send_calls(client, calls, recorder):
    """Makes each call; returns the messageIds it chose (calls whose method takes none get the library's own)."""
    import inspect
    user = "user-%s" % recorder.tag
    arguments = {
        "identify": dict(user_id=user, traits={"email": "ada@example.com", "plan": "pro"}),
        "track": dict(user_id=user, event="Order Completed", properties={"total": 99.5, "items": ["a", "b"]}),
        "page": dict(user_id=user, category="Docs", name="Getting Started", properties={"path": "/docs"}),
        "screen": dict(user_id=user, category="Onboarding", name="Welcome", properties={"step": 1}),
        "group": dict(user_id=user, group_id="acme", traits={"name": "Acme", "employees": 40}),
    }
    chosen = []
    for call in calls:
        kwargs = dict(arguments[call])
        method = getattr(client, call)
        if "message_id" in inspect.signature(method).parameters:
            kwargs["message_id"] = recorder.message_id(call)
            chosen.append(kwargs["message_id"])
        try:
            result = method(**kwargs)
        except Exception as error:  # noqa: BLE001 - a client error
            recorder.error("%s raised %s: %s" % (call, type(error).__name__, error))
            continue
        # Most return (success, msg); success False means the library dropped it (queue full).
        if isinstance(result, tuple) and len(result) == 2 and result[0] is False:
            recorder.error("%s was not enqueued" % call)
    return chosen


def finish(client):
    client.flush()
    if hasattr(client, "shutdown"):
        client.shutdown()
    elif hasattr(client, "join"):
        client.join()


def run(name, base_url, write_key, tag, use_gzip):
    package, version, _, calls = CLIENTS[name]
    recorder = Recorder(name, tag)
    chosen = []
    capture = LogCapture(recorder)
    logging.getLogger().addHandler(capture)
    logging.getLogger().setLevel(logging.WARNING)
    try:
        lib = use_client(name)
        consumer = sys.modules[lib.__name__ + ".consumer"]
        consumer.post = recorder.wrap_post(consumer.post)
        hook_http(recorder, base_url, redirect_from=ASTRONOMER_HOST if name == "astronomer" else None)
        client = make_client(name, lib, base_url, write_key, recorder, use_gzip)
        chosen = send_calls(client, calls, recorder)
        finish(client)
    except Exception as error:  # noqa: BLE001 - reported, exit 1
        recorder.error("driver: %s: %s" % (type(error).__name__, error))
    with recorder.lock:
        sent = list(recorder.sent)
        acknowledged = set(recorder.acknowledged)
        missing = [m for m in chosen if m not in sent]
        if missing:
            recorder.errors.append("never posted: %s" % missing)
        if len(sent) != len(calls):
            recorder.errors.append("posted %d events for %d calls" % (len(sent), len(calls)))
        unacknowledged = [m for m in sent if m not in acknowledged]
        if unacknowledged:
            recorder.errors.append("not acknowledged: %s" % unacknowledged)
        report = {
            "client": name,
            "package": "%s==%s" % (package, version),
            "calls": list(calls),
            "unsupported": [call for call in ALL_CALLS if call not in calls],
            "chosenIds": chosen,
            "sent": sent,
            "acknowledged": sorted(acknowledged),
            "requests": recorder.requests,
            "errors": recorder.errors[:20],
            "warnings": recorder.warnings[:20],
        }
    print(json.dumps(report))
    sys.stdout.flush()
    return 1 if report["errors"] else 0


def main(argv):
    if argv[:1] == ["--list"]:
        for name, (package, version, _, _) in CLIENTS.items():
            print("%s %s==%s" % (name, package, version))
        return 0
    if argv[:1] == ["--check"]:
        available, missing = [], {}
        for name in argv[1:] or list(CLIENTS):
            try:
                use_client(name)
                available.append(name)
            except Exception as error:  # noqa: BLE001
                missing[name] = "%s==%s: %s" % (CLIENTS[name][0], CLIENTS[name][1], error)
            finally:
                for module in [m for m in sys.modules if m == "analytics" or m.startswith("analytics.")]:
                    del sys.modules[module]  # findhotel and astronomer share the name
        print(json.dumps({"available": available, "missing": missing}))
        return 1 if missing else 0
    if len(argv) < 4 or argv[0] not in CLIENTS:
        sys.stderr.write(__doc__)
        return 2
    name, base_url, write_key, tag = argv[:4]
    return run(name, base_url, write_key, tag, "--gzip" in argv[4:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

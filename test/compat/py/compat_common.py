"""Shared helpers for the compat client programs.

Every program takes ONE argv element: a JSON object with its arguments, and
prints its result as ONE JSON line on stdout (streaming programs print one
JSON event per line). Diagnostics go to stderr. Any uncaught exception exits
non-zero with a traceback on stderr, which the vitest side prints.
"""
import json
import sys
import time


def args():
    """The JSON argument: argv[1] itself, or the contents of the file argv[1] names after an '@'
    (the test runner uses a file when the JSON is too long for one argv element)."""
    if len(sys.argv) != 2:
        sys.stderr.write("usage: %s '<json args>' | @<json file>\n" % sys.argv[0])
        sys.exit(2)
    if sys.argv[1].startswith("@"):
        with open(sys.argv[1][1:], encoding="utf-8") as f:
            return json.load(f)
    return json.loads(sys.argv[1])


def transactional_producer(a, client_id):
    """A confluent-kafka Producer for a["bootstrap"] with transactional.id a["transactional_id"],
    linger.ms 5 and client.id `client_id`, then a["config"] (optional) on top. Not initialized."""
    from confluent_kafka import Producer  # here: the kafka-python programs share this module

    config = {
        "bootstrap.servers": a["bootstrap"],
        "client.id": client_id,
        "transactional.id": a["transactional_id"],
        "linger.ms": 5,
    }
    config.update(a.get("config", {}))
    return Producer(config)


def emit(obj):
    sys.stdout.write(json.dumps(obj, sort_keys=True) + "\n")
    sys.stdout.flush()


def log(*parts):
    sys.stderr.write("[%.3f] %s\n" % (time.time(), " ".join(str(p) for p in parts)))
    sys.stderr.flush()


def text(value):
    """bytes/str/None -> str/None (UTF-8, lossless for the ASCII/UTF-8 payloads the tests use)."""
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="backslashreplace")
    return str(value)


def raw(value):
    """str/None -> bytes/None."""
    if value is None:
        return None
    return value.encode("utf-8")


def headers_out(headers):
    """Client header list [(key, bytes)] -> [[key, str]] (order kept; None if absent)."""
    if headers is None:
        return None
    return [[text(k), text(v)] for (k, v) in headers]


def headers_in(headers):
    """[[key, str]] -> [(key, bytes)]."""
    if headers is None:
        return None
    return [(k, raw(v)) for (k, v) in headers]

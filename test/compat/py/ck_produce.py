"""confluent-kafka Producer: produce messages and report every delivery.

args: {bootstrap, topic, messages: [{value, key?, headers?: [[k, v]], partition?}],
       config?: {librdkafka props}, flush_every?: int, flush_timeout_s?: float, progress?: bool,
       pause_s?: float (sleep after each flush_every chunk, to stretch a stream over time)}
out:  {delivered: [{index, partition, offset, key, value, error}], undelivered_after_flush, missing_reports}
      (with progress: one {"event": "progress", "acknowledged": n} line after each flush first)
"""
import time

from confluent_kafka import Producer

from compat_common import args, emit, headers_in, log, raw, text

a = args()
config = {
    "bootstrap.servers": a["bootstrap"],
    "client.id": "compat-ck-producer",
    "acks": "all",
    "linger.ms": 5,
}
config.update(a.get("config", {}))
producer = Producer(config)
results = [None] * len(a["messages"])


def reporter(index, key, value):
    def on_delivery(err, msg):
        results[index] = {
            "index": index,
            "partition": msg.partition(),
            "offset": msg.offset(),
            "key": text(msg.key()),
            "value": text(msg.value()),
            "error": None if err is None else "%s (code %s)" % (err.str(), err.code()),
        }
    return on_delivery


flush_every = a.get("flush_every", 0)
timeout = a.get("flush_timeout_s", 20)
for i, m in enumerate(a["messages"]):
    kwargs = {"value": raw(m.get("value")), "on_delivery": reporter(i, m.get("key"), m.get("value"))}
    if m.get("key") is not None:
        kwargs["key"] = raw(m["key"])
    if m.get("headers") is not None:
        kwargs["headers"] = headers_in(m["headers"])
    if m.get("partition") is not None:
        kwargs["partition"] = m["partition"]
    producer.produce(a["topic"], **kwargs)
    producer.poll(0)
    if flush_every and (i + 1) % flush_every == 0:
        left = producer.flush(timeout)
        log("flushed", i + 1, "left", left)
        if a.get("progress"):
            emit({"event": "progress", "acknowledged": sum(1 for r in results if r and r["error"] is None)})
        if a.get("pause_s"):
            time.sleep(a["pause_s"])

left = producer.flush(timeout)
missing = [i for i, r in enumerate(results) if r is None]
emit({"delivered": results, "undelivered_after_flush": left, "missing_reports": missing})

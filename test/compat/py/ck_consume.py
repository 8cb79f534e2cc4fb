"""confluent-kafka Consumer: read a known number of records.

With "group": subscribe as a group member (auto.offset.reset from config, default
earliest) and commit synchronously at the end if "commit" is true. Without a
group: assign "partitions" (default [0]) from "start_offset" (default beginning).

args: {bootstrap, topic, count, group?, partitions?, start_offset?, commit?,
       config?, timeout_s?}
out:  {records: [{partition, offset, key, value, headers, timestamp, timestamp_type}],
       committed: [{partition, offset}] | null, assignment: [partitions]}
"""
import time

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from compat_common import args, emit, headers_out, log, text

a = args()
group = a.get("group")
config = {
    "bootstrap.servers": a["bootstrap"],
    "client.id": "compat-ck-consumer",
    "group.id": group or "compat-unused-group",
    "enable.auto.commit": False,
    "auto.offset.reset": "earliest",
    "session.timeout.ms": 6000,
    "heartbeat.interval.ms": 500,
}
config.update(a.get("config", {}))
consumer = Consumer(config)
if group:
    consumer.subscribe([a["topic"]])
else:
    start = a.get("start_offset", OFFSET_BEGINNING)
    consumer.assign([TopicPartition(a["topic"], p, start) for p in a.get("partitions", [0])])

records = []
deadline = time.time() + a.get("timeout_s", 20)
while len(records) < a["count"] and time.time() < deadline:
    msg = consumer.poll(0.2)
    if msg is None:
        continue
    if msg.error():
        log("consumer error", msg.error())
        continue
    ts_type, ts = msg.timestamp()
    records.append({
        "partition": msg.partition(),
        "offset": msg.offset(),
        "key": text(msg.key()),
        "value": text(msg.value()),
        "headers": headers_out(msg.headers()),
        "timestamp": ts,
        "timestamp_type": ts_type,
    })

committed = None
assignment = sorted(tp.partition for tp in consumer.assignment())
if group and a.get("commit", False) and records:
    consumer.commit(asynchronous=False)
if group:
    parts = [TopicPartition(a["topic"], p) for p in assignment]
    committed = [{"partition": tp.partition, "offset": tp.offset} for tp in consumer.committed(parts, timeout=10)]
consumer.close()
emit({"records": records, "committed": committed, "assignment": assignment})

"""kafka-python KafkaConsumer without a group: assign partitions, read from the beginning.

check_crcs stays at its default (True): every batch's CRC-32C is verified by the client,
so a broker that rewrites a batch (LogAppendTime) without recomputing the CRC fails here.

args: {bootstrap, topic, partitions?: [..] (default [0]), count, timeout_s?}
out:  {records: [{partition, offset, key, value, headers, timestamp, timestamp_type}]}
"""
import time

from kafka import KafkaConsumer, TopicPartition

from compat_common import args, emit, headers_out, text

a = args()
consumer = KafkaConsumer(bootstrap_servers=a["bootstrap"], client_id="compat-kp-reader",
                         group_id=None, enable_auto_commit=False, check_crcs=True)
consumer.assign([TopicPartition(a["topic"], p) for p in a.get("partitions", [0])])
consumer.seek_to_beginning()
records = []
deadline = time.time() + a.get("timeout_s", 20)
while len(records) < a["count"] and time.time() < deadline:
    for tp, msgs in consumer.poll(timeout_ms=200).items():
        for m in msgs:
            records.append({"partition": m.partition, "offset": m.offset, "key": text(m.key),
                            "value": text(m.value), "headers": headers_out(m.headers),
                            "timestamp": m.timestamp, "timestamp_type": m.timestamp_type})
consumer.close()
emit({"records": records})

"""kafka-python KafkaProducer: send messages and report each RecordMetadata.

args: {bootstrap, topic, messages: [{value, key?, headers?: [[k, v]], partition?, timestamp_ms?}], config?}
out:  {delivered: [{index, partition, offset, error}]}
"""
from kafka import KafkaProducer

from compat_common import args, emit, headers_in, raw

a = args()
config = {"bootstrap_servers": a["bootstrap"], "client_id": "compat-kp-producer", "acks": 1,
          "request_timeout_ms": 15000}
config.update(a.get("config", {}))
producer = KafkaProducer(**config)
futures = []
for m in a["messages"]:
    futures.append(producer.send(a["topic"], value=raw(m.get("value")), key=raw(m.get("key")),
                                 headers=headers_in(m.get("headers")) or [], partition=m.get("partition"),
                                 timestamp_ms=m.get("timestamp_ms")))
producer.flush(20)
delivered = []
for i, f in enumerate(futures):
    try:
        md = f.get(timeout=20)
        delivered.append({"index": i, "partition": md.partition, "offset": md.offset, "error": None})
    except Exception as e:  # report per-message errors instead of dying on the first
        delivered.append({"index": i, "partition": None, "offset": None, "error": repr(e)})
producer.close(10)
emit({"delivered": delivered})

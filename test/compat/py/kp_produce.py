"""kafka-python KafkaProducer: send messages and report each RecordMetadata.

args: {bootstrap, topic, messages: [{value, key?, headers?: [[k, v]], partition?, timestamp_ms?}], config?,
       settle_s?: seconds to keep the connection open after flush (lets stray responses arrive)}
out:  {delivered: [{index, partition, offset, error}], client_warnings: [str]}
      client_warnings: kafka-python log records at WARNING or above (e.g. a CorrelationIdError
      when a broker answers an acks=0 request it must not answer).
"""
import logging

from kafka import KafkaProducer

from compat_common import args, emit, headers_in, raw

a = args()
warnings = []


class Collect(logging.Handler):
    """WARNING and above, plus the INFO line kafka-python writes when it drops a connection
    over a protocol error ("Closing connection. ... CorrelationIdError ...")."""
    def emit(self, record):
        message = record.getMessage()
        if record.levelno >= logging.WARNING or "Correlation" in message or "KafkaProtocolError" in message:
            warnings.append("%s %s: %s" % (record.levelname, record.name, message))


logging.getLogger("kafka").addHandler(Collect(level=logging.INFO))
logging.getLogger("kafka").setLevel(logging.INFO)
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
if a.get("settle_s"):
    import time
    time.sleep(a["settle_s"])
producer.close(10)
emit({"delivered": delivered, "client_warnings": warnings})

"""confluent-kafka consume-transform-produce, exactly once (KIP-98/KIP-447 pattern).

A read_committed group member reads `input`; per batch of up to `batch` records it begins a
transaction, produces "out-<value>" to `output`, sends its positions with
send_offsets_to_transaction and commits. With `crash_in_batch: n`, the n-th batch (1-based) is
produced and flushed and its offsets sent, then the program prints {"event": "crashing"} and
waits forever (the test SIGKILLs it mid-transaction). It stops once it has read up to the end of
`input` (the high watermark `expected_end` summed over partitions) and committed.

args: {bootstrap, input, output, group, transactional_id, batch, expected_end, crash_in_batch?, timeout_s?, config?}
events: {"event": "initialized"}, {"event": "committed", "batch": n, "records": k},
        {"event": "crashing", "batch": n}, {"event": "done", "batches": n, "records": total}
"""
import time

from confluent_kafka import Consumer

from compat_common import args, emit, log, transactional_producer

a = args()
producer = transactional_producer(a, "compat-ck-etl")
# Before subscribing: a zombie's open transaction is aborted (and its offsets dropped) first.
producer.init_transactions(60)
emit({"event": "initialized"})
consumer = Consumer({
    "bootstrap.servers": a["bootstrap"],
    "client.id": "compat-ck-etl",
    "group.id": a["group"],
    "enable.auto.commit": False,
    "auto.offset.reset": "earliest",
    "isolation.level": "read_committed",
    "session.timeout.ms": 6000,
    "heartbeat.interval.ms": 500,
})
consumer.subscribe([a["input"]])

batches = 0
records = 0
consumed_to = 0
deadline = time.time() + a.get("timeout_s", 90)
while consumed_to < a["expected_end"] and time.time() < deadline:
    msgs = consumer.consume(a["batch"], 1.0)
    msgs = [m for m in msgs if not m.error()]
    if not msgs:
        continue
    batches += 1
    producer.begin_transaction()
    for m in msgs:
        producer.produce(a["output"], key=m.key(), value=b"out-" + m.value())
    producer.send_offsets_to_transaction(consumer.position(consumer.assignment()), consumer.consumer_group_metadata(), 30)
    if a.get("crash_in_batch") == batches:
        producer.flush(30)
        emit({"event": "crashing", "batch": batches})
        while True:
            time.sleep(1)
    producer.commit_transaction(30)
    records += len(msgs)
    consumed_to = sum(tp.offset for tp in consumer.position(consumer.assignment()) if tp.offset >= 0)
    emit({"event": "committed", "batch": batches, "records": len(msgs), "position": consumed_to})
log("stopping at position", consumed_to)
consumer.close()
emit({"event": "done", "batches": batches, "records": records})

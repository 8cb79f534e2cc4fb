"""confluent-kafka Consumer as a long-running consumer-group member.

Prints one JSON event per line on stdout:
  {"event": "started"}
  {"event": "assigned", "partitions": [..]}   (full assignment after each rebalance)
  {"event": "revoked", "partitions": [..]}
  {"event": "record", "partition", "offset", "key", "value"}
  {"event": "committed", "partition", "offset"}   (after each synchronous commit)
  {"event": "closed", "committed": [{partition, offset}]}
Reads commands from stdin, one per line:
  close   -> commit, consumer.close() (sends LeaveGroup), print "closed", exit 0

Each record's offset is committed synchronously right after it is reported, so
a member that leaves has committed everything it printed.

args: {bootstrap, topic, group, client_id?, config?}
"""
import queue
import sys
import threading

from confluent_kafka import Consumer, KafkaException, TopicPartition

from compat_common import args, emit, log, text

a = args()
config = {
    "bootstrap.servers": a["bootstrap"],
    "client.id": a.get("client_id", "compat-ck-member"),
    "group.id": a["group"],
    "enable.auto.commit": False,
    "auto.offset.reset": "earliest",
    "session.timeout.ms": 6000,
    "heartbeat.interval.ms": 300,
    "partition.assignment.strategy": "range",
}
config.update(a.get("config", {}))
consumer = Consumer(config)
commands = queue.Queue()


def read_stdin():
    for line in sys.stdin:
        commands.put(line.strip())
    commands.put("close")


threading.Thread(target=read_stdin, daemon=True).start()


def on_assign(c, partitions):
    emit({"event": "assigned", "partitions": sorted(p.partition for p in partitions)})


def on_revoke(c, partitions):
    emit({"event": "revoked", "partitions": sorted(p.partition for p in partitions)})


consumer.subscribe([a["topic"]], on_assign=on_assign, on_revoke=on_revoke)
emit({"event": "started"})
while True:
    try:
        command = commands.get_nowait()
    except queue.Empty:
        command = None
    if command == "close":
        break
    msg = consumer.poll(0.1)
    if msg is None:
        continue
    if msg.error():
        log("consumer error", msg.error())
        continue
    emit({"event": "record", "partition": msg.partition(), "offset": msg.offset(),
          "key": text(msg.key()), "value": text(msg.value())})
    try:
        consumer.commit(message=msg, asynchronous=False)
        emit({"event": "committed", "partition": msg.partition(), "offset": msg.offset() + 1})
    except KafkaException as e:
        # A commit can fail legitimately during a rebalance (REBALANCE_IN_PROGRESS);
        # report it so the test can tell.
        emit({"event": "commit_failed", "partition": msg.partition(), "offset": msg.offset() + 1,
              "error": str(e)})

assignment = consumer.assignment()
committed = []
if assignment:
    committed = [{"partition": tp.partition, "offset": tp.offset}
                 for tp in consumer.committed([TopicPartition(a["topic"], tp.partition) for tp in assignment], timeout=10)]
consumer.close()
emit({"event": "closed", "committed": sorted(committed, key=lambda c: c["partition"])})

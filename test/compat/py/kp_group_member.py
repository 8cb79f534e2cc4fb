"""kafka-python KafkaConsumer as a long-running consumer-group member (JoinGroup v2 / SyncGroup v1 /
Heartbeat v1 / OffsetCommit v2: the oldest group versions any client sends).

Prints one JSON event per line on stdout:
  {"event": "started"}
  {"event": "assigned", "partitions": [..]}   (after each rebalance)
  {"event": "revoked", "partitions": [..]}
  {"event": "record", "partition", "offset", "key", "value"}
  {"event": "closed"}
Reads commands from stdin: "close" -> commit, close (LeaveGroup v1), exit 0.

args: {bootstrap, topic, group, client_id?}
"""
import queue
import sys
import threading

from kafka import ConsumerRebalanceListener, KafkaConsumer

from compat_common import args, emit, text

a = args()
consumer = KafkaConsumer(
    bootstrap_servers=a["bootstrap"],
    client_id=a.get("client_id", "compat-kp-member"),
    group_id=a["group"],
    enable_auto_commit=False,
    auto_offset_reset="earliest",
    session_timeout_ms=6000,
    heartbeat_interval_ms=300,
)
commands = queue.Queue()


def read_stdin():
    for line in sys.stdin:
        commands.put(line.strip())
    commands.put("close")


threading.Thread(target=read_stdin, daemon=True).start()


class Listener(ConsumerRebalanceListener):
    def on_partitions_revoked(self, revoked):
        emit({"event": "revoked", "partitions": sorted(tp.partition for tp in revoked)})

    def on_partitions_assigned(self, assigned):
        emit({"event": "assigned", "partitions": sorted(tp.partition for tp in assigned)})


consumer.subscribe([a["topic"]], listener=Listener())
emit({"event": "started"})
while True:
    try:
        if commands.get_nowait() == "close":
            break
    except queue.Empty:
        pass
    batch = consumer.poll(timeout_ms=100)
    for tp, msgs in batch.items():
        for m in msgs:
            emit({"event": "record", "partition": m.partition, "offset": m.offset,
                  "key": text(m.key), "value": text(m.value)})
    if batch:
        consumer.commit()
consumer.close()
emit({"event": "closed"})

"""confluent-kafka transactional Producer driven step by step from stdin.

Prints one JSON event per line on stdout:
  {"event": "initialized"}                      (after init_transactions)
  {"event": "done", "op": OP, "error": null | str}   (after each command)
Reads commands from stdin, one JSON object per line:
  {"op": "begin"}
  {"op": "produce", "values": [str], "partition": int}   (flushed before "done")
  {"op": "commit"} / {"op": "abort"}
  {"op": "close"}  -> exits 0
Every call waits up to timeout_s (default 60) so the test can move the coordinator in between.

args: {bootstrap, transactional_id, topic, timeout_s?, config?}
"""
import json
import sys

from compat_common import args, emit, transactional_producer

a = args()
timeout = a.get("timeout_s", 60)
producer = transactional_producer(a, "compat-ck-txn-session")
producer.init_transactions(timeout)
emit({"event": "initialized"})
for line in sys.stdin:
    if not line.strip():
        continue
    command = json.loads(line)
    op = command["op"]
    if op == "close":
        break
    try:
        if op == "begin":
            producer.begin_transaction()
        elif op == "produce":
            for value in command["values"]:
                producer.produce(a["topic"], value=value.encode("utf-8"), partition=command.get("partition", 0))
            remaining = producer.flush(timeout)
            if remaining > 0:
                raise RuntimeError("%d record(s) not delivered" % remaining)
        elif op == "commit":
            producer.commit_transaction(timeout)
        elif op == "abort":
            producer.abort_transaction(timeout)
        emit({"event": "done", "op": op, "error": None})
    except Exception as e:  # noqa: BLE001 - reported to the test
        emit({"event": "done", "op": op, "error": str(e)})

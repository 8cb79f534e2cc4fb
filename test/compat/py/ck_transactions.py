"""confluent-kafka transactional Producer: a sequence of transactions, each committed or aborted.

args: {bootstrap, topic, transactional_id, transactions: [{values: [str], commit: bool}], config?}
out:  {initialized: true, results: [{commit, error}]}
      Each transaction's records are flushed (they reach the broker) before it ends, so an
      aborted transaction really leaves aborted batches in the log.
"""
from confluent_kafka import Producer

from compat_common import args, emit

a = args()
config = {
    "bootstrap.servers": a["bootstrap"],
    "client.id": "compat-ck-txn-producer",
    "transactional.id": a["transactional_id"],
    "linger.ms": 5,
}
config.update(a.get("config", {}))
producer = Producer(config)
producer.init_transactions(30)
results = []
for txn in a["transactions"]:
    producer.begin_transaction()
    for value in txn["values"]:
        producer.produce(a["topic"], value=value.encode("utf-8"))
    producer.flush(30)
    try:
        if txn["commit"]:
            producer.commit_transaction(30)
        else:
            producer.abort_transaction(30)
        results.append({"commit": txn["commit"], "error": None})
    except Exception as e:  # noqa: BLE001 - reported to the test
        results.append({"commit": txn["commit"], "error": str(e)})
emit({"initialized": True, "results": results})

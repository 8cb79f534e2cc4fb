"""confluent-kafka transactional Producer: a sequence of transactions, each committed or aborted.

args: {bootstrap, topic, transactional_id, transactions: [{values: [str], commit: bool}], config?}
out:  {initialized: true, results: [{commit, error}]}
      Each transaction's records are flushed (they reach the broker) before it ends, so an
      aborted transaction really leaves aborted batches in the log.
"""
from compat_common import args, emit, transactional_producer

a = args()
producer = transactional_producer(a, "compat-ck-txn-producer")
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

"""confluent-kafka (librdkafka) writer of the Jepsen-style checker (bench/jepsen/writers.ts).

args (argv[1], JSON): {bootstrap, topic, partitions, client, in_flight, pause_s}
Writes "<client>-<seq>" values round robin over the partitions with an idempotent producer
(acks=all), at most `in_flight` records without a delivery report, until stdin ends; then flushes
and exits. Prints one JSON line per record handed to the producer ({"attempt": true}) and per
delivery report ({"v", "p", "o", "e"}: e is null when acknowledged, o is -1 when librdkafka
did not say at which offset), and {"fatal": ...} when
librdkafka raises a fatal idempotence error (the producer is then recreated, as an application
would).

With JEPSEN_CK_DEBUG_LOG set to a file path, librdkafka's debug log (contexts eos, topic, metadata,
broker) goes to that file, to tell which broker answered what and when.
"""
import json
import logging
import os
import sys
import threading
import time

from confluent_kafka import KafkaException, Producer

args = json.loads(sys.argv[1])
stop = threading.Event()


def watch_stdin():
    sys.stdin.read()
    stop.set()


threading.Thread(target=watch_stdin, daemon=True).start()
lock = threading.Lock()
outstanding = [0]


def emit(event):
    with lock:
        sys.stdout.write(json.dumps(event) + "\n")
        sys.stdout.flush()


def on_delivery(err, msg):
    outstanding[0] -= 1
    value = msg.value().decode("utf-8")
    if err is None:
        # librdkafka may report a delivery without its offset (None): an idempotent batch it
        # knows was persisted only because later ones were acknowledged.
        offset = msg.offset()
        emit({"v": value, "p": msg.partition(), "o": -1 if offset is None or offset < 0 else offset, "e": None})
    else:
        emit({"v": value, "p": msg.partition(), "o": -1, "e": "%s (code %s)" % (err.str(), err.code())})


fatal = threading.Event()


def on_error(err):
    if err.fatal():
        emit({"fatal": err.str()})
        fatal.set()


def debug_config():
    path = os.environ.get("JEPSEN_CK_DEBUG_LOG")
    if not path:
        return {}
    logger = logging.getLogger("librdkafka")
    if not logger.handlers:
        handler = logging.FileHandler(path)
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    return {"debug": "eos,topic,metadata,broker", "logger": logger}


def new_producer():
    return Producer({
        **debug_config(),
        "bootstrap.servers": args["bootstrap"],
        "client.id": "jepsen-" + args["client"],
        "enable.idempotence": True,
        "acks": "all",
        "linger.ms": 2,
        "message.timeout.ms": 30000,
        "request.timeout.ms": 5000,
        "socket.connection.setup.timeout.ms": 3000,
        "topic.metadata.refresh.interval.ms": 5000,
        "error_cb": on_error,
    })


producer = new_producer()
seq = 0


def replace_producer(old):
    """After a fatal error: what librdkafka still reports comes in during a short flush; then a
    new producer (a new producer id) carries on, as an application would."""
    try:
        old.flush(10)
    except KafkaException as error:
        emit({"fatal": "flush after fatal: %s" % error})
    outstanding[0] = 0
    fatal.clear()
    return new_producer()


while not stop.is_set():
    if fatal.is_set():
        producer = replace_producer(producer)
    if outstanding[0] >= args["in_flight"]:
        try:
            producer.poll(0.05)
        except KafkaException as error:
            emit({"fatal": str(error)})
            fatal.set()
        continue
    value = "%s-%d" % (args["client"], seq)
    try:
        producer.produce(args["topic"], value=value.encode("utf-8"), partition=seq % args["partitions"], on_delivery=on_delivery)
    except BufferError:
        producer.poll(0.1)
        continue
    except KafkaException as error:
        emit({"fatal": str(error)})
        fatal.set()
        continue
    emit({"attempt": True})
    outstanding[0] += 1
    seq += 1
    try:
        producer.poll(args["pause_s"])
    except KafkaException as error:
        emit({"fatal": str(error)})
        fatal.set()

try:
    left = producer.flush(60)
except KafkaException as error:
    emit({"fatal": str(error)})
    left = -1
sys.exit(0 if left == 0 else 3)

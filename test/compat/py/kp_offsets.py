"""kafka-python KafkaConsumer offset lookups (ListOffsets v1): beginning_offsets, end_offsets,
offsets_for_times.

args: {bootstrap, topic, partitions: [..], times: [ms, ..]}
out:  {beginning: {p: offset}, end: {p: offset},
       for_times: {ms: {p: [offset, timestamp] | null}}}
"""
from kafka import KafkaConsumer, TopicPartition

from compat_common import args, emit

a = args()
consumer = KafkaConsumer(bootstrap_servers=a["bootstrap"], client_id="compat-kp-offsets", group_id=None,
                         enable_auto_commit=False)
tps = [TopicPartition(a["topic"], p) for p in a["partitions"]]
beginning = {str(tp.partition): o for tp, o in consumer.beginning_offsets(tps).items()}
end = {str(tp.partition): o for tp, o in consumer.end_offsets(tps).items()}
for_times = {}
for ms in a["times"]:
    found = consumer.offsets_for_times({tp: ms for tp in tps})
    for_times[str(ms)] = {str(tp.partition): (None if ot is None else [ot.offset, ot.timestamp]) for tp, ot in found.items()}
consumer.close()
emit({"beginning": beginning, "end": end, "for_times": for_times})

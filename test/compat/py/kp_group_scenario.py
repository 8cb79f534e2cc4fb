"""kafka-python KafkaConsumer in a group + KafkaAdminClient views of that group.

1. KafkaConsumer(group_id) subscribes, polls until `count` records arrived
   (auto commit off), then commit() synchronously.
2. While still a member: admin list_consumer_groups, describe_consumer_groups,
   list_consumer_group_offsets.
3. consumer.close() (LeaveGroup), then describe_consumer_groups again.

args: {bootstrap, topic, group, count, timeout_s?}
out:  {records: [{partition, offset, key, value, headers}], assignment: [..],
       listed: [[group, protocol_type]], described_live: {...}, offsets: {partition: offset},
       described_after_close: {...}}
"""
import time

from kafka import KafkaAdminClient, KafkaConsumer

from compat_common import args, emit, headers_out, log, text

a = args()
consumer = KafkaConsumer(
    a["topic"],
    bootstrap_servers=a["bootstrap"],
    client_id="compat-kp-consumer",
    group_id=a["group"],
    enable_auto_commit=False,
    auto_offset_reset="earliest",
    session_timeout_ms=6000,
    heartbeat_interval_ms=500,
)
records = []
deadline = time.time() + a.get("timeout_s", 20)
while len(records) < a["count"] and time.time() < deadline:
    batch = consumer.poll(timeout_ms=200)
    for tp, msgs in batch.items():
        for m in msgs:
            records.append({"partition": m.partition, "offset": m.offset, "key": text(m.key),
                            "value": text(m.value), "headers": headers_out(m.headers)})
consumer.commit()
assignment = sorted(tp.partition for tp in consumer.assignment())


def describe(admin, group):
    g = admin.describe_consumer_groups([group])[0]
    members = []
    for m in g.members:
        assignment = getattr(m, "member_assignment", None)
        members.append({
            "member_id": m.member_id,
            "client_id": m.client_id,
            "client_host": m.client_host,
            "assignment": None if not assignment else
            {t: sorted(ps) for (t, ps) in assignment.assignment},
        })
    return {"group": g.group, "state": g.state, "protocol_type": g.protocol_type,
            "protocol": g.protocol, "error_code": g.error_code, "members": members}


admin = KafkaAdminClient(bootstrap_servers=a["bootstrap"], client_id="compat-kp-admin")
listed = sorted([list(x) for x in admin.list_consumer_groups()])
described_live = describe(admin, a["group"])
offsets = {str(tp.partition): om.offset for tp, om in admin.list_consumer_group_offsets(a["group"]).items()
           if tp.topic == a["topic"]}
consumer.close()
described_after_close = describe(admin, a["group"])
admin.close()
emit({"records": records, "assignment": assignment, "listed": listed, "described_live": described_live,
      "offsets": offsets, "described_after_close": described_after_close})

"""kafka-python KafkaAdminClient: one admin operation per run.

args: {bootstrap, op, ...}; ops:
  create_topics   {topics: [{name, num_partitions, replication_factor?, config?}]}
                  -> {errors: [[name, error_code]]}
  delete_topics   {topics: [..]} -> {errors: [[name, error_code]]}
  list_topics     {} -> {topics: [..]}
  describe_topics {topics: [..]} -> {topics: [{topic, error_code, partitions: [{partition, leader, replicas, isr, error_code}]}]}
  describe_cluster {} -> {controller_id, brokers: [{node_id, host, port}]}
  create_partitions {topic, new_total} -> {errors: [[name, error_code]]}
  describe_configs {topic} -> {configs: {name: value}}
"""
from kafka import KafkaAdminClient
from kafka.errors import BrokerResponseError
from kafka.admin import ConfigResource, ConfigResourceType, NewPartitions, NewTopic

from compat_common import args, emit

a = args()
admin = KafkaAdminClient(bootstrap_servers=a["bootstrap"], client_id="compat-kp-admin",
                         request_timeout_ms=15000)
op = a["op"]


def per_topic_errors(call, names, field):
    """kafka-python 2.0.2 raises the first non-zero topic error instead of returning it:
    turn that back into [[name, code]] (requests here carry one topic when an error is expected)."""
    try:
        response = call()
    except BrokerResponseError as e:
        return [[name, e.errno] for name in names]
    return sorted([[e[0], e[1]] for e in getattr(response, field)])


if op == "create_topics":
    topics = [NewTopic(t["name"], t["num_partitions"], t.get("replication_factor", 1),
                       topic_configs=t.get("config", {})) for t in a["topics"]]
    emit({"errors": per_topic_errors(lambda: admin.create_topics(topics, timeout_ms=15000),
                                     [t["name"] for t in a["topics"]], "topic_errors")})
elif op == "delete_topics":
    emit({"errors": per_topic_errors(lambda: admin.delete_topics(a["topics"], timeout_ms=15000),
                                     a["topics"], "topic_error_codes")})
elif op == "list_topics":
    emit({"topics": sorted(admin.list_topics())})
elif op == "describe_topics":
    topics = admin.describe_topics(a["topics"])
    emit({"topics": [{
        "topic": t["topic"], "error_code": t["error_code"],
        "partitions": sorted([{"partition": p["partition"], "leader": p["leader"], "replicas": p["replicas"],
                               "isr": p["isr"], "error_code": p["error_code"]} for p in t["partitions"]],
                             key=lambda p: p["partition"]),
    } for t in topics]})
elif op == "describe_cluster":
    c = admin.describe_cluster()
    emit({"controller_id": c["controller_id"],
          "brokers": [{"node_id": b["node_id"], "host": b["host"], "port": b["port"]} for b in c["brokers"]]})
elif op == "create_partitions":
    emit({"errors": per_topic_errors(
        lambda: admin.create_partitions({a["topic"]: NewPartitions(a["new_total"])}, timeout_ms=15000),
        [a["topic"]], "topic_errors")})
elif op == "describe_configs":
    response = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, a["topic"])])
    configs = {}
    for r in response:
        for res in r.resources:
            # (error_code, error_message, resource_type, resource_name, config_entries)
            for entry in res[4]:
                configs[entry[0]] = entry[1]
    emit({"configs": configs})
else:
    raise SystemExit("unknown op %r" % op)

"""confluent-kafka AdminClient: one admin operation per run.

args: {bootstrap, op, ...}; ops:
  create_topics     {topics: [{name, num_partitions, replication_factor?, config?}]}
                    -> {results: {name: null | "error"}}
  list_topics       {topic?} -> {controller_id, brokers: {id: "host:port"},
                    topics: {name: {error, partitions: {id: {leader, replicas, isrs, error}}}}}
  create_partitions {topic, new_total} -> {results: {topic: null | "error"}}
  describe_configs  {topic} -> {configs: {name: {value, is_default, is_read_only, source}}}
  describe_broker_configs {broker_id} -> same shape, for ConfigResource(BROKER, broker_id)
  alter_configs     {topic, config: {name: value}} -> {results: {topic: null | "error"}}
  delete_topics     {topics: [..]} -> {results: {name: null | "error"}}
  list_groups       {} -> {groups: [{id, state, protocol_type, protocol, members: [{id, client_id, client_host}]}]}
"""
from confluent_kafka import KafkaException
from confluent_kafka.admin import (AdminClient, ConfigResource, NewPartitions,
                                   NewTopic)

from compat_common import args, emit

a = args()
admin = AdminClient({"bootstrap.servers": a["bootstrap"], "client.id": "compat-ck-admin"})
op = a["op"]
timeout = a.get("timeout_s", 15)


def outcome(future):
    try:
        future.result(timeout)
        return None
    except KafkaException as e:
        err = e.args[0]
        return "%s: %s" % (err.name(), err.str())
    except Exception as e:  # e.g. a timeout waiting for the controller: report, don't crash
        return "%s: %s" % (type(e).__name__, e)


def err_name(err):
    return None if err is None else "%s: %s" % (err.name(), err.str())


if op == "create_topics":
    new = [NewTopic(t["name"], num_partitions=t["num_partitions"],
                    replication_factor=t.get("replication_factor", 1), config=t.get("config", {}))
           for t in a["topics"]]
    futures = admin.create_topics(new, operation_timeout=timeout)
    emit({"results": {name: outcome(f) for name, f in futures.items()}})
elif op == "list_topics":
    md = admin.list_topics(topic=a.get("topic"), timeout=timeout)
    emit({
        "controller_id": md.controller_id,
        "brokers": {str(b.id): "%s:%d" % (b.host, b.port) for b in md.brokers.values()},
        "topics": {
            name: {
                "error": err_name(t.error),
                "partitions": {
                    str(p.id): {"leader": p.leader, "replicas": list(p.replicas), "isrs": list(p.isrs),
                                "error": err_name(p.error)}
                    for p in t.partitions.values()
                },
            }
            for name, t in md.topics.items()
        },
    })
elif op == "create_partitions":
    futures = admin.create_partitions([NewPartitions(a["topic"], a["new_total"])], operation_timeout=timeout)
    emit({"results": {name: outcome(f) for name, f in futures.items()}})
elif op in ("describe_configs", "describe_broker_configs"):
    resource = (ConfigResource(ConfigResource.Type.TOPIC, a["topic"]) if op == "describe_configs"
                else ConfigResource(ConfigResource.Type.BROKER, a["broker_id"]))
    futures = admin.describe_configs([resource])
    configs = {}
    for resource, f in futures.items():
        for name, entry in f.result(timeout).items():
            configs[name] = {"value": entry.value, "is_default": entry.is_default,
                             "is_read_only": entry.is_read_only, "source": entry.source}
    emit({"configs": configs})
elif op == "alter_configs":
    resource = ConfigResource(ConfigResource.Type.TOPIC, a["topic"], set_config={k: str(v) for k, v in a["config"].items()})
    futures = admin.alter_configs([resource])
    emit({"results": {r.name: outcome(f) for r, f in futures.items()}})
elif op == "delete_topics":
    futures = admin.delete_topics(a["topics"], operation_timeout=timeout)
    emit({"results": {name: outcome(f) for name, f in futures.items()}})
elif op == "list_groups":
    groups = admin.list_groups(timeout=timeout)
    emit({"groups": [{"id": g.id, "state": g.state, "protocol_type": g.protocol_type, "protocol": g.protocol,
                      "error": err_name(g.error),
                      "members": sorted([{"id": m.id, "client_id": m.client_id, "client_host": m.client_host}
                                         for m in g.members], key=lambda m: m["client_id"])}
                     for g in groups]})
else:
    raise SystemExit("unknown op %r" % op)

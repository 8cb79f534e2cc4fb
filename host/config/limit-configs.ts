/**
 * The broker configs that bound what one client can make the broker do (issue 15): the size of
 * one metadata operation, the cluster's partition count and the controller mutation quota
 * (KIP-599), the topics one request may auto-create; the request and response memory across connections,
 * connections per address and slow senders; the array elements one request may make the broker decode. Kafka's names where Kafka has the config; Tributary-only ones say so in their doc.
 * Each doc says what a client sees when the limit is hit. Part of brokerConfigDefs().
 */
import type { ConfigDef, ConfigValue } from './config-def.js';

export const LIMIT_CONFIG_DEFS: readonly ConfigDef[] = [
  { name: 'controller.max.records.per.user.op', type: 'INT', defaultValue: '10000', min: 1,
    doc: 'Tributary-only (Kafka\'s fixed QuorumController.MAX_RECORDS_PER_USER_OP): the most metadata records one CreateTopics, CreatePartitions or DeleteTopics may write (a topic record plus one per partition); a larger request fails as a whole with POLICY_VIOLATION naming this config.' },
  { name: 'max.partitions', type: 'INT', defaultValue: '50000', min: 1,
    doc: 'Tributary-only (the name KIP-578 proposed): the most partitions the cluster may hold; a CreateTopics or CreatePartitions that would pass it answers INVALID_PARTITIONS naming this config (the internal topics __consumer_offsets and __transaction_state are exempt, so a cluster full of user topics still forms groups). It also bounds the broker\'s memory for partitions: about 6 KiB each while empty or lightly written (measured by npm run bench:partition-memory at 49,500 partitions), so about 370 MiB at the default while idle.' },
  { name: 'controller.mutation.rate', type: 'DOUBLE', defaultValue: '1000', min: 0,
    doc: 'Tributary-only: the controller_mutation_rate quota (KIP-599) of every (user, client id), in partitions created or deleted per second, with a burst of rate x controller.quota.window.num x controller.quota.window.size.seconds; past it CreateTopics v6+, CreatePartitions v3+ and DeleteTopics v5+ answer THROTTLING_QUOTA_EXCEEDED with throttle_time_ms, older versions are answered after the throttle time; 0 disables the quota.' },
  { name: 'controller.quota.window.num', type: 'INT', defaultValue: '11', min: 1,
    doc: 'Number of samples kept for controller mutation quotas (KIP-599); with the window size it sets the burst a client may spend at once.' },
  { name: 'controller.quota.window.size.seconds', type: 'INT', defaultValue: '1', min: 1,
    doc: 'Time span of each sample of controller mutation quotas, in seconds (KIP-599).' },
  { name: 'auto.create.topics.max.per.request', type: 'INT', defaultValue: '100', min: 1,
    doc: 'Tributary-only (Kafka has no such bound): the most topics one Metadata request may auto-create (auto.create.topics.enable; Produce never creates topics, as in Kafka). Further unknown topics it names are answered LEADER_NOT_AVAILABLE, which clients retry, and nothing is created for them: a client naming 150 new topics gets 100 now and the other 50 when it asks again. Auto-created partitions also count against the client\'s controller.mutation.rate quota: while it is exhausted, unknown topics are answered LEADER_NOT_AVAILABLE the same way. At most one warn line (auto_create.refused) per 10 seconds names the refusals. To turn auto-creation off, set auto.create.topics.enable=false.' },
  { name: 'queued.max.request.bytes', type: 'LONG', defaultValue: '104857600', min: 1,
    doc: 'Bytes of requests being received, across the connections of a listener, before they stop reading (the peer waits on TCP backpressure); a frame reserves its whole size once its size prefix is read (Tributary default 100 MiB; Kafka -1, unbounded).' },
  { name: 'queued.max.response.bytes', type: 'LONG', defaultValue: '268435456', min: 1,
    doc: 'Tributary-only (Kafka answers one request per connection at a time, so a peer that does not read holds one response): bytes of responses the peers have not read yet (completed responses waiting in order plus what the socket has not handed to the kernel), across all the broker\'s TCP Kafka connections (the WebSocket /kafka route has its own per-socket bounds, websocket.max.pending.response.bytes and websocket.max.buffered.bytes, and websocket.max.total.buffered.bytes across its sockets). Past it, a connection that has a response pending dispatches no new request and stops reading (the peer waits on TCP backpressure) until the total falls back under it; a connection with nothing pending may still send one request at a time, so clients that read keep being answered, and a Fetch (v3+) is answered with its first record batch only (the minimum KIP-74 guarantees; the consumer fetches again for the rest). No response is dropped or reordered. A Fetch counts as fetch.max.bytes (or its smaller max_bytes) while it is being read, so Fetches pipelined in one read see the ones before them. Memory is bounded by this plus about one response per connection (one batch for a Fetch begun past it) (Tributary default 256 MiB).' },
  { name: 'connection.max.in.flight.requests', type: 'INT', defaultValue: '128', min: 1,
    doc: 'Tributary-only (Kafka answers one request per connection at a time): requests of one connection (TCP or WebSocket /kafka) being answered at once; past it the connection reads no more until an answer goes out, and its answers stay in request order (librdkafka pipelines deeply; Tributary default 128).' },
  { name: 'connection.max.dispatch.ms.per.turn', type: 'INT', defaultValue: '50', min: 0,
    doc: 'Tributary-only (Kafka answers one request per connection at a time): how long one connection\'s pipelined requests (TCP, or a WebSocket on /kafka) may run back to back in one event-loop turn, ms; past it the connection dispatches its next request in a later turn, after the other connections had theirs (one request always runs whole). 0 disables. A client pipelining expensive requests (all-topics Metadata at 50k partitions) otherwise held the loop for seconds.' },
  { name: 'network.max.dispatch.ms.per.turn', type: 'INT', defaultValue: '50', min: 0,
    doc: 'Tributary-only: how long all connections together (TCP and WebSocket /kafka) may dispatch requests in one event-loop turn, ms; past it each connection runs one request per turn and leaves the rest of its pipeline to later turns, so a client sending a single request is still answered in the turn it arrives. connection.max.dispatch.ms.per.turn bounds one connection; this bounds their sum: 100 connections pipelining cheap requests each stayed under their own bound and together held the loop ~600 ms. 0 disables.' },
  { name: 'connection.max.pending.response.bytes', type: 'LONG', defaultValue: '67108864', min: 1,
    doc: 'Tributary-only: bytes of answers one TCP connection holds that its peer has not read (completed answers waiting in order plus what the socket has not handed to the kernel); past it the connection reads no more requests until the peer takes them (Tributary default 64 MiB; queued.max.response.bytes bounds the sum over connections).' },
  { name: 'websocket.max.pending.response.bytes', type: 'LONG', defaultValue: '16777216', min: 1,
    doc: 'Tributary-only: the same bound for one WebSocket /kafka connection of http.listeners (uWS buffered amount included); past it no further request is dispatched and answers are not handed to uWS until it drains; the requests already dispatched (up to connection.max.in.flight.requests) still complete, so what a pipelining socket holds can pass this by their answers, up to websocket.max.buffered.bytes, where it is cut off (Tributary default 16 MiB).' },
  { name: 'websocket.max.buffered.bytes', type: 'LONG', defaultValue: '134217728', min: 1,
    doc: 'Tributary-only: everything one WebSocket /kafka connection may hold (requests received but not dispatched, since uWS cannot stop reading, plus its pending answers); past it the connection is cut off without a close frame; a value below websocket.max.pending.response.bytes is taken as that (Tributary default 128 MiB).' },
  { name: 'websocket.max.total.buffered.bytes', type: 'LONG', defaultValue: '268435456', min: 1,
    doc: 'Tributary-only: everything the WebSockets of one http.listeners gateway may hold together (both routes: /kafka requests received but not dispatched, answers held and buffered by uWS; /json buffered output). uWS cannot stop reading a WebSocket, so the TCP listeners\' answer (stop reading, queued.max.request.bytes and queued.max.response.bytes) is not available; past this bound the socket holding the most is cut off without a close frame, then the next, until the total is back under it, each with a warn line naming this config. The check runs in the turn after a socket reports, so the total can pass the bound by what the sockets add in one turn (about one answer each). Peers that read their answers hold little and are not cut while one that does not read holds more. Without it, websocket.max.buffered.bytes times max.connections was the only bound (Tributary default 256 MiB).' },
  { name: 'max.connections.per.ip', type: 'INT', defaultValue: '1000', min: 1,
    doc: 'Open client connections from one IP address; further ones from it are closed as soon as they are accepted (Tributary default 1000; Kafka 2147483647).' },
  { name: 'socket.partial.request.timeout.ms', type: 'INT', defaultValue: '30000', min: 0,
    doc: 'Tributary-only: a request frame not complete this many milliseconds after its first byte arrived closes its connection, time spent waiting for queued.max.request.bytes included (slow senders can neither hold request memory nor take it in turns); 0 disables.' },
  { name: 'metadata.apply.max.partitions.per.turn', type: 'INT', defaultValue: '8', min: 1,
    doc: 'Tributary-only: the most partitions of one committed metadata change (a topic created or deleted, partitions added or reassigned) the broker applies to its storage (directories, logs, leadership) in one event-loop turn; a larger change is applied in slices of this many, between which other clients are served; until its slice ran a new partition answers NOT_LEADER_OR_FOLLOWER (retriable), and CreateTopics / CreatePartitions answered by the broker whose controller committed them wait for the last slice (Tributary default 8).' },
  { name: 'request.max.partitions.per.turn', type: 'INT', defaultValue: '200', min: 1,
    doc: 'Tributary-only: the most partitions of one Produce or Fetch the broker works through in one event-loop turn; a request naming more is read or appended in slices of this many, between which other clients are served (Kafka works on its own request threads). The answer is the same as in one turn, in request order; a Produce appended in slices, and any append that arrives meanwhile, reach the logs in the order they came (Tributary default 200: the first append to a new partition creates its segment files, about 0.4 ms).' },
  { name: 'housekeeping.max.partitions.per.turn', type: 'INT', defaultValue: '2000', min: 1,
    doc: 'Tributary-only: the most partitions the broker\'s periodic housekeeping (flush.ms, retention, producer-id expiry, ISR expiration, every min(log.retention.check.interval.ms, 5 s)) works through in one event-loop turn; a broker holding more does each pass in slices of this many, between which clients are served, and writes the checkpoint files after the last (Tributary default 2000).' },
  { name: 'describe.configs.max.resources.per.turn', type: 'INT', defaultValue: '100', min: 1,
    doc: 'Tributary-only: the most resources of one DescribeConfigs the broker describes in one event-loop turn (a broker resource is about 350 configs); a request naming more is answered in slices of this many, between which other clients are served, with the same answer in request order (Tributary default 100).' },
  { name: 'produce.response.max.partitions.per.turn', type: 'INT', defaultValue: '5000', min: 1,
    doc: 'Tributary-only: the most partitions of one Produce answer the broker builds in one event-loop turn, after the append (a partition of an unknown topic costs a few microseconds: a request naming 50,000 unknown topics held the loop ~150 ms); a larger answer is built in slices of this many, between which other clients are served, with the same answer in request order (Tributary default 5000).' },
  { name: 'list.offsets.max.partitions.per.turn', type: 'INT', defaultValue: '500', min: 1,
    doc: 'Tributary-only: the most partitions of one ListOffsets the broker looks up in one event-loop turn (a timestamp lookup may read a time index); a request naming more is answered in slices of this many, between which other clients are served, with the same answer in request order (Tributary default 500).' },
  { name: 'delete.records.max.partitions.per.turn', type: 'INT', defaultValue: '64', min: 1,
    doc: 'Tributary-only: the most partitions of one DeleteRecords the broker works through in one event-loop turn (each may delete segment files and move its log start offset); a request naming more is done in slices of this many, between which other clients are served, with the same answer in request order (Tributary default 64).' },
  { name: 'describe.producers.max.partitions.per.turn', type: 'INT', defaultValue: '500', min: 1,
    doc: 'Tributary-only: the most partitions of one DescribeProducers the broker describes in one event-loop turn (each copies the partition\'s active producers); a request naming more is answered in slices of this many, between which other clients are served, with the same answer in request order (Tributary default 500).' },
  { name: 'describe.groups.max.groups.per.turn', type: 'INT', defaultValue: '500', min: 1,
    doc: 'Tributary-only: the most groups of one DescribeGroups the coordinator describes in one event-loop turn; a request naming more is answered in slices of this many, between which other clients are served, with the same answer in request order (Tributary default 500).' },
  { name: 'coordinator.max.timer.tasks.per.turn', type: 'INT', defaultValue: '500', min: 1,
    doc: 'Tributary-only: the most expired timer tasks of the group and transaction coordinators (group.initial.rebalance.delay.ms and rebalance timeouts ending, sessions expiring, transactions timing out) run in one event-loop turn; the rest run in the next turns, in the order they fell due, after other clients were served. Timers set together fall due together: 10,000 groups created in one burst ended their initial rebalance delay within a few milliseconds and answering them all held the loop for 600 ms (Tributary default 500).' },
  { name: 'request.max.array.elements', type: 'INT', defaultValue: '100000', min: 1,
    doc: 'Tributary-only (Kafka has no such bound): the most array elements one request may hold, counted over all its arrays (topics, partitions, assignments, broker ids and so on, nested ones included). A larger request is refused before it is decoded, in a few milliseconds whatever its size: with INVALID_REQUEST where the API has a top-level error code, else by closing the connection, as for a malformed request; the log line names this config. The default lets one request name every partition of a cluster at the max.partitions default twice over; raise both together.' },
  { name: 'metadata.response.cache.max.bytes', type: 'LONG', defaultValue: '67108864', min: 0,
    doc: 'Tributary-only: bytes of encoded all-topics Metadata answers the broker keeps to answer the next ones with (one per API version, listener and authorized-operations flags asked for), dropped as soon as anything they hold changes (a topic created or deleted, partitions added, a leader, leader epoch, replica set or ISR changed, a broker registered, fenced or gone, the controller moved); clients see exactly the answer a fresh build would give. An all-topics answer at 50,000 partitions is about 2-3 MB and took 100-260 ms to build; a body larger than this is built for each request as before, the oldest are dropped first to keep under it; 0 disables (Tributary default 64 MiB).' },
  { name: 'metadata.response.max.partitions.per.turn', type: 'INT', defaultValue: '5000', min: 1,
    doc: 'Tributary-only: the most partitions the broker encodes for an all-topics Metadata answer in one event-loop turn (the partitions of topics unchanged since its last answer are copied, not encoded, and do not count); a larger build goes on in later turns, between which other clients are served, and answers the metadata as it was when it began; requests for the same answer meanwhile wait for it (Tributary default 5000, a few milliseconds).' },
  { name: 'event.loop.stall.threshold.ms', type: 'INT', defaultValue: '200', min: 0,
    doc: 'Tributary-only: a request whose synchronous work, or any event-loop turn, takes this many milliseconds or more logs one event_loop.stall line at warn naming what ran (a request: API, client id, partition count; a metadata.apply slice: op, topic, partition count) and is counted in the event-loop metrics; 0 disables the watchdog.' },
];

/** The parsed limits (part of BrokerConfig). */
export interface LimitConfigs {
  readonly controllerMaxRecordsPerUserOp: number;
  readonly maxPartitions: number;
  /** controller.mutation.rate, partitions per second; 0 = no quota. */
  readonly controllerMutationRate: number;
  readonly controllerQuotaWindowNum: number;
  readonly controllerQuotaWindowSizeSeconds: number;
  /** auto.create.topics.max.per.request: topics one Metadata request may auto-create (>= 1). */
  readonly autoCreateTopicsMaxPerRequest: number;
  readonly queuedMaxRequestBytes: number;
  /** queued.max.response.bytes: responses not yet read by their peers, across connections, before those with one pending stop reading. */
  readonly queuedMaxResponseBytes: number;
  /** connection.max.in.flight.requests: requests of one connection answered at once. */
  readonly connectionMaxInFlightRequests: number;
  /** connection.max.pending.response.bytes: unread answer bytes of one TCP connection before it stops reading. */
  readonly connectionMaxPendingResponseBytes: number;
  readonly connectionMaxDispatchMsPerTurn: number;
  /** network.max.dispatch.ms.per.turn: all connections' dispatch per event-loop turn, ms; 0 = no bound. */
  readonly networkMaxDispatchMsPerTurn: number;
  /** websocket.max.pending.response.bytes: the same for one WebSocket /kafka connection. */
  readonly websocketMaxPendingResponseBytes: number;
  /** websocket.max.buffered.bytes: what one WebSocket /kafka connection may hold before it is cut off. */
  readonly websocketMaxBufferedBytes: number;
  /** websocket.max.total.buffered.bytes: what all WebSockets of a gateway may hold before the largest holder is cut off. */
  readonly websocketMaxTotalBufferedBytes: number;
  readonly maxConnectionsPerIp: number;
  readonly socketPartialRequestTimeoutMs: number;
  /** metadata.apply.max.partitions.per.turn: partitions of a metadata change applied to storage per event-loop turn. */
  readonly metadataApplyMaxPartitionsPerTurn: number;
  /** request.max.partitions.per.turn: partitions of one Produce or Fetch worked through per event-loop turn. */
  readonly requestMaxPartitionsPerTurn: number;
  /** housekeeping.max.partitions.per.turn: partitions one housekeeping slice works through per event-loop turn. */
  readonly housekeepingMaxPartitionsPerTurn: number;
  /** describe.configs.max.resources.per.turn: DescribeConfigs resources described per event-loop turn. */
  readonly describeConfigsMaxResourcesPerTurn: number;
  /** produce.response.max.partitions.per.turn: partitions of one Produce answer built per event-loop turn. */
  readonly produceResponseMaxPartitionsPerTurn: number;
  /** list.offsets.max.partitions.per.turn: partitions of one ListOffsets looked up per event-loop turn. */
  readonly listOffsetsMaxPartitionsPerTurn: number;
  /** delete.records.max.partitions.per.turn: partitions of one DeleteRecords worked through per event-loop turn. */
  readonly deleteRecordsMaxPartitionsPerTurn: number;
  /** describe.producers.max.partitions.per.turn: partitions of one DescribeProducers described per event-loop turn. */
  readonly describeProducersMaxPartitionsPerTurn: number;
  /** describe.groups.max.groups.per.turn: groups of one DescribeGroups described per event-loop turn. */
  readonly describeGroupsMaxGroupsPerTurn: number;
  /** coordinator.max.timer.tasks.per.turn: expired coordinator timer tasks run per event-loop turn. */
  readonly coordinatorMaxTimerTasksPerTurn: number;
  /** metadata.response.cache.max.bytes: bytes of encoded all-topics Metadata answers kept; 0 keeps none. */
  readonly metadataResponseCacheMaxBytes: number;
  /** metadata.response.max.partitions.per.turn: partitions an all-topics Metadata build encodes per event-loop turn. */
  readonly metadataResponseMaxPartitionsPerTurn: number;
  readonly eventLoopStallThresholdMs: number;
  /** request.max.array.elements: array elements (all arrays, nested included) one request may hold. */
  readonly requestMaxArrayElements: number;
}

/** Reads the limits from the validated values (`get` returns a config's parsed value by name). */
export function limitConfigs(get: <T extends ConfigValue>(name: string) => T): LimitConfigs {
  return {
    controllerMaxRecordsPerUserOp: get('controller.max.records.per.user.op'),
    maxPartitions: get('max.partitions'),
    controllerMutationRate: get('controller.mutation.rate'),
    controllerQuotaWindowNum: get('controller.quota.window.num'),
    controllerQuotaWindowSizeSeconds: get('controller.quota.window.size.seconds'),
    autoCreateTopicsMaxPerRequest: get('auto.create.topics.max.per.request'),
    queuedMaxRequestBytes: get('queued.max.request.bytes'),
    queuedMaxResponseBytes: get('queued.max.response.bytes'),
    connectionMaxInFlightRequests: get('connection.max.in.flight.requests'),
    connectionMaxPendingResponseBytes: get('connection.max.pending.response.bytes'),
    connectionMaxDispatchMsPerTurn: get('connection.max.dispatch.ms.per.turn'),
    networkMaxDispatchMsPerTurn: get('network.max.dispatch.ms.per.turn'),
    websocketMaxPendingResponseBytes: get('websocket.max.pending.response.bytes'),
    websocketMaxBufferedBytes: get('websocket.max.buffered.bytes'),
    websocketMaxTotalBufferedBytes: get('websocket.max.total.buffered.bytes'),
    maxConnectionsPerIp: get('max.connections.per.ip'),
    socketPartialRequestTimeoutMs: get('socket.partial.request.timeout.ms'),
    metadataApplyMaxPartitionsPerTurn: get('metadata.apply.max.partitions.per.turn'),
    requestMaxPartitionsPerTurn: get('request.max.partitions.per.turn'),
    housekeepingMaxPartitionsPerTurn: get('housekeeping.max.partitions.per.turn'),
    describeConfigsMaxResourcesPerTurn: get('describe.configs.max.resources.per.turn'),
    produceResponseMaxPartitionsPerTurn: get('produce.response.max.partitions.per.turn'),
    listOffsetsMaxPartitionsPerTurn: get('list.offsets.max.partitions.per.turn'),
    deleteRecordsMaxPartitionsPerTurn: get('delete.records.max.partitions.per.turn'),
    describeProducersMaxPartitionsPerTurn: get('describe.producers.max.partitions.per.turn'),
    describeGroupsMaxGroupsPerTurn: get('describe.groups.max.groups.per.turn'),
    coordinatorMaxTimerTasksPerTurn: get('coordinator.max.timer.tasks.per.turn'),
    metadataResponseCacheMaxBytes: get('metadata.response.cache.max.bytes'),
    metadataResponseMaxPartitionsPerTurn: get('metadata.response.max.partitions.per.turn'),
    eventLoopStallThresholdMs: get('event.loop.stall.threshold.ms'),
    requestMaxArrayElements: get('request.max.array.elements'),
  };
}

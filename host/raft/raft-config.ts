/**
 * The Raft quorum's configuration, with Kafka's config names (KIP-595, KIP-996) in the
 * docstrings. Times are milliseconds.
 */

/** A validated Raft configuration; build it with {@link raftConfig}. */
export interface RaftConfig {
  /** `node.id`: this node's id. */
  readonly nodeId: number;
  /** The voter ids (`controller.quorum.voters`), sorted, without duplicates. */
  readonly voters: readonly number[];
  /** The cluster id every request carries; a request with another is refused (INCONSISTENT_CLUSTER_ID). */
  readonly clusterId: string;
  /** `controller.quorum.election.timeout.ms` (1000): without a leader this long, a voter stands for election. Randomised per round in [t, 2t). */
  readonly electionTimeoutMs: number;
  /** `controller.quorum.fetch.timeout.ms` (2000): a follower without a successful Fetch this long looks for a new leader; a leader not fetched from by a majority for 1.5 times this resigns. */
  readonly fetchTimeoutMs: number;
  /** `controller.quorum.election.backoff.max.ms` (1000): the most a candidate that lost waits before the next round (randomised, exponential in the retries). */
  readonly electionBackoffMaxMs: number;
  /** `controller.quorum.append.linger.ms` (25): how long the leader lets appends gather before it flushes them. */
  readonly appendLingerMs: number;
  /** `controller.quorum.request.timeout.ms` (2000): a request without a response this long is given up. */
  readonly requestTimeoutMs: number;
  /** `controller.quorum.retry.backoff.ms` (20): the wait before a failed request is retried. */
  readonly retryBackoffMs: number;
  /** The longest a leader holds a Fetch that finds no new data (Kafka's Raft fetch max wait, 500). */
  readonly fetchMaxWaitMs: number;
  /** The most record bytes one Fetch or FetchSnapshot response carries (Kafka's 8 MiB fetch max bytes). */
  readonly fetchMaxBytes: number;
}

/** What {@link raftConfig} accepts: ids and cluster id required, times default to Kafka's. */
export interface RaftConfigInit {
  nodeId: number;
  voters: readonly number[];
  clusterId: string;
  electionTimeoutMs?: number;
  fetchTimeoutMs?: number;
  electionBackoffMaxMs?: number;
  appendLingerMs?: number;
  requestTimeoutMs?: number;
  retryBackoffMs?: number;
  fetchMaxWaitMs?: number;
  fetchMaxBytes?: number;
}

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer of milliseconds or bytes, got ${value}`);
  return value;
}

/**
 * Builds a {@link RaftConfig} with Kafka's defaults.
 * @throws Error when the voter set is empty or has a bad id, or a time is not a positive integer.
 * A node missing from the voters is an observer (it follows, never votes).
 */
export function raftConfig(init: RaftConfigInit): RaftConfig {
  const voters = [...new Set(init.voters)].sort((a, b) => a - b);
  if (voters.length === 0) throw new Error('controller.quorum.voters is empty: a Raft quorum needs at least one voter');
  for (const id of voters) if (!Number.isInteger(id) || id < 0) throw new Error(`controller.quorum.voters: bad voter id ${id}`);
  return {
    nodeId: init.nodeId,
    voters,
    clusterId: init.clusterId,
    electionTimeoutMs: positive('controller.quorum.election.timeout.ms', init.electionTimeoutMs ?? 1000),
    fetchTimeoutMs: positive('controller.quorum.fetch.timeout.ms', init.fetchTimeoutMs ?? 2000),
    electionBackoffMaxMs: positive('controller.quorum.election.backoff.max.ms', init.electionBackoffMaxMs ?? 1000),
    appendLingerMs: positive('controller.quorum.append.linger.ms', init.appendLingerMs ?? 25),
    requestTimeoutMs: positive('controller.quorum.request.timeout.ms', init.requestTimeoutMs ?? 2000),
    retryBackoffMs: positive('controller.quorum.retry.backoff.ms', init.retryBackoffMs ?? 20),
    fetchMaxWaitMs: positive('fetch max wait', init.fetchMaxWaitMs ?? 500),
    fetchMaxBytes: positive('fetch max bytes', init.fetchMaxBytes ?? 8 * 1024 * 1024),
  };
}

/** The number of voters that makes a majority of `voterCount`. */
export function majorityOf(voterCount: number): number {
  return Math.floor(voterCount / 2) + 1;
}

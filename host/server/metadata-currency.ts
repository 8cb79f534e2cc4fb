/**
 * Whether a broker's metadata is current enough for it to act on its partition leaderships
 * (issue 11). A node cut off from the controller quorum keeps the metadata it last replayed: after
 * broker.session.timeout.ms the active controller fences it and moves its leaderships, but the
 * node does not know and, reachable by clients, still answers Metadata and Produce as the leader
 * (a "zombie"; until it hears from the quorum again and has replayed what it missed). Kafka has
 * the same window; its clients ignore Metadata with an older leader epoch (KIP-320), but
 * librdkafka before 2.1 asks Metadata v4 (no epochs), follows the zombie and takes the
 * OUT_OF_ORDER_SEQUENCE_NUMBER the zombie answers to its head-of-line batch as fatal.
 *
 * The rule: current while the node's Raft client is in touch with a live quorum
 * (RaftClient.quorumContact: a follower fetched from the leader within
 * controller.quorum.fetch.timeout.ms, a leader was fetched from by a majority within it) and the
 * node has replayed the metadata log up to the leader's high watermark as of when that contact
 * began (a new leader: its epoch start). A leadership can only move away from this node through
 * records committed while it was out of touch (fencing takes broker.session.timeout.ms, longer
 * than the fetch timeout), so once caught up the node knows. A node without a quorum (the embedded
 * single voter) is always current.
 *
 * Replayed is not yet applied: the BrokerMetadataPublisher applies a large change to the
 * Partitions in slices (metadata.apply.max.partitions.per.turn per event-loop turn), and a healed
 * zombie's change (every leadership it lost) is such a change. Until its last slice ran, a
 * partition not yet demoted would still answer 45, so the metadata counts as current only once no
 * slice is pending.
 */

/** What the rule reads: the node's Raft client (ControllerQuorum.raft). */
export interface QuorumContactSource {
  quorumContact(): { sinceMs: number; catchUpOffset: number } | null;
}

/**
 * A check for ReplicaManagerOptions.isMetadataCurrent: `lastReplayedOffset` is the offset of the
 * last metadata record the broker has replayed (-1 for none), e.g. QuorumController.lastCommittedOffset;
 * `applyPending` whether replayed changes still wait to be applied to the partitions
 * (BrokerMetadataPublisher.pendingSlices > 0); default never.
 */
export function metadataCurrency(
  raft: QuorumContactSource | null, lastReplayedOffset: () => number, applyPending: () => boolean = () => false,
): () => boolean {
  if (raft === null) return () => true;
  return () => {
    const contact = raft.quorumContact();
    return contact !== null && lastReplayedOffset() + 1 >= contact.catchUpOffset && !applyPending();
  };
}

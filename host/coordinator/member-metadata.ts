import type { JoinGroupResult, JoinProtocol, SyncGroupResult } from './coordinator-types.js';
import type { TimerHandle } from '../io/environment.js';

const EMPTY_BYTES = new Uint8Array(0);

/**
 * One member of a classic group (Kafka's MemberMetadata.scala): its identity, timeouts, the
 * protocols it supports (in preference order, each with its metadata, i.e. the consumer's
 * subscription), its current assignment, and the JoinGroup/SyncGroup responses it is waiting for.
 */
export class MemberMetadata {
  memberId: string;
  readonly groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  readonly protocolType: string;
  supportedProtocols: JoinProtocol[];
  assignment: Uint8Array = EMPTY_BYTES;
  /** Set while a JoinGroup response is owed to this member. */
  awaitingJoinCallback: ((result: JoinGroupResult) => void) | null = null;
  /** Set while a SyncGroup response is owed to this member. */
  awaitingSyncCallback: ((result: SyncGroupResult) => void) | null = null;
  /** Joined in the current rebalance and has not yet received a JoinGroup response. */
  isNew = false;
  /** The session (or new-member join) expiry timer; at most one per member. */
  heartbeatTimer: TimerHandle | null = null;

  constructor(init: {
    memberId: string;
    groupInstanceId: string | null;
    clientId: string;
    clientHost: string;
    rebalanceTimeoutMs: number;
    sessionTimeoutMs: number;
    protocolType: string;
    supportedProtocols: JoinProtocol[];
  }) {
    this.memberId = init.memberId;
    this.groupInstanceId = init.groupInstanceId;
    this.clientId = init.clientId;
    this.clientHost = init.clientHost;
    this.rebalanceTimeoutMs = init.rebalanceTimeoutMs;
    this.sessionTimeoutMs = init.sessionTimeoutMs;
    this.protocolType = init.protocolType;
    this.supportedProtocols = init.supportedProtocols;
  }

  get isAwaitingJoin(): boolean {
    return this.awaitingJoinCallback !== null;
  }

  get isAwaitingSync(): boolean {
    return this.awaitingSyncCallback !== null;
  }

  get isStaticMember(): boolean {
    return this.groupInstanceId !== null;
  }

  /** The set of protocol names this member supports. */
  protocolNames(): Set<string> {
    return new Set(this.supportedProtocols.map((protocol) => protocol.name));
  }

  /** The member's metadata for `protocol`; a bug if the member does not support it. */
  metadata(protocol: string): Uint8Array {
    const found = this.supportedProtocols.find((candidate) => candidate.name === protocol);
    if (found === undefined) throw new Error(`Member ${this.memberId} does not support protocol ${protocol}`);
    return found.metadata;
  }

  /** True when `protocols` are exactly the member's (same names, same metadata bytes, same order). */
  matches(protocols: JoinProtocol[]): boolean {
    if (protocols.length !== this.supportedProtocols.length) return false;
    for (let i = 0; i < protocols.length; i++) {
      const a = protocols[i]!;
      const b = this.supportedProtocols[i]!;
      if (a.name !== b.name || !bytesEqual(a.metadata, b.metadata)) return false;
    }
    return true;
  }

  /** The member's most preferred protocol among `candidates` (Kafka's MemberMetadata.vote). */
  vote(candidates: ReadonlySet<string>): string {
    const choice = this.supportedProtocols.find((protocol) => candidates.has(protocol.name));
    if (choice === undefined) throw new Error(`Member ${this.memberId} does not support any of the candidate protocols`);
    return choice.name;
  }
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

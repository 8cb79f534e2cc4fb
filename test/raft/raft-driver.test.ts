import { describe, expect, it } from 'vitest';
import { ManualTime } from '../../host/io/time.js';
import type { ChannelResult, RemoteApi } from '../../host/network/node-channel.js';
import type { RaftEnvelope } from '../../host/raft/messages.js';
import { RaftDriver, RaftRequestAbandoned, type DrivenRaftNode, type RaftTransport } from '../../host/raft/raft-driver.js';
import { raftWire } from '../../host/raft/raft-wire.js';

/** A node that records what it was handed and emits what the test queues. */
class ScriptedNode implements DrivenRaftNode {
  readonly handled: RaftEnvelope[] = [];
  outbound: RaftEnvelope[] = [];
  nextPollMs = 1000;
  polls = 0;
  /** Answer inbound requests at once with this body (undefined: stay silent). */
  answer: ((envelope: RaftEnvelope) => unknown) | undefined;
  start(): void {}
  handle(envelope: RaftEnvelope): void {
    this.handled.push(envelope);
    if (envelope.kind === 'request' && this.answer !== undefined) {
      this.outbound.push({ ...envelope, kind: 'response', source: envelope.destination, destination: envelope.source, body: this.answer(envelope) } as RaftEnvelope);
    }
  }
  poll(): number {
    this.polls += 1;
    return this.nextPollMs;
  }
  takeOutbound(): RaftEnvelope[] {
    return this.outbound.splice(0);
  }
}

class RecordingTransport implements RaftTransport {
  readonly sent: Array<{ nodeId: number; api: string; version: number; body: unknown; settle(result: ChannelResult<unknown>): void }> = [];
  send<Req, Res>(nodeId: number, api: RemoteApi<Req, Res>, version: number, body: Req): Promise<ChannelResult<Res>> {
    return new Promise((resolve) => this.sent.push({ nodeId, api: api.name, version, body, settle: resolve as (r: ChannelResult<unknown>) => void }));
  }
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function setup(): { time: ManualTime; node: ScriptedNode; transport: RecordingTransport; driver: RaftDriver } {
  const time = new ManualTime();
  const node = new ScriptedNode();
  const transport = new RecordingTransport();
  const driver = new RaftDriver({ nodeId: 1, node, transport, wire: raftWire(() => 0), time, requestTimeoutMs: 2000 });
  return { time, node, transport, driver };
}

describe('RaftDriver', () => {
  it('sends queued requests to their voter at the wire version and hands the answer back as a response envelope', async () => {
    const { node, transport, driver } = setup();
    node.outbound.push({ source: 1, destination: 2, correlationId: 5, kind: 'request', api: 'Vote',
      body: { clusterId: 'c', candidateEpoch: 3, candidateId: 1, lastOffsetEpoch: 2, lastOffset: 10, preVote: true } });
    driver.start();
    expect(transport.sent).toHaveLength(1);
    expect(transport.sent[0]).toMatchObject({ nodeId: 2, api: 'Vote', version: 2 });
    transport.sent[0]!.settle({ kind: 'response', body: { errorCode: 0, leaderId: -1, leaderEpoch: 2, voteGranted: true } });
    await flush();
    expect(node.handled).toEqual([{ source: 2, destination: 1, correlationId: 5, kind: 'response', api: 'Vote',
      body: { errorCode: 0, leaderId: -1, leaderEpoch: 2, voteGranted: true } }]);
    // A failed send is dropped: the node times the request out itself.
    node.outbound.push({ source: 1, destination: 3, correlationId: 6, kind: 'request', api: 'BeginQuorumEpoch', body: { clusterId: 'c', leaderId: 1, leaderEpoch: 3 } });
    // Any event pumps the node; this inbound request stays unanswered (the node is silent).
    void driver.handleRequest('DescribeQuorum', {}).catch(() => undefined);
    expect(transport.sent[1]).toMatchObject({ nodeId: 3, api: 'BeginQuorumEpoch', version: 0 });
    transport.sent[1]!.settle({ kind: 'disconnected', reason: 'test' });
    await flush();
    expect(node.handled.filter((e) => e.kind === 'response')).toHaveLength(1);
    driver.stop();
  });

  it('resolves an inbound request with the node answer, matched to its sender; an unanswered one fails after the request timeout', async () => {
    const { time, node, driver } = setup();
    driver.start();
    node.answer = (envelope) => ({ errorCode: 0, leaderId: 1, leaderEpoch: 4, voteGranted: (envelope.body as { candidateId: number }).candidateId === 3 });
    const granted = await driver.handleRequest('Vote', { clusterId: 'c', candidateEpoch: 4, candidateId: 3, lastOffsetEpoch: 1, lastOffset: 1, preVote: false });
    expect(granted.voteGranted).toBe(true);
    expect(node.handled[0]).toMatchObject({ source: 3, destination: 1, kind: 'request', api: 'Vote' });
    node.answer = undefined;
    const silent = driver.handleRequest('Fetch', { clusterId: 'c', replicaId: 2, replicaEpoch: 4, fetchOffset: 0, lastFetchedEpoch: 0, maxBytes: 100 });
    time.advance(2000);
    await expect(silent).rejects.toBeInstanceOf(RaftRequestAbandoned);
    driver.stop();
    await expect(driver.handleRequest('DescribeQuorum', {})).rejects.toThrow(/not running/);
  });

  it('polls again at the time the node asked for', () => {
    const { time, node, driver } = setup();
    node.nextPollMs = 250;
    driver.start();
    const before = node.polls;
    time.advance(249);
    expect(node.polls).toBe(before);
    time.advance(1);
    expect(node.polls).toBe(before + 1);
    driver.stop();
    time.advance(10_000);
    expect(node.polls).toBe(before + 1);
  });
});

/**
 * The Jepsen-style checker's own logic (bench/jepsen/), without processes: the fault schedule is
 * a function of the seed, and the checker finds each kind of violation it claims to find (lost,
 * offset changed, duplicated, reordered, unexpected, a live read that changed, a fatal client
 * error) while it passes a clean history and lets acks=1 writers lose writes; a duplicate the
 * stored batch headers show the client re-sent under a new producer epoch is reported, not failed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BatchOrigin, batchProvenance, readBatchOrigins } from '../../bench/jepsen/batch-provenance.js';
import { checkHistory, formatCheckReport, type ReadBack } from '../../bench/jepsen/checker.js';
import { FAULT_KINDS, faultSchedule } from '../../bench/jepsen/fault-schedule.js';
import { History, parseValue, type ReadRecord } from '../../bench/jepsen/history.js';
import { encodeTestBatch } from '../helpers/independent-batch-encoder.js';

function readBack(topic: string, partitions: Record<number, string[]>): ReadBack {
  return new Map([[topic, new Map(Object.entries(partitions).map(([partition, values]) => [
    Number(partition), values.map((value, offset): ReadRecord => ({ partition: Number(partition), offset, value })),
  ]))]]);
}

/** A history where client `c` (acks=all, idempotent) wrote c-0..c-3 to partition 0 at offsets 0..3. */
function cleanHistory(): History {
  const history = new History();
  history.register({ client: 'c', topic: 't', acks: 'all', idempotent: true });
  for (let seq = 0; seq < 4; seq++) {
    history.attempt('c');
    history.ack('c', 0, seq, `c-${seq}`);
  }
  return history;
}

describe('the Jepsen-style fault schedule', () => {
  it('is the same list for the same seed and another list for another seed', () => {
    const a = faultSchedule({ seed: 42, faults: 120, nodes: 3 });
    expect(faultSchedule({ seed: 42, faults: 120, nodes: 3 })).toEqual(a);
    expect(faultSchedule({ seed: 43, faults: 120, nodes: 3 })).not.toEqual(a);
    expect(a).toHaveLength(120);
  });

  it('draws every kind over a long campaign, with valid targets', () => {
    const faults = faultSchedule({ seed: 1, faults: 120, nodes: 3 });
    expect(new Set(faults.map((f) => f.kind))).toEqual(new Set(FAULT_KINDS));
    for (const fault of faults) {
      expect(fault.node).toBeGreaterThanOrEqual(1);
      expect(fault.node).toBeLessThanOrEqual(3);
      if (fault.kind === 'cut-replication' || fault.kind === 'cut-controller') expect([1, 2, 3].filter((id) => id !== fault.node)).toContain(fault.peer);
    }
  });
});

describe('the Jepsen-style checker', () => {
  it('passes a history whose acknowledged writes all read back in place', () => {
    const report = checkHistory(cleanHistory(), readBack('t', { 0: ['c-0', 'c-1', 'c-2', 'c-3'] }));
    expect(report.violations).toEqual([]);
    expect(report.clients[0]).toMatchObject({ acked: 4, lost: 0, offsetChanged: 0, duplicated: 0, reordered: 0 });
  });

  it('reports an acknowledged write that is gone as lost and its offset as changed', () => {
    const report = checkHistory(cleanHistory(), readBack('t', { 0: ['c-0', 'c-1', 'c-3'] }));
    expect(report.clients[0]).toMatchObject({ lost: 1, offsetChanged: 2 });
    expect(report.violations.join('\n')).toContain('acknowledged c-2 at t-0@2 is lost');
  });

  it('reports a value written twice as duplicated', () => {
    const report = checkHistory(cleanHistory(), readBack('t', { 0: ['c-0', 'c-1', 'c-2', 'c-3', 'c-3'] }));
    expect(report.clients[0]).toMatchObject({ duplicated: 1, lost: 0 });
    expect(report.violations).not.toEqual([]);
  });

  it('fails a duplicate whose copies share a producer id and epoch (a retry the broker did not recognise)', () => {
    const origins = [origin(0, 3, 7, 0, 0), origin(4, 4, 7, 0, 3)];
    const report = checkHistory(cleanHistory(), readBack('t', { 0: ['c-0', 'c-1', 'c-2', 'c-3', 'c-3'] }), (_t, _p, offset) =>
      origins.find((o) => o.baseOffset <= offset && offset <= o.lastOffset));
    expect(report.clients[0]).toMatchObject({ duplicated: 1, resent: 0 });
    expect(report.violations.join('\n')).toContain('c-3 at 0@3 [pid 7 epoch 0 seq 0 (batch 0..3)] and 0@4 [pid 7 epoch 0 seq 3 (batch 4..4)]');
  });

  it('reports, without failing, a duplicate the client re-sent under a new producer epoch', () => {
    const origins = [origin(0, 3, 7, 0, 0), origin(4, 4, 7, 1, 0)];
    const report = checkHistory(cleanHistory(), readBack('t', { 0: ['c-0', 'c-1', 'c-2', 'c-3', 'c-3'] }), (_t, _p, offset) =>
      origins.find((o) => o.baseOffset <= offset && offset <= o.lastOffset));
    expect(report.clients[0]).toMatchObject({ duplicated: 0, resent: 1 });
    expect(report.violations).toEqual([]);
    expect(formatCheckReport(report)).toContain('c (re-sent by the client under a new producer epoch, allowed): c-3 at 0@3');
  });

  it('fails a duplicate whose batch headers cannot be found', () => {
    const report = checkHistory(cleanHistory(), readBack('t', { 0: ['c-0', 'c-1', 'c-2', 'c-3', 'c-3'] }), () => undefined);
    expect(report.clients[0]).toMatchObject({ duplicated: 1, resent: 0 });
    expect(report.violations.join('\n')).toContain('batch not found');
  });

  it('reads the producer fields of the batches in a partition directory\'s segment files', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'jepsen-provenance-'));
    try {
      const dir = path.join(root, 'node-1', 't-0');
      mkdirSync(dir, { recursive: true });
      const first = encodeTestBatch({ baseOffset: 0, producerId: 7, producerEpoch: 0, baseSequence: 0, records: [{ value: Buffer.from('a') }, { value: Buffer.from('b') }] });
      const second = encodeTestBatch({ baseOffset: 2, producerId: 7, producerEpoch: 1, baseSequence: 0, records: [{ value: Buffer.from('b') }] });
      writeFileSync(path.join(dir, '00000000000000000000.log'), first);
      // A torn tail (half a batch) ends the walk without an error.
      writeFileSync(path.join(dir, '00000000000000000002.log'), Buffer.concat([second, second.subarray(0, 30)]));
      expect(readBatchOrigins(dir)).toEqual([origin(0, 1, 7, 0, 0), origin(2, 2, 7, 1, 0)]);
      const provenance = batchProvenance([path.join(root, 'node-2'), path.join(root, 'node-1')]);
      expect(provenance('t', 0, 1)).toEqual(origin(0, 1, 7, 0, 0));
      expect(provenance('t', 0, 2)).toEqual(origin(2, 2, 7, 1, 0));
      expect(provenance('t', 0, 3)).toBeUndefined();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('reports acknowledgements whose offsets do not follow the write order as reordered', () => {
    const history = new History();
    history.register({ client: 'c', topic: 't', acks: 'all', idempotent: true });
    history.attempt('c');
    history.attempt('c');
    history.ack('c', 0, 1, 'c-0');
    history.ack('c', 0, 0, 'c-1');
    const report = checkHistory(history, readBack('t', { 0: ['c-1', 'c-0'] }));
    expect(report.clients[0]).toMatchObject({ reordered: 1, lost: 0, offsetChanged: 0 });
  });

  it('reports values nobody wrote, and a live read whose offset changed afterwards', () => {
    const history = cleanHistory();
    history.observe('t', { partition: 0, offset: 1, value: 'c-1' }, undefined);
    history.observe('t', { partition: 0, offset: 0, value: 'c-0' }, 1);
    const report = checkHistory(history, readBack('t', { 0: ['c-0', 'c-9', 'c-2', 'c-3', 'x'] }));
    expect(report.unexpected).toBe(2);
    expect(report.readerChanged).toBe(1);
    expect(report.readerRewinds).toBe(1);
  });

  it('checks a write acknowledged without an offset for presence only', () => {
    const history = cleanHistory();
    history.attempt('c');
    history.ack('c', 0, -1, 'c-4');
    expect(checkHistory(history, readBack('t', { 0: ['c-0', 'c-1', 'c-2', 'c-3', 'c-4'] })).violations).toEqual([]);
    const lost = checkHistory(history, readBack('t', { 0: ['c-0', 'c-1', 'c-2', 'c-3'] }));
    expect(lost.clients[0]).toMatchObject({ lost: 1, ackedWithoutOffset: 1, offsetChanged: 0, reordered: 0 });
  });

  it('counts a fatal client error (an idempotent producer that gave up) as a violation, with its whole message', () => {
    const history = cleanHistory();
    const message = 'KafkaError{FATAL,code=OUT_OF_ORDER_SEQUENCE_NUMBER,val=45,str="ProduceRequest for t [0] with 3 message(s) failed due to sequence desynchronization with broker 2"}';
    history.fatal('c', message, Date.UTC(2026, 0, 1));
    const report = checkHistory(history, readBack('t', { 0: ['c-0', 'c-1', 'c-2', 'c-3'] }));
    expect(report.fatalErrors).toEqual([`2026-01-01T00:00:00.000Z c: ${message}`]);
    expect(report.violations.join('\n')).toContain('1 fatal client error(s)');
    expect(report.violations.join('\n')).toContain('failed due to sequence desynchronization with broker 2');
  });

  it('lets an acks=1 writer lose acknowledged writes (reported, not a violation)', () => {
    const history = new History();
    history.register({ client: 'a', topic: 't', acks: '1', idempotent: false });
    history.attempt('a');
    history.ack('a', 0, 0, 'a-0');
    const report = checkHistory(history, readBack('t', { 0: [] }));
    expect(report.clients[0]).toMatchObject({ lost: 1 });
    expect(report.violations).toEqual([]);
  });

  it('reads values back to their writer and sequence number', () => {
    expect(parseValue('kafkajs-17')).toEqual({ client: 'kafkajs', seq: 17 });
    expect(parseValue('acks1-0')).toEqual({ client: 'acks1', seq: 0 });
    expect(parseValue('nope')).toBeUndefined();
  });
});

function origin(baseOffset: number, lastOffset: number, producerId: number, producerEpoch: number, baseSequence: number): BatchOrigin {
  return { baseOffset, lastOffset, producerId, producerEpoch, baseSequence };
}

import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DiskError, readWholeFile, writeFileAtomically } from '../../host/io/disk.js';
import { FaultDisk, SimulatedCrash } from '../../host/io/fault-disk.js';
import { FileQuorumStateStore, parseQuorumState, QUORUM_STATE_FILE } from '../../host/raft/file-quorum-state-store.js';
import { PARTITION_DIR } from './raft-log-helpers.js';

const FILE = path.join(PARTITION_DIR, QUORUM_STATE_FILE);

function freshDisk(seed = 1): FaultDisk {
  const disk = new FaultDisk(seed);
  disk.mkdir(PARTITION_DIR);
  disk.syncAll();
  return disk;
}

function openError(disk: FaultDisk): unknown {
  try {
    FileQuorumStateStore.open(disk, PARTITION_DIR);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('FileQuorumStateStore', () => {
  it('reads nothing on a first start and round-trips a state through Kafka\'s JSON', () => {
    const disk = freshDisk();
    const store = FileQuorumStateStore.open(disk, PARTITION_DIR);
    expect(store.read()).toBeUndefined();
    store.write({ epoch: 7, leaderId: 2, votedId: 2 });
    expect(store.read()).toEqual({ epoch: 7, leaderId: 2, votedId: 2 });
    expect(readWholeFile(disk, FILE).toString()).toBe(
      '{"leaderId":2,"leaderEpoch":7,"votedId":2,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}',
    );
    store.write({ epoch: 8, leaderId: -1, votedId: 3 });
    expect(FileQuorumStateStore.open(disk, PARTITION_DIR).read()).toEqual({ epoch: 8, leaderId: -1, votedId: 3 });
  });

  it('is durable when write returns: a power loss right after keeps the vote', () => {
    const disk = freshDisk();
    FileQuorumStateStore.open(disk, PARTITION_DIR).write({ epoch: 3, leaderId: -1, votedId: 1 });
    disk.powerLoss('strict');
    expect(FileQuorumStateStore.open(disk, PARTITION_DIR).read()).toEqual({ epoch: 3, leaderId: -1, votedId: 1 });
  });

  it('keeps the old or the new state when power fails during a write', () => {
    for (let call = 1; call <= 10; call++) {
      const disk = freshDisk(call);
      const store = FileQuorumStateStore.open(disk, PARTITION_DIR);
      store.write({ epoch: 3, leaderId: 1, votedId: 1 });
      disk.crashAfter(call);
      try {
        store.write({ epoch: 4, leaderId: -1, votedId: 2 });
      } catch (error) {
        if (!(error instanceof SimulatedCrash)) throw error;
      }
      disk.powerLoss(call % 2 === 0 ? 'torn' : 'strict');
      expect([3, 4], `crash at call ${call}`).toContain(FileQuorumStateStore.open(disk, PARTITION_DIR).read()!.epoch);
    }
  });

  it('reads Kafka\'s version 0 file', () => {
    const text = '{"clusterId":"","leaderId":1,"leaderEpoch":5,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1},{"voterId":2}],"data_version":0}';
    expect(parseQuorumState(text, FILE)).toEqual({ epoch: 5, leaderId: 1, votedId: -1 });
  });

  it('refuses a corrupt file with an error naming it, never resetting the state', () => {
    const disk = freshDisk();
    const corrupt = [
      '',
      '{"leaderId":1,"leaderEp',
      '[]',
      '{"leaderId":1,"leaderEpoch":5,"votedId":-1}',
      '{"leaderId":1,"leaderEpoch":5,"votedId":-1,"data_version":2}',
      '{"leaderId":"1","leaderEpoch":5,"votedId":-1,"data_version":1}',
      '{"leaderId":1,"leaderEpoch":-1,"votedId":-1,"data_version":1}',
      '{"leaderId":1,"leaderEpoch":5,"votedId":-2,"data_version":1}',
    ];
    for (const text of corrupt) {
      writeFileAtomically(disk, FILE, Buffer.from(text));
      const error = openError(disk);
      expect(error, JSON.stringify(text)).toBeInstanceOf(DiskError);
      expect((error as DiskError).code).toBe('EBADMSG');
      expect((error as DiskError).message).toContain(FILE);
      expect(readWholeFile(disk, FILE).toString()).toBe(text);
    }
  });

  it('leaves the state unchanged when the write fails', () => {
    const disk = freshDisk();
    const store = FileQuorumStateStore.open(disk, PARTITION_DIR);
    store.write({ epoch: 1, leaderId: 1, votedId: 1 });
    disk.faultRule = (op) => (op.kind === 'fsync' ? { code: 'EIO' } : undefined);
    expect(() => store.write({ epoch: 2, leaderId: -1, votedId: 3 })).toThrow(/EIO/);
    disk.faultRule = undefined;
    expect(store.read()).toEqual({ epoch: 1, leaderId: 1, votedId: 1 });
  });
});

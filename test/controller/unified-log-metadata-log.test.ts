/**
 * The metadata log on a real UnifiedLog: location, Kafka's record framing, restart replay, and
 * crash safety on the fault-injecting disk (seeded; a failure names SEED=...).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../host/io/clock.js';
import { FaultDisk, SimulatedCrash } from '../../host/io/fault-disk.js';
import { SeededRandom } from '../../host/io/random.js';
import { defaultLogConfig } from '../../host/log/log-config.js';
import { LogManager } from '../../host/log/log-manager.js';
import { readBatch } from '../../host/record/records.js';
import type { MetadataBatch } from '../../host/controller/metadata-log.js';
import { MetadataLogError } from '../../host/controller/metadata-log.js';
import type { MetadataLog } from '../../host/controller/metadata-log.js';
import { decodeMetadataRecord } from '../../host/controller/metadata-records.js';
import { QuorumController } from '../../host/controller/quorum-controller.js';
import { UnifiedLogMetadataLog } from '../../host/controller/unified-log-metadata-log.js';
import { DEFAULT_CONFIG } from './controller-fixture.js';

const tempDirs: string[] = [];
afterEach(() => {
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-controller-'));
  tempDirs.push(dir);
  return dir;
}

function openManager(logDirs: string[], disk?: FaultDisk): LogManager {
  return LogManager.open({ logDirs, defaults: defaultLogConfig, clock: new ManualClock(), ...(disk === undefined ? {} : { disk }) });
}

function openController(manager: LogManager, seed = 1): QuorumController {
  return new QuorumController({
    config: DEFAULT_CONFIG, log: UnifiedLogMetadataLog.open(manager, { localId: DEFAULT_CONFIG.nodeId, time: new ManualClock() }),
    random: new SeededRandom(seed), clock: new ManualClock(),
  });
}

async function register(controller: QuorumController): Promise<number> {
  return (await controller.registerBroker({ brokerId: 1, endpoints: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9092, securityProtocol: 0 }] })).brokerEpoch;
}

describe('UnifiedLogMetadataLog', () => {
  it('keeps the metadata log in <log.dirs[0]>/__cluster_metadata-0 as record batches of framed metadata records', async () => {
    const dirs = [tempDir(), tempDir()];
    const manager = openManager(dirs);
    const controller = openController(manager);
    await register(controller);
    await controller.createTopics([{ name: 'orders', numPartitions: 2, replicationFactor: 1 }]);
    expect(fs.existsSync(path.join(dirs[0]!, '__cluster_metadata-0'))).toBe(true);
    const log = manager.getLog('__cluster_metadata', 0)!;
    const read = log.read(0, 1 << 20, log.logEndOffset, true);
    const { records } = readBatch(read.records);
    // FeatureLevelRecord (api key 12, v0) framed as: frame version 1, api key 12, version 0.
    expect([...records[0]!.value!.subarray(0, 3)]).toEqual([1, 12, 0]);
    expect(decodeMetadataRecord(records[0]!.value!)).toMatchObject({ type: 'FeatureLevelRecord', data: { name: 'metadata.version' } });
    manager.shutdown();
  });

  it('is a one-voter quorum: leads epoch 1 at once, commits each batch inside append after the fsync, refuses other epochs with NOT_CONTROLLER', () => {
    const dirs = [tempDir()];
    let manager = openManager(dirs);
    let log = UnifiedLogMetadataLog.open(manager, { localId: 3, time: new ManualClock() });
    const heard: string[] = [];
    log.register({
      handleCommit: (batch: MetadataBatch) => { heard.push(`commit ${batch.baseOffset}-${batch.lastOffset}@${batch.epoch}`); },
      handleLeaderChange: (leader) => heard.push(`leader ${leader.leaderId}@${leader.epoch}`),
    });
    expect(log.leaderAndEpoch()).toEqual({ leaderId: 3, epoch: 1 });
    const values = [new Uint8Array([1, 2]), new Uint8Array([3])];
    expect(log.append(1, values)).toBe(1);
    expect(heard).toEqual(['leader 3@1', 'commit 0-1@1']);
    expect(log.highWatermark()).toBe(2);
    expect(log.endOffset()).toBe(2);
    expect(log.append(1, [new Uint8Array([4])])).toBe(2);
    const stale = (() => { try { log.append(2, values); return null; } catch (error) { return error; } })();
    expect(stale).toBeInstanceOf(MetadataLogError);
    expect((stale as MetadataLogError).errorCode).toBe(41);
    expect(log.endOffset()).toBe(3);
    manager.shutdown();

    manager = openManager(dirs);
    log = UnifiedLogMetadataLog.open(manager, { localId: 3, time: new ManualClock() });
    expect(log.highWatermark()).toBe(3);
    const replayed = [...log.readCommitted(0)].map((b) => ({ ...b, records: b.records.map((r) => [...r]) }));
    expect(replayed).toEqual([
      { baseOffset: 0, lastOffset: 1, epoch: 1, records: [[1, 2], [3]] },
      { baseOffset: 2, lastOffset: 2, epoch: 1, records: [[4]] },
    ]);
    expect([...log.readCommitted(2)].map((b) => b.baseOffset)).toEqual([2]);
    manager.shutdown();
  });

  it('replays the log after a restart into an identical image, and producer id blocks never repeat', async () => {
    const dirs = [tempDir()];
    let manager = openManager(dirs);
    let controller = openController(manager);
    let epoch = await register(controller);
    await controller.createTopics([
      { name: 'a', numPartitions: 3, replicationFactor: 1, configs: [{ name: 'retention.ms', value: '1000' }] },
      { name: 'b', numPartitions: 1, replicationFactor: 1 },
    ]);
    await controller.createPartitions([{ name: 'b', count: 4 }]);
    await controller.deleteTopics(['a']);
    await controller.createTopics([{ name: 'a', numPartitions: 1, replicationFactor: 1 }]);
    const firstBlock = await controller.allocateProducerIds(1, epoch);
    const image = JSON.stringify(controller.image.toJSON());
    manager.shutdown();

    manager = openManager(dirs);
    controller = openController(manager, 2);
    expect(JSON.stringify(controller.image.toJSON())).toBe(image);
    epoch = await register(controller);
    const secondBlock = await controller.allocateProducerIds(1, epoch);
    expect(secondBlock.producerIdStart).toBeGreaterThanOrEqual(firstBlock.producerIdStart + firstBlock.producerIdLen);
    manager.shutdown();
  });

  it('keeps every acknowledged change and never half of one across seeded crashes and power losses', async () => {
    for (let seed = 1; seed <= 10; seed++) {
      const random = new SeededRandom(seed);
      const disk = new FaultDisk(seed);
      disk.mkdir('/data');
      disk.syncAll();
      /** Every batch the controller appended and got acknowledged, as hex record values. */
      const acknowledged: string[][] = [];
      let pending: string[] | null = null;
      let acknowledgedImage = '';
      const reopen = (round: number): QuorumController => {
        const manager = openManager(['/data/logs'], disk);
        const inner = UnifiedLogMetadataLog.open(manager, { localId: DEFAULT_CONFIG.nodeId, time: new ManualClock() });
        const recording: MetadataLog = {
          append(epoch, values) {
            pending = values.map((v) => Buffer.from(v).toString('hex'));
            const offset = inner.append(epoch, values);
            acknowledged.push(pending);
            pending = null;
            return offset;
          },
          register: (listener) => inner.register(listener),
          highWatermark: () => inner.highWatermark(),
          endOffset: () => inner.endOffset(),
          leaderAndEpoch: () => inner.leaderAndEpoch(),
          readCommitted: (fromOffset) => inner.readCommitted(fromOffset),
        };
        const stored = [...inner.readCommitted(0)].flatMap((batch) => batch.records).map((value) => Buffer.from(value).toString('hex'));
        const acked = acknowledged.flat();
        const context = `SEED=${seed} round ${round}`;
        if (pending !== null && stored.length > acked.length) {
          // The crashed batch reached the disk: it must be there whole.
          expect(stored, context).toEqual([...acked, ...pending]);
          acknowledged.push(pending);
        } else {
          expect(stored, context).toEqual(acked);
        }
        pending = null;
        const controller = new QuorumController({ config: DEFAULT_CONFIG, log: recording, random: new SeededRandom(seed * 100 + round), clock: new ManualClock() });
        if (stored.length === acked.length && acknowledgedImage !== '') expect(JSON.stringify(controller.image.toJSON()), context).toBe(acknowledgedImage);
        return controller;
      };
      let controller = reopen(-1);
      let epoch = await register(controller);
      acknowledgedImage = JSON.stringify(controller.image.toJSON());
      for (let round = 0; round < 10; round++) {
        const crash = random.chance(0.6);
        if (crash) disk.crashAfter(random.int(1, 12));
        try {
          const op = random.int(0, 2);
          const existing = controller.image.topicNames();
          if (op === 0) await controller.createTopics([{ name: `t${round}`, numPartitions: random.int(1, 40), replicationFactor: 1 }]);
          else if (op === 1 || existing.length === 0) await controller.allocateProducerIds(1, epoch);
          else await controller.deleteTopics([existing[random.int(0, existing.length - 1)]!]);
          acknowledgedImage = JSON.stringify(controller.image.toJSON());
        } catch (error) {
          if (!(error instanceof SimulatedCrash)) throw error;
        }
        if (!crash) continue;
        disk.powerLoss(random.chance(0.5) ? 'torn' : 'strict');
        controller = reopen(round);
        epoch = await register(controller);
        acknowledgedImage = JSON.stringify(controller.image.toJSON());
      }
    }
  });
});

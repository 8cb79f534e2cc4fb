import { describe, expect, it } from 'vitest';
import { ClassicGroupCoordinator } from '../../host/coordinator/classic-group-coordinator.js';
import { ManualScheduler } from '../../host/coordinator/scheduler.js';
import { SeededRandom } from '../../host/io/random.js';
import { createLogger } from '../../host/observability/logger.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { newHarness } from './harness.js';

describe('loading __consumer_offsets', () => {
  it('logs one info summary for all partitions and each partition only at debug', async () => {
    const h = newHarness({ offsetsTopicNumPartitions: 50 });
    for (const groupId of ['orders', 'billing']) {
      const errors = await h.coordinator.commitOffsets({
        groupId, memberId: '', groupInstanceId: null, generationId: -1,
        offsets: [0, 1].map((partition) => ({
          topic: 'topic', partition,
          offsetAndMetadata: { offset: 5, leaderEpoch: -1, metadata: '', commitTimestampMs: h.scheduler.nowMs(), expireTimestampMs: null },
        })),
      });
      expect(errors.map((error) => error.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.NONE]);
    }
    h.coordinator.shutdown();

    const lines: { level: string; msg: string; [key: string]: unknown }[] = [];
    const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
    const restarted = new ClassicGroupCoordinator({
      offsetsTopic: h.offsetsTopic,
      time: new ManualScheduler(h.scheduler.nowMs()),
      random: new SeededRandom(1),
      config: { offsetsTopicNumPartitions: 50 },
      logger,
    });
    restarted.startup();
    expect(restarted.loadAllPartitions()).toHaveLength(50);

    const perPartition = lines.filter((line) => line.msg === 'loaded __consumer_offsets partition');
    expect(perPartition).toHaveLength(50);
    expect(perPartition.every((line) => line.level === 'debug')).toBe(true);
    const info = lines.filter((line) => line.level === 'info');
    expect(info).toHaveLength(1);
    expect(info[0]).toMatchObject({ event: 'coordinator.loaded', partitions: 50, groupsLoaded: 2, offsetsLoaded: 4, recordsSkipped: 0 });

    // Everything is owned now: a second call (the topic's creation racing start-up) loads and logs nothing.
    expect(restarted.loadAllPartitions()).toHaveLength(0);
    expect(lines.filter((line) => line.level === 'info')).toHaveLength(1);
    restarted.shutdown();
  });
});

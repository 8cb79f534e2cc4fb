/** Shared set-up for controller tests: a seeded controller over an in-memory metadata log. */
import { ManualClock } from '../../host/io/clock.js';
import { SeededRandom } from '../../host/io/random.js';
import { InMemoryMetadataLog } from '../../host/controller/in-memory-metadata-log.js';
import type { MetadataLog } from '../../host/controller/metadata-log.js';
import { type ControllerConfig, QuorumController } from '../../host/controller/quorum-controller.js';

export const DEFAULT_CONFIG: ControllerConfig = {
  nodeId: 1,
  numPartitions: 1,
  defaultReplicationFactor: 1,
  deleteTopicEnable: true,
};

export interface Fixture {
  controller: QuorumController;
  log: InMemoryMetadataLog;
  random: SeededRandom;
  clock: ManualClock;
}

/** A controller with broker `config.nodeId` registered and unfenced (the embedded single node). */
export async function startController(options: { config?: Partial<ControllerConfig>; log?: MetadataLog; seed?: number; brokers?: number[] } = {}): Promise<Fixture> {
  const log = (options.log ?? new InMemoryMetadataLog()) as InMemoryMetadataLog;
  const random = new SeededRandom(options.seed ?? 42);
  const clock = new ManualClock();
  const config = { ...DEFAULT_CONFIG, ...options.config };
  const controller = new QuorumController({ config, log, random, clock });
  for (const brokerId of options.brokers ?? [config.nodeId]) {
    const result = await controller.registerBroker({
      brokerId,
      endpoints: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9092 + brokerId, securityProtocol: 0 }],
    });
    if (result.errorCode !== 0) throw new Error(`registerBroker ${brokerId}: ${result.errorMessage}`);
  }
  return { controller, log, random, clock };
}

/** A controller over the same log, as after a restart (no re-registration). */
export function restartController(log: MetadataLog, config: Partial<ControllerConfig> = {}, seed = 7): QuorumController {
  return new QuorumController({ config: { ...DEFAULT_CONFIG, ...config }, log, random: new SeededRandom(seed), clock: new ManualClock() });
}

/**
 * What the cluster tests ask real clients about a {@link TestCluster}: kcat's view of the
 * metadata (brokers, controller, partitions with leader, replicas and ISR) and a read of whole
 * partitions from the start, in the shape {@link AckLedger.verify} takes.
 */
import { eventually, KCAT, runOk } from '../compat/processes.js';
import type { ReadRecord } from './ack-ledger.js';

/** One partition as kcat -L -J lists it. */
export interface KcatPartition {
  readonly partition: number;
  readonly leader: number;
  readonly replicas: number[];
  readonly isr: number[];
}

/** kcat -L -J through `bootstrap`, reduced. */
export interface KcatMetadata {
  readonly brokers: number[];
  readonly controllerId: number;
  readonly topics: string[];
  /** topic → partitions in index order. */
  readonly partitions: ReadonlyMap<string, KcatPartition[]>;
}

interface KcatJson {
  brokers: { id: number }[];
  controllerid: number;
  topics: { topic: string; partitions?: { partition: number; leader: number; replicas?: { id: number }[]; isrs?: { id: number }[] }[] }[];
}

/** `kcat -L -J` through `bootstrap` (one or more host:port, comma separated). Throws when kcat fails. */
export async function kcatMetadata(bootstrap: string): Promise<KcatMetadata> {
  const result = await runOk(KCAT, ['-b', bootstrap, '-L', '-J', '-m', '10']);
  const json = JSON.parse(result.stdout) as KcatJson;
  const partitions = new Map<string, KcatPartition[]>();
  for (const topic of json.topics) {
    partitions.set(topic.topic, (topic.partitions ?? []).map((p) => ({
      partition: p.partition,
      leader: p.leader,
      replicas: (p.replicas ?? []).map((r) => r.id).sort(),
      isr: (p.isrs ?? []).map((r) => r.id).sort(),
    })).sort((a, b) => a.partition - b.partition));
  }
  return {
    brokers: json.brokers.map((b) => b.id).sort(),
    controllerId: json.controllerid,
    topics: json.topics.map((t) => t.topic).sort(),
    partitions,
  };
}

/** compat's `eventually` (retry until no throw) for probes that answer undefined while waiting. */
export function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  return eventually(async () => {
    const value = await probe();
    if (value === undefined) throw new Error(`still waiting for ${what}`);
    return value;
  }, timeoutMs);
}

/** Until kcat through `bootstrap` lists `count` brokers and an active controller (a failing kcat counts as not yet). */
export function untilBrokersAndController(bootstrap: string, count: number): Promise<true> {
  return until(`${count} brokers and a controller`, async () => {
    const metadata = await kcatMetadata(bootstrap).catch(() => undefined);
    return metadata !== undefined && metadata.brokers.length === count && metadata.controllerId > 0 ? true : undefined;
  });
}

/** Reads `topic`-`partition` from offset 0 to its end with kcat (values as text). */
export async function kcatReadPartition(bootstrap: string, topic: string, partition: number): Promise<ReadRecord[]> {
  const result = await runOk(KCAT, ['-b', bootstrap, '-C', '-t', topic, '-p', String(partition), '-o', 'beginning', '-e', '-J']);
  return result.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => {
    const record = JSON.parse(line) as { offset: number; payload: string };
    return { offset: record.offset, value: record.payload };
  });
}

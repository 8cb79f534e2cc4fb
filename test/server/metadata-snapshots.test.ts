/**
 * Metadata snapshots in a controller quorum: the controllers write their image as a `.checkpoint`
 * every `metadata.log.max.record.bytes.between.snapshots` and delete the log before it; a node that
 * was down while the log was trimmed catches up from the leader's snapshot (FetchSnapshot), and a
 * node restarted loads its own latest snapshot.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTopic } from '../integration/requests.js';
import { QuorumServers } from './quorum-servers.js';

let cluster: QuorumServers | null = null;

afterEach(async () => {
  await cluster?.close();
  cluster = null;
});

const checkpoints = (dir: string): string[] => readdirSync(join(dir, '__cluster_metadata-0')).filter((name) => name.endsWith('.checkpoint'));
const firstSegmentBase = (dir: string): number =>
  Math.min(...readdirSync(join(dir, '__cluster_metadata-0')).filter((name) => name.endsWith('.log')).map((name) => Number(name.slice(0, 20))));

describe('metadata snapshots', () => {
  it('a node down while the log was trimmed catches up from a snapshot, and a restarted node loads its own', async () => {
    cluster = await QuorumServers.create([{ id: 1 }, { id: 2 }, { id: 3 }], 51, {
      'metadata.log.max.record.bytes.between.snapshots': 2000, 'metadata.log.segment.bytes': 4096,
    });
    await cluster.start();
    const active = await cluster.active();
    const laggardIndex = cluster.servers.findIndex((server) => server !== active);
    const laggardId = cluster.servers[laggardIndex]!.nodeId;
    await cluster.stop(laggardIndex);
    const live = cluster.servers.find((server) => server !== active && server.nodeId !== laggardId)!;
    const client = await cluster.connect(live);
    const names = Array.from({ length: 40 }, (_, i) => `snap-${i}`);
    for (const name of names) expect(await cluster.advanceUntil(createTopic(client, name, 1))).toBe(0);
    // The live controllers wrote snapshots and trimmed the log before them.
    for (const index of cluster.servers.keys()) {
      if (index === laggardIndex) continue;
      expect(checkpoints(cluster.dirOf(index)).length).toBe(1);
      expect(firstSegmentBase(cluster.dirOf(index))).toBeGreaterThan(0);
    }

    const laggard = await cluster.restart(laggardIndex);
    await cluster.until(() => (names.every((name) => laggard.metadataCache.topic(name) !== undefined) ? true : undefined));
    // It took the leader's snapshot: its log now starts at the snapshot, not at 0.
    expect(checkpoints(cluster.dirOf(laggardIndex)).length).toBe(1);
    expect(firstSegmentBase(cluster.dirOf(laggardIndex))).toBeGreaterThan(0);
    expect(laggard.metadataCache.topics().map((t) => t.name).filter((n) => n.startsWith('snap-')).sort()).toEqual([...names].sort());

    // A node restarted loads its latest snapshot, then the log after it.
    const liveIndex = cluster.servers.indexOf(live);
    const restarted = await cluster.restart(liveIndex);
    await cluster.until(() => (names.every((name) => restarted.metadataCache.topic(name) !== undefined) ? true : undefined));
    const extra = await cluster.connect(restarted);
    expect(await cluster.advanceUntil(createTopic(extra, 'after-snapshots', 1))).toBe(0);
    await cluster.until(() => (cluster!.servers.every((server) => server.metadataCache.topic('after-snapshots') !== undefined) ? true : undefined));
  }, 90_000);
});

/**
 * Kafka's `meta.properties` in every log directory (KRaft form, version 1): which cluster and
 * which node the data belongs to.
 *
 * ```
 * #
 * #<date>
 * cluster.id=<22-char base64url uuid>
 * node.id=<node.id>
 * version=1
 * ```
 * At start-up every directory that has the file must agree on cluster.id and carry this node's
 * node.id (Kafka refuses to start otherwise: mixing directories of two clusters or nodes would
 * serve someone else's data). Directories without the file get one, written atomically; a fresh
 * broker picks a random cluster id (Kafka's `kafka-storage format` step, done implicitly).
 */
import * as path from 'node:path';
import { parseServerProperties } from '../config/server-properties.js';
import { type Disk, NodeDisk, readWholeFile, writeFileAtomically } from '../io/disk.js';
import type { RandomSource, Time } from '../io/environment.js';
import { CryptoRandom } from '../io/random.js';
import { SystemTime } from '../io/time.js';

export const META_PROPERTIES_FILE = 'meta.properties';

/** Thrown when the log directories belong to another cluster or node. */
export class InconsistentMetaPropertiesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InconsistentMetaPropertiesError';
  }
}

/**
 * A random cluster id as Kafka's Uuid.randomUuid().toString(): 16 bytes, URL-safe base64, no
 * padding; from `random` (a seeded source makes it the same on every run), default CryptoRandom.
 */
export function randomClusterId(random: RandomSource = new CryptoRandom()): string {
  const bytes = new Uint8Array(16);
  random.fill(bytes);
  return Buffer.from(bytes).toString('base64url');
}

/** Where {@link ensureMetaProperties} reads and writes, and its sources of ids and dates. */
export interface MetaPropertiesOptions {
  /** A fresh cluster id's randomness; default CryptoRandom. */
  random?: RandomSource;
  /** The cluster id to write when no directory has one (instead of a random one), e.g. {@link clusterIdForVoters}. */
  initialClusterId?: string;
  /** Default NodeDisk. */
  disk?: Disk;
  /** The date written in the file's comment line; default the system clock. */
  time?: Pick<Time, 'nowMs'>;
}

/**
 * The cluster id the nodes of a multi-voter quorum take when they start on empty log.dirs: derived
 * from the voter ids (two 64-bit FNV-1a hashes of the sorted ids, 16 bytes, base64url: Kafka's
 * 22-character form), so every node configured with the same voters agrees without a
 * `kafka-storage format` step. Nodes whose meta.properties already hold a cluster id keep it; a
 * node of another cluster is refused by the quorum (INCONSISTENT_CLUSTER_ID, 104).
 */
export function clusterIdForVoters(voterIds: readonly number[]): string {
  const text = `tributary-kraft-voters:${[...new Set(voterIds)].sort((a, b) => a - b).join(',')}`;
  const out = Buffer.alloc(16);
  for (const [half, basis] of [[0, 0xcbf29ce484222325n], [1, 0x84222325cbf29ce4n]] as const) {
    let hash: bigint = basis;
    for (let i = 0; i < text.length; i++) {
      hash ^= BigInt(text.charCodeAt(i));
      hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
    }
    out.writeBigUInt64BE(hash, half * 8);
  }
  return out.toString('base64url');
}

/**
 * Reads (and completes) the meta.properties of `logDirs`; returns the cluster id. A fresh cluster
 * id comes from `options.random`.
 * @throws InconsistentMetaPropertiesError for another node.id or differing cluster ids
 * @throws DiskError when a directory cannot be created, read or written
 */
export function ensureMetaProperties(
  logDirs: readonly string[],
  nodeId: number,
  options: MetaPropertiesOptions = {},
): { clusterId: string } {
  const disk = options.disk ?? new NodeDisk();
  let clusterId: string | null = null;
  const missing: string[] = [];
  for (const dir of logDirs) {
    const file = path.join(dir, META_PROPERTIES_FILE);
    if (!disk.exists(file)) {
      missing.push(dir);
      continue;
    }
    const properties = parseServerProperties(readWholeFile(disk, file).toString('utf8'));
    const storedNode = properties.get('node.id') ?? properties.get('broker.id');
    if (storedNode !== undefined && Number(storedNode) !== nodeId) {
      throw new InconsistentMetaPropertiesError(
        `${file} belongs to node.id ${storedNode}, but this broker is node.id ${nodeId}: use that node.id or another log.dirs`);
    }
    const stored = properties.get('cluster.id');
    if (stored === undefined || stored === '') continue;
    if (clusterId !== null && stored !== clusterId) {
      throw new InconsistentMetaPropertiesError(
        `${file} has cluster.id ${stored} but another log directory has ${clusterId}: the log.dirs belong to different clusters`);
    }
    clusterId = stored;
  }
  clusterId ??= options.initialClusterId ?? randomClusterId(options.random);
  const writtenMs = (options.time ?? new SystemTime()).nowMs();
  for (const dir of missing) {
    disk.mkdir(dir);
    writeFileAtomically(disk, path.join(dir, META_PROPERTIES_FILE),
      Buffer.from(`#\n#${new Date(writtenMs).toString()}\ncluster.id=${clusterId}\nnode.id=${nodeId}\nversion=1\n`));
  }
  return { clusterId };
}

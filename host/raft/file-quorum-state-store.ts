/**
 * {@link FileQuorumStateStore}: a voter's election state in Kafka's `quorum-state` file, which
 * Kafka keeps in the metadata partition's directory (`<metadata.log.dir>/__cluster_metadata-0/`).
 *
 * Format (Kafka's FileQuorumStateStore): one line of JSON, the `QuorumStateData` schema
 * (../shared/kafka-protocol/metadata-records/QuorumStateData.json) as Kafka's JSON converter
 * writes it, plus `data_version`. We write version 1 (what Kafka 3.9+/4 writes):
 * ```
 * {"leaderId":2,"leaderEpoch":7,"votedId":2,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}
 * ```
 * and read versions 0 and 1 (version 0 also has `clusterId`, `appliedOffset`, `currentVoters`,
 * which the election state does not use). -1 means "none" for leaderId and votedId.
 *
 * Writes go to `quorum-state.tmp`, are fsynced, renamed over `quorum-state` and the directory is
 * fsynced, all before {@link FileQuorumStateStore.write} returns: after a crash the file holds the
 * last state written or the one before, never a mix.
 */
import * as path from 'node:path';
import { type Disk, DiskError, isDiskError, readWholeFile, writeFileAtomically } from '../io/disk.js';
import type { ElectionState, QuorumStateStore } from './quorum-state-store.js';

/** Kafka's file name. */
export const QUORUM_STATE_FILE = 'quorum-state';
/** The QuorumStateData version written (`data_version`). */
export const QUORUM_STATE_DATA_VERSION = 1;
/** Kafka's Uuid.ZERO_UUID as its JSON shows it (base64url of 16 zero bytes): no directory id. */
const NO_DIRECTORY_ID = 'AAAAAAAAAAAAAAAAAAAAAA';

/** The file content for `state` (QuorumStateData version 1 JSON, Kafka's field order). */
export function quorumStateJson(state: ElectionState): string {
  return JSON.stringify({
    leaderId: state.leaderId,
    leaderEpoch: state.epoch,
    votedId: state.votedId,
    votedDirectoryId: NO_DIRECTORY_ID,
    data_version: QUORUM_STATE_DATA_VERSION,
  });
}

/**
 * Parses a `quorum-state` file's text.
 * @throws DiskError `EBADMSG` naming `filePath` for anything that is not QuorumStateData JSON of
 *   version 0 or 1 with integer leaderId, leaderEpoch and votedId (>= -1, epoch >= 0): the file
 *   is written atomically, so a bad one was damaged outside the node. Never reset silently: a
 *   voter that forgot its vote could vote twice in one epoch.
 */
export function parseQuorumState(text: string, filePath: string): ElectionState {
  const corrupt = (detail: string): DiskError => new DiskError('EBADMSG', 'read', filePath, `corrupt quorum state: ${detail}`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw corrupt(`not JSON (${(error as Error).message})`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw corrupt('not a JSON object');
  const fields = data as Record<string, unknown>;
  const version = fields.data_version;
  if (version !== 0 && version !== 1) throw corrupt(`data_version ${JSON.stringify(version)} is not 0 or 1`);
  const integer = (name: string, min: number): number => {
    const value = fields[name];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > 0x7fffffff) {
      throw corrupt(`${name} ${JSON.stringify(value)} is not an int32 >= ${min}`);
    }
    return value;
  };
  return { epoch: integer('leaderEpoch', 0), leaderId: integer('leaderId', -1), votedId: integer('votedId', -1) };
}

/** The `quorum-state` file of one node, read once at open and rewritten on every write. */
export class FileQuorumStateStore implements QuorumStateStore {
  readonly filePath: string;
  private state: ElectionState | undefined;

  private constructor(private readonly disk: Disk, filePath: string, state: ElectionState | undefined) {
    this.filePath = filePath;
    this.state = state;
  }

  /**
   * Opens the store in `dir` (Kafka: the `__cluster_metadata-0` directory; created when missing)
   * and reads the file when it exists.
   * @throws DiskError on an I/O failure, or `EBADMSG` naming the file when it is corrupt (see
   *   {@link parseQuorumState})
   */
  static open(disk: Disk, dir: string): FileQuorumStateStore {
    disk.mkdir(dir);
    const filePath = path.join(dir, QUORUM_STATE_FILE);
    let state: ElectionState | undefined;
    try {
      state = parseQuorumState(readWholeFile(disk, filePath).toString('utf8'), filePath);
    } catch (error) {
      if (!isDiskError(error) || error.code !== 'ENOENT') throw error;
    }
    return new FileQuorumStateStore(disk, filePath, state);
  }

  /** The last state written (or read at open); undefined on a node's first start. */
  read(): ElectionState | undefined {
    return this.state;
  }

  /**
   * Replaces the file with `state`, durably, before returning (see the file header).
   * @throws DiskError when the write fails; the state in memory is then unchanged
   */
  write(state: ElectionState): void {
    const copy = { epoch: state.epoch, leaderId: state.leaderId, votedId: state.votedId };
    writeFileAtomically(this.disk, this.filePath, Buffer.from(quorumStateJson(copy), 'utf8'));
    this.state = copy;
  }
}

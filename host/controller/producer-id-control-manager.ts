/**
 * ProducerIdControlManager (Kafka's name): hands out blocks of producer ids to brokers
 * (AllocateProducerIds). Each block is persisted by a ProducerIdsRecord (the next free id) before
 * it is handed out, so ids never repeat, also across restarts. A state machine without I/O;
 * {@link ProducerIdControlManager.replay} applies ProducerIdsRecords.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { ClusterControlManager } from './cluster-control-manager.js';
import { type ApiError, type ControllerResult, NONE, answer, fail } from './controller-result.js';
import type { MetadataImage } from './metadata-image.js';
import { type MetadataRecord, metadataRecord } from './metadata-records.js';

/** Producer ids per AllocateProducerIds block (Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE). */
export const PRODUCER_ID_BLOCK_SIZE = 1000;
/** The largest id handed out: ids stay exact JavaScript integers (Kafka's limit is Long.MAX_VALUE). */
const LARGEST_PRODUCER_ID = Number.MAX_SAFE_INTEGER;

/** A block of producer ids (Kafka's AllocateProducerIds response). */
export interface ProducerIdBlockResult extends ApiError {
  /** First id of the block; -1 on error. */
  readonly producerIdStart: number;
  /** Ids in the block (PRODUCER_ID_BLOCK_SIZE); 0 on error. */
  readonly producerIdLen: number;
}

export class ProducerIdControlManager {
  /**
   * @param latest the controller's latest state (appended records included)
   * @param cluster checks the asking broker's epoch
   */
  constructor(private readonly latest: () => MetadataImage, private readonly cluster: ClusterControlManager) {}

  /** Applies a ProducerIdsRecord to the latest state. */
  replay(record: MetadataRecord): void {
    this.latest().replay(record);
  }

  /**
   * Kafka's AllocateProducerIds: the next block of PRODUCER_ID_BLOCK_SIZE (1000) ids for a
   * broker. Errors: STALE_BROKER_EPOCH (77) when the broker is not registered with that epoch,
   * UNKNOWN_SERVER_ERROR (-1) when ids are exhausted.
   */
  allocateProducerIds(brokerId: number, brokerEpoch: number): ControllerResult<ProducerIdBlockResult> {
    const failed = (r: ApiError): ControllerResult<ProducerIdBlockResult> => answer({ ...r, producerIdStart: -1, producerIdLen: 0 });
    const check = this.cluster.checkBrokerEpoch(brokerId, brokerEpoch);
    if (check !== null) return failed(check);
    const start = this.latest().nextProducerId;
    if (start > LARGEST_PRODUCER_ID - PRODUCER_ID_BLOCK_SIZE) return failed(fail(ErrorCode.UNKNOWN_SERVER_ERROR, 'Exhausted all producerIds.'));
    return {
      records: [metadataRecord('ProducerIdsRecord', 0, { brokerId, brokerEpoch, nextProducerId: start + PRODUCER_ID_BLOCK_SIZE })],
      response: { ...NONE, producerIdStart: start, producerIdLen: PRODUCER_ID_BLOCK_SIZE },
    };
  }
}

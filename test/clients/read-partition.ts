/**
 * Reads every record of a partition with raw Fetch requests (no consumer involved), so producer
 * tests can check exactly what the broker stored.
 */
import { Cluster } from '../../host/clients/cluster.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { iterateBatches, readBatch, type KafkaRecord, type RecordBatchHeader } from '../../host/record/records.js';

export async function readPartition(bootstrap: string, topic: string, partition: number): Promise<{ header: RecordBatchHeader; records: KafkaRecord[] }[]> {
  const cluster = new Cluster({ bootstrapServers: [bootstrap] });
  try {
    await cluster.topicMetadata([topic]);
    const connection = await cluster.connectionTo(cluster.leaderFor(topic, partition));
    const batches: { header: RecordBatchHeader; records: KafkaRecord[] }[] = [];
    let offset = 0;
    for (;;) {
      const response = await connection.request(ApiKey.Fetch, {
        replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 64 * 1024 * 1024, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
        topics: [{ topic, partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: offset, logStartOffset: -1, partitionMaxBytes: 16 * 1024 * 1024 }] }],
        forgottenTopicsData: [], rackId: '',
      });
      const data = response.responses[0]!.partitions[0]!;
      if (data.errorCode !== 0) throw new Error(`fetch error ${data.errorCode}`);
      let progressed = false;
      for (const bytes of iterateBatches(data.records ?? new Uint8Array(0))) {
        const batch = readBatch(bytes);
        if (batch.header.lastOffset < offset) continue;
        batches.push(batch);
        offset = batch.header.lastOffset + 1;
        progressed = true;
      }
      if (!progressed) return batches;
    }
  } finally {
    await cluster.close();
  }
}

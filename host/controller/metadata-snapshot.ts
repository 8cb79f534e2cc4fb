/**
 * A MetadataImage as the records of a metadata snapshot (Kafka's MetadataImage.write into a
 * `.checkpoint`): replayed into an empty image, they give an image equal to the one written
 * (MetadataImage.toJSON equal). Order: features, brokers (their registration with its epoch, fenced
 * and controlled-shutdown state as they are), topics with their partitions, configs, then the
 * producer id counter, so every record refers only to what came before it.
 *
 * The frame around them (SnapshotHeader/SnapshotFooter control records, the `.checkpoint` file,
 * FetchSnapshot by byte position) is the Raft layer's (host/raft/snapshot.ts, snapshot-files.ts).
 */
import { RECORD_VERSION } from './controller-result.js';
import type { MetadataImage } from './metadata-image.js';
import { metadataRecord, type MetadataRecord } from './metadata-records.js';

/** The records that rebuild `image` from an empty one (order in the file header). */
export function imageRecords(image: MetadataImage): MetadataRecord[] {
  const records: MetadataRecord[] = [];
  for (const [name, featureLevel] of image.featureLevelEntries()) {
    records.push(metadataRecord('FeatureLevelRecord', 0, { name, featureLevel }));
  }
  for (const broker of image.brokers()) {
    records.push(metadataRecord('RegisterBrokerRecord', RECORD_VERSION.RegisterBrokerRecord, {
      brokerId: broker.brokerId,
      isMigratingZkBroker: false,
      incarnationId: broker.incarnationId,
      brokerEpoch: broker.brokerEpoch,
      endPoints: broker.endpoints.map((e) => ({ name: e.name, host: e.host, port: e.port, securityProtocol: e.securityProtocol })),
      features: [],
      rack: broker.rack,
      fenced: broker.fenced,
      inControlledShutdown: broker.inControlledShutdown,
      logDirs: [],
    }));
  }
  for (const topic of image.topics()) {
    records.push(metadataRecord('TopicRecord', 0, { name: topic.name, topicId: topic.topicId }));
    for (const p of topic.partitions) {
      records.push(metadataRecord('PartitionRecord', RECORD_VERSION.PartitionRecord, {
        partitionId: p.partitionId, topicId: topic.topicId, replicas: [...p.replicas], isr: [...p.isr],
        removingReplicas: [...p.removingReplicas], addingReplicas: [...p.addingReplicas], leader: p.leader,
        leaderRecoveryState: p.leaderRecoveryState, leaderEpoch: p.leaderEpoch, partitionEpoch: p.partitionEpoch,
        directories: [], eligibleLeaderReplicas: null, lastKnownElr: null,
      }));
    }
  }
  for (const { resource, configs } of image.configResources()) {
    for (const [name, value] of configs) {
      records.push(metadataRecord('ConfigRecord', 0, { resourceType: resource.type, resourceName: resource.name, name, value }));
    }
  }
  if (image.nextProducerId > 0) {
    records.push(metadataRecord('ProducerIdsRecord', 0, { brokerId: -1, brokerEpoch: -1, nextProducerId: image.nextProducerId }));
  }
  return records;
}

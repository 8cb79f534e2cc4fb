/**
 * The controller's listeners (the embedded broker's view of metadata changes) and how one
 * committed batch becomes their callbacks: {@link BatchChanges} notes what each record is about
 * to change in the published image, then tells the listeners once the whole batch is replayed.
 */
import {
  type BrokerRegistration,
  type ConfigResource,
  type MetadataImage,
  type TopicImage,
} from './metadata-image.js';
import { ConfigResourceType, type MetadataRecord } from './metadata-records.js';

/** What changed in the partitions of an existing topic. */
export interface PartitionsChange {
  /** The partition count before (new partitions are ids previousPartitionCount .. count-1). */
  readonly previousPartitionCount: number;
  /** Partitions added or changed (leader, ISR, replicas), ascending. */
  readonly changedPartitionIds: readonly number[];
}

/**
 * Hears every committed change, after the published image has it: when the metadata log reports
 * the batch committed (with the single-node logs, inside the append of the operation that made
 * it), before that operation is answered. Deletions first, then creations, partition changes,
 * config changes, broker changes. A listener must not call back into the controller's writing
 * methods. An exception from a listener is a bug: the others still run, then the first one is
 * rethrown (the change itself is committed).
 */
export interface MetadataListener {
  /** A topic and its partitions were created (its configs are in the image already). */
  onTopicCreated?(topic: TopicImage, image: MetadataImage): void;
  /** A topic was deleted; `topic` is how it was just before. Its configs are gone too. */
  onTopicDeleted?(topic: TopicImage, image: MetadataImage): void;
  /** Partitions were added to an existing topic, or their leader/ISR/replicas changed. */
  onPartitionsChanged?(topic: TopicImage, change: PartitionsChange, image: MetadataImage): void;
  /** The overrides of a topic (not a just-created one) or a broker resource changed. */
  onConfigChanged?(resource: ConfigResource, configs: ReadonlyMap<string, string>, image: MetadataImage): void;
  /** A broker registered, was fenced/unfenced, or unregistered (`registration` undefined). */
  onBrokerChanged?(brokerId: number, registration: BrokerRegistration | undefined, image: MetadataImage): void;
}

/** What one committed batch changed, for the listeners. */
export class BatchChanges {
  private readonly deleted: TopicImage[] = [];
  private readonly created = new Set<string>();
  /** topic id -> previous partition count and changed ids */
  private readonly partitions = new Map<string, { previousPartitionCount: number; changed: Set<number> }>();
  private readonly configs = new Map<string, ConfigResource>();
  private readonly brokers = new Set<number>();

  /** Notes what `record` changes; `image` is the published image just before it is replayed. */
  note(record: MetadataRecord, image: MetadataImage): void {
    switch (record.type) {
      case 'TopicRecord':
        this.created.add(record.data.topicId);
        return;
      case 'PartitionRecord':
      case 'PartitionChangeRecord': {
        const topicId = record.data.topicId;
        if (this.created.has(topicId)) return;
        let entry = this.partitions.get(topicId);
        if (entry === undefined) {
          entry = { previousPartitionCount: image.topicById(topicId)?.partitions.length ?? 0, changed: new Set() };
          this.partitions.set(topicId, entry);
        }
        entry.changed.add(record.data.partitionId);
        return;
      }
      case 'RemoveTopicRecord': {
        const topicId = record.data.topicId;
        const before = image.topicById(topicId);
        if (before !== undefined && !this.created.delete(topicId)) this.deleted.push(before);
        this.partitions.delete(topicId);
        if (before !== undefined) this.configs.delete(`${ConfigResourceType.TOPIC}:${before.name}`);
        return;
      }
      case 'ConfigRecord': {
        const { resourceType, resourceName } = record.data;
        if (resourceType === ConfigResourceType.TOPIC) {
          // A just-created topic's configs come with onTopicCreated (its TopicRecord is replayed already).
          const topicId = image.topic(resourceName)?.topicId;
          if (topicId !== undefined && this.created.has(topicId)) return;
        }
        this.configs.set(`${resourceType}:${resourceName}`, { type: resourceType, name: resourceName });
        return;
      }
      case 'RegisterBrokerRecord':
      case 'UnregisterBrokerRecord':
      case 'BrokerRegistrationChangeRecord':
        this.brokers.add(record.data.brokerId);
        return;
      case 'FenceBrokerRecord':
      case 'UnfenceBrokerRecord':
        this.brokers.add(record.data.id);
        return;
      default:
        return;
    }
  }

  /**
   * What replacing the image `before` by `after` changed (a metadata snapshot loaded over what was
   * replayed), told as one batch's changes: topics gone and new (by topic id), partitions that
   * differ, config resources whose overrides differ (not those of new topics), brokers that differ.
   */
  static between(before: MetadataImage, after: MetadataImage): BatchChanges {
    const changes = new BatchChanges();
    const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
    for (const topic of before.topics()) if (after.topicById(topic.topicId) === undefined) changes.deleted.push(topic);
    for (const topic of after.topics()) {
      const old = before.topicById(topic.topicId);
      if (old === undefined) {
        changes.created.add(topic.topicId);
        continue;
      }
      const changed = new Set(topic.partitions.filter((p, i) => !same(p, old.partitions[i])).map((p) => p.partitionId));
      if (changed.size > 0) changes.partitions.set(topic.topicId, { previousPartitionCount: old.partitions.length, changed });
    }
    for (const { resource } of [...before.configResources(), ...after.configResources()]) {
      const createdTopic = resource.type === ConfigResourceType.TOPIC && changes.created.has(after.topic(resource.name)?.topicId ?? '');
      const key = `${resource.type}:${resource.name}`;
      if (createdTopic || changes.configs.has(key)) continue;
      if (!same([...before.resourceConfigs(resource)], [...after.resourceConfigs(resource)])) changes.configs.set(key, resource);
    }
    const brokerIds = new Set([...before.brokers(), ...after.brokers()].map((b) => b.brokerId));
    for (const id of brokerIds) if (!same(before.broker(id), after.broker(id))) changes.brokers.add(id);
    return changes;
  }

  /**
   * Tells `listeners` what the batch changed; `image` is the published image with the whole batch.
   * @throws the first listener exception, after every listener was called
   */
  publish(listeners: readonly MetadataListener[], image: MetadataImage): void {
    if (listeners.length === 0) return;
    const calls: ((l: MetadataListener) => void)[] = [];
    for (const topic of this.deleted) calls.push((l) => l.onTopicDeleted?.(topic, image));
    for (const topicId of this.created) {
      const topic = image.topicById(topicId);
      if (topic !== undefined) calls.push((l) => l.onTopicCreated?.(topic, image));
    }
    for (const [topicId, entry] of this.partitions) {
      const topic = image.topicById(topicId);
      if (topic === undefined) continue;
      const change: PartitionsChange = {
        previousPartitionCount: entry.previousPartitionCount,
        changedPartitionIds: [...entry.changed].sort((a, b) => a - b),
      };
      calls.push((l) => l.onPartitionsChanged?.(topic, change, image));
    }
    for (const resource of this.configs.values()) {
      if (resource.type === ConfigResourceType.TOPIC && image.topic(resource.name) === undefined) continue;
      const configs = image.resourceConfigs(resource);
      calls.push((l) => l.onConfigChanged?.(resource, configs, image));
    }
    for (const brokerId of this.brokers) {
      const registration = image.broker(brokerId);
      calls.push((l) => l.onBrokerChanged?.(brokerId, registration, image));
    }
    let firstError: unknown = null;
    for (const call of calls) {
      for (const listener of [...listeners]) {
        try {
          call(listener);
        } catch (error) {
          firstError ??= error;
        }
      }
    }
    if (firstError !== null) throw firstError;
  }
}

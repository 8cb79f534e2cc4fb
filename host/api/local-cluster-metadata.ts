/**
 * A single-node {@link ClusterMetadata} kept in one JSON file (`tributary-metadata.json` in the
 * first log directory), written atomically (temp file, fsync, rename, directory fsync) on every
 * change. It is the stand-in for the controller's replicated metadata log: the broker uses it
 * where no QuorumController is wired. Every partition is led by this node with leader epoch 0.
 *
 * Producer ids are handed out from blocks of {@link PRODUCER_ID_BLOCK_SIZE}: the end of the
 * current block is persisted before any id in it is used, so ids are never reused after a crash
 * (Kafka's ProducerIdManager does the same with the controller).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type {
  ClusterMetadata,
  CreateTopicSpec,
  MetadataResult,
  PartitionState,
  TopicChange,
  TopicState,
} from './cluster-metadata.js';
import { INTERNAL_TOPIC_NAMES } from './topic-names.js';

export const LOCAL_METADATA_FILE = 'tributary-metadata.json';
export const PRODUCER_ID_BLOCK_SIZE = 1000;

interface StoredTopic {
  name: string;
  topicId: string;
  partitions: number;
  configs: Record<string, string>;
}

interface StoredState {
  version: 1;
  clusterId: string;
  /** First producer id not yet reserved. */
  producerIdBlockEnd: number;
  topics: StoredTopic[];
}

export interface LocalClusterMetadataOptions {
  /** Directory holding the metadata file (created when missing). */
  dir: string;
  nodeId: number;
  /** Called after every committed change, synchronously, in commit order. */
  onChange?: (change: TopicChange) => void;
}

const OK: MetadataResult = Object.freeze({ errorCode: ErrorCode.NONE, errorMessage: null });

export class LocalClusterMetadata implements ClusterMetadata {
  readonly clusterId: string;
  readonly controllerId: number;
  private readonly file: string;
  private readonly nodeId: number;
  private readonly topicsByName = new Map<string, TopicState>();
  private producerIdBlockEnd: number;
  private nextProducerId: number;
  onChange: ((change: TopicChange) => void) | undefined;

  constructor(options: LocalClusterMetadataOptions) {
    this.nodeId = options.nodeId;
    this.controllerId = options.nodeId;
    this.onChange = options.onChange;
    mkdirSync(options.dir, { recursive: true });
    this.file = path.join(options.dir, LOCAL_METADATA_FILE);
    let stored: StoredState | null = null;
    if (existsSync(this.file)) stored = JSON.parse(readFileSync(this.file, 'utf8')) as StoredState;
    this.clusterId = stored?.clusterId ?? newUuid();
    this.producerIdBlockEnd = stored?.producerIdBlockEnd ?? 0;
    this.nextProducerId = this.producerIdBlockEnd;
    for (const topic of stored?.topics ?? []) this.topicsByName.set(topic.name, this.toState(topic));
    if (stored === null) this.persist();
  }

  topic(name: string): TopicState | undefined {
    return this.topicsByName.get(name);
  }

  topics(): TopicState[] {
    return [...this.topicsByName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  createTopic(spec: CreateTopicSpec, validateOnly: boolean): Promise<MetadataResult> {
    if (this.topicsByName.has(spec.name)) {
      return Promise.resolve({ errorCode: ErrorCode.TOPIC_ALREADY_EXISTS, errorMessage: `Topic '${spec.name}' already exists.` });
    }
    if (spec.numPartitions < 1) {
      return Promise.resolve({ errorCode: ErrorCode.INVALID_PARTITIONS, errorMessage: 'Number of partitions must be larger than 0.' });
    }
    if (spec.replicationFactor !== 1) {
      return Promise.resolve({
        errorCode: ErrorCode.INVALID_REPLICATION_FACTOR,
        errorMessage: `Replication factor: ${spec.replicationFactor} larger than available brokers: 1.`,
      });
    }
    if (validateOnly) return Promise.resolve(OK);
    const after = this.toState({ name: spec.name, topicId: randomBytes(16).toString('hex'), partitions: spec.numPartitions, configs: { ...spec.configs } });
    this.commit(spec.name, null, after);
    return Promise.resolve(OK);
  }

  deleteTopic(name: string): Promise<MetadataResult> {
    const before = this.topicsByName.get(name);
    if (before === undefined) return Promise.resolve(unknownTopic(name));
    this.commit(name, before, null);
    return Promise.resolve(OK);
  }

  createPartitions(name: string, totalCount: number, validateOnly: boolean): Promise<MetadataResult> {
    const before = this.topicsByName.get(name);
    if (before === undefined) return Promise.resolve(unknownTopic(name));
    if (totalCount <= before.partitions.length) {
      return Promise.resolve({
        errorCode: ErrorCode.INVALID_PARTITIONS,
        errorMessage: `Topic currently has ${before.partitions.length} partitions, which is higher than the requested ${totalCount}.`,
      });
    }
    if (validateOnly) return Promise.resolve(OK);
    this.commit(name, before, this.toState({ ...this.stored(before), partitions: totalCount }));
    return Promise.resolve(OK);
  }

  alterTopicConfigs(name: string, overrides: Readonly<Record<string, string>>, validateOnly: boolean): Promise<MetadataResult> {
    const before = this.topicsByName.get(name);
    if (before === undefined) return Promise.resolve(unknownTopic(name));
    if (validateOnly) return Promise.resolve(OK);
    this.commit(name, before, this.toState({ ...this.stored(before), configs: { ...overrides } }));
    return Promise.resolve(OK);
  }

  allocateProducerId(): Promise<{ errorCode: number; producerId: number }> {
    if (this.nextProducerId >= this.producerIdBlockEnd) {
      this.producerIdBlockEnd = this.nextProducerId + PRODUCER_ID_BLOCK_SIZE;
      this.persist();
    }
    return Promise.resolve({ errorCode: ErrorCode.NONE, producerId: this.nextProducerId++ });
  }

  private commit(name: string, before: TopicState | null, after: TopicState | null): void {
    if (after === null) this.topicsByName.delete(name);
    else this.topicsByName.set(name, after);
    this.persist();
    this.onChange?.({ name, before, after });
  }

  private toState(topic: StoredTopic): TopicState {
    const partitions: PartitionState[] = [];
    for (let i = 0; i < topic.partitions; i++) {
      partitions.push({ partition: i, leaderId: this.nodeId, leaderEpoch: 0, replicas: [this.nodeId], isr: [this.nodeId] });
    }
    return {
      name: topic.name,
      topicId: topic.topicId,
      isInternal: INTERNAL_TOPIC_NAMES.has(topic.name),
      partitions,
      configs: new Map(Object.entries(topic.configs)),
    };
  }

  private stored(topic: TopicState): StoredTopic {
    return { name: topic.name, topicId: topic.topicId, partitions: topic.partitions.length, configs: Object.fromEntries(topic.configs) };
  }

  private persist(): void {
    const state: StoredState = {
      version: 1,
      clusterId: this.clusterId,
      producerIdBlockEnd: this.producerIdBlockEnd,
      topics: [...this.topicsByName.values()].map((topic) => this.stored(topic)),
    };
    const temporary = `${this.file}.tmp`;
    const fd = openSync(temporary, 'w');
    try {
      writeSync(fd, JSON.stringify(state));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, this.file);
    const dirFd = openSync(path.dirname(this.file), 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  }
}

function unknownTopic(name: string): MetadataResult {
  return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `This server does not host topic ${name}.` };
}

/** A random cluster id as Kafka writes one: 16 random bytes in URL-safe base64 without padding. */
export function newUuid(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * The Tributary client library: Producer, Consumer, Admin and the transport seam. Everything here
 * is free of Node built-ins except the TCP transport, which is loaded lazily on Node (see
 * transport/default-transport.ts); a browser build registers a WebSocket transport instead.
 */
export { Admin, ConfigResourceType, ConfigSource } from './admin.js';
export type {
  AdminOptions, ClusterDescription, CommittedOffset, ConfigEntry, ConfigResource, GroupDescription, GroupMemberDescription,
  ListedGroup, NewTopic, OffsetSpec, PartitionDescription, PartitionLag, PartitionOffset, TopicDescription,
} from './admin.js';
export { Producer, defaultSerializer } from './producer.js';
export type {
  CompressionName, CustomPartitioner, MessageHeaders, PartitionerArgs, ProducerInterceptor, ProducerMessage, ProducerOptions,
  ProducerRecord, RecordMetadata, Serializer, ConsumerGroupMetadata, TransactionOffset,
} from './producer.js';
export { Consumer, CommitFailedError } from './consumer.js';
export type {
  AssignorName, ConsumerOptions, ConsumerRecord, Deserializer, EachBatchPayload, EachMessagePayload, RebalanceListener,
  RunOptions, TopicPartition,
} from './consumer.js';
export { BUILT_IN_ASSIGNORS, cooperativeStickyAssignor, rangeAssignor, roundRobinAssignor, stickyAssignor } from './consumer/assignors.js';
export type { Assignor, AssignorMember } from './consumer/assignors.js';
export type { Subscription, Assignment, TopicPartitions } from './consumer/consumer-protocol.js';
export { Cluster, CoordinatorType } from './cluster.js';
export type { BrokerInfo, ClusterOptions, PartitionInfo, TopicInfo } from './cluster.js';
export { Connection } from './transport/connection.js';
export type { ConnectionOptions, RequestOptions } from './transport/connection.js';
export { CLIENT_APIS } from './transport/client-apis.js';
export type { ApiRequest, ApiResponse, ClientApiKey } from './transport/client-apis.js';
export { setDefaultTransportFactory } from './transport/default-transport.js';
export { formatBrokerAddress, parseBrokerAddress } from './transport/transport.js';
export type { BrokerAddress, Transport, TransportFactory, TransportHandlers, TransportOptions } from './transport/transport.js';
export { murmur2, murmur2Partition, toPositive } from './producer/murmur2.js';
export {
  ClientClosedError, ConnectionError, isRetriableError, KafkaError, KafkaTimeoutError, ProducerFencedError, ProtocolDecodeError,
  TransactionStateError, UnsupportedVersionError,
} from './errors.js';

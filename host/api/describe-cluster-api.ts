/**
 * DescribeCluster (api key 60), v0-1 (KIP-700): the cluster id, the controller id and the live
 * brokers, what Kafka's AdminClient.describeCluster sends (instead of Metadata) since 2.8.
 *
 * ```
 * DescribeCluster Request (Version: 0-1) => include_cluster_authorized_operations endpoint_type (v1+) (flexible)
 * DescribeCluster Response (Version: 0-1) => throttle_time_ms error_code error_message endpoint_type (v1+)
 *   cluster_id controller_id [brokers] cluster_authorized_operations
 *   brokers => broker_id host port rack
 * ```
 * Version notes that matter: v1 adds endpoint_type (KIP-919): 1 brokers; 2 controllers is answered
 * only by controllers, so a broker answers UNSUPPORTED_ENDPOINT_TYPE (115), as Kafka's do. The
 * brokers are the unfenced ones, with the endpoints of the listener the request came in on (as
 * Metadata); the controller id is Metadata's (a live broker when the controllers are separate).
 * No ACLs: cluster_authorized_operations is -2^31 (not requested or unknown).
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeDescribeClusterRequest,
  encodeDescribeClusterResponse,
  type DescribeClusterRequest,
  type DescribeClusterResponseInit,
} from '../protocol/generated/describe-cluster.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { defineApi } from './api-definition.js';

const BROKER_ENDPOINTS = 1;
const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

export const describeClusterApi = defineApi<DescribeClusterRequest, DescribeClusterResponseInit>({
  apiKey: ApiKey.DescribeCluster,
  name: 'DescribeCluster',
  minVersion: 0,
  maxVersion: 1,
  decode: decodeDescribeClusterRequest,
  encode: encodeDescribeClusterResponse,
  handle(request, context) {
    const { broker } = context;
    const base = { throttleTimeMs: 0, endpointType: request.endpointType, clusterId: broker.metadata.clusterId, clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
    if (request.endpointType !== BROKER_ENDPOINTS) {
      return { ...base, errorCode: ErrorCode.UNSUPPORTED_ENDPOINT_TYPE, errorMessage: `a broker describes only endpoint type 1 (brokers), not ${request.endpointType}`, controllerId: -1, brokers: [] };
    }
    return {
      ...base,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      controllerId: broker.metadata.controllerId,
      brokers: broker.brokers(context.listenerName).map((b) => ({ brokerId: b.nodeId, host: b.host, port: b.port, rack: b.rack })),
    };
  },
  errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode, clusterId: '', brokers: [] }),
});

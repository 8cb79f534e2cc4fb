/**
 * ApiVersions (api key 18), v0-4: what every client asks first on every connection.
 *
 * ```
 * ApiVersions Request (Version: 0-2) =>                                   (empty body)
 * ApiVersions Request (Version: 3-4) => client_software_name client_software_version TAG_BUFFER
 *   client_software_name => COMPACT_STRING
 *   client_software_version => COMPACT_STRING
 * ApiVersions Response (Version: 0) => error_code [api_keys]
 *   api_keys => api_key min_version max_version   (INT16 each)
 * ApiVersions Response (Version: 1-2) => error_code [api_keys] throttle_time_ms
 * ApiVersions Response (Version: 3-4) => ... flexible, tagged SupportedFeatures etc. (none sent)
 * ```
 * Version notes that matter:
 * - The response header is always v0 (no tag byte), even for flexible v3/v4 (KIP-511): librdkafka
 *   and @platformatic/kafka read it that way.
 * - A version above ours is answered by the dispatcher with UNSUPPORTED_VERSION (35) and a
 *   v0-shaped body (see request-dispatcher.ts).
 * - v3+ (KIP-511): the client software name and version must match Kafka's pattern
 *   `[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?`, else INVALID_REQUEST (42); librdkafka then
 *   retries with v0.
 * - v4 is v3 on the wire as long as no feature tags are sent; Java 3.9 sends v4.
 * - kafka-python sends only v0, pipelined with Metadata v0, and asserts the error code is 0.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeApiVersionsRequest,
  encodeApiVersionsResponse,
  type ApiVersionsRequest,
  type ApiVersionsResponseInit,
} from '../protocol/generated/api-versions.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { defineApi, type ApiDefinition } from './api-definition.js';
import type { ApiRegistry } from './api-registry.js';

/** Kafka's ApiVersionsRequest.SOFTWARE_NAME_VERSION_PATTERN. */
const SOFTWARE_NAME_VERSION = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/** ApiVersions answered from `registry` (which this definition is registered in). */
export function createApiVersionsApi(registry: ApiRegistry): ApiDefinition<ApiVersionsRequest, ApiVersionsResponseInit> {
  return defineApi<ApiVersionsRequest, ApiVersionsResponseInit>({
    apiKey: ApiKey.ApiVersions,
    name: 'ApiVersions',
    minVersion: 0,
    maxVersion: 4,
    decode: decodeApiVersionsRequest,
    encode: encodeApiVersionsResponse,
    handle(request, context) {
      if (context.apiVersion >= 3 &&
        (!SOFTWARE_NAME_VERSION.test(request.clientSoftwareName) || !SOFTWARE_NAME_VERSION.test(request.clientSoftwareVersion))) {
        return { errorCode: ErrorCode.INVALID_REQUEST, apiKeys: registry.apiVersions(), throttleTimeMs: 0 };
      }
      return { errorCode: ErrorCode.NONE, apiKeys: registry.apiVersions(), throttleTimeMs: 0 };
    },
    errorResponse(_version, errorCode) {
      return { errorCode, apiKeys: registry.apiVersions(), throttleTimeMs: 0 };
    },
  });
}

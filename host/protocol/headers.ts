/**
 * Request and response headers (Kafka's RequestHeader.json / ResponseHeader.json, KIP-482).
 *
 * Request header v1: api_key int16, api_version int16, correlation_id int32, client_id
 * NULLABLE_STRING. v2 = v1 + a tagged-field section, used exactly when the request version is
 * flexible. The client id keeps its int16 length even in v2 so that any broker can read the
 * header of an ApiVersions request of a version it does not know. v0 (no client id) exists only
 * for ControlledShutdown v0.
 *
 * Response header v0: correlation_id int32. v1 = v0 + a tagged-field section, used when the
 * response version is flexible, except for ApiVersions, whose response header is always v0 so a
 * client can read it whatever version it asked for (KIP-511).
 */
import { ApiKey, isFlexibleVersion } from './generated/api-keys.js';
import type { Reader } from './reader.js';
import type { Writer } from './writer.js';

export interface RequestHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  /** Null when the client sent a null string (or header v0). */
  clientId: string | null;
  /** The header version read or to write: 0, 1 or 2. */
  headerVersion: number;
}

/** Which request header version `apiVersion` of `apiKey` uses (unknown keys: 1, no tagged fields). */
export function requestHeaderVersion(apiKey: number, apiVersion: number): number {
  if (apiKey === ApiKey.ControlledShutdown && apiVersion === 0) return 0;
  return isFlexibleVersion(apiKey, apiVersion) ? 2 : 1;
}

/** Which response header version a response to `apiVersion` of `apiKey` uses (ApiVersions: always 0). */
export function responseHeaderVersion(apiKey: number, apiVersion: number): number {
  if (apiKey === ApiKey.ApiVersions) return 0;
  return isFlexibleVersion(apiKey, apiVersion) ? 1 : 0;
}

/**
 * Reads a request header from the start of a frame body (after the int32 size). Never throws: a
 * short header sets `r.error`. The header version follows from the api key and version read; for
 * an api key unknown to the schemas it is 1 (the body cannot be decoded anyway). Unknown tagged
 * fields in a v2 header are skipped.
 */
export function decodeRequestHeader(r: Reader): RequestHeader {
  const apiKey = r.int16();
  const apiVersion = r.int16();
  const correlationId = r.int32();
  const headerVersion = requestHeaderVersion(apiKey, apiVersion);
  const clientId = headerVersion >= 1 ? r.nullableString() : null;
  if (headerVersion >= 2) r.skipTaggedFields();
  return { apiKey, apiVersion, correlationId, clientId, headerVersion };
}

/** Writes a request header; its version follows from apiKey/apiVersion (`headerVersion` is ignored). */
export function encodeRequestHeader(w: Writer, header: Omit<RequestHeader, 'headerVersion'> & { headerVersion?: number }): void {
  const headerVersion = requestHeaderVersion(header.apiKey, header.apiVersion);
  w.int16(header.apiKey);
  w.int16(header.apiVersion);
  w.int32(header.correlationId);
  if (headerVersion >= 1) w.nullableString(header.clientId);
  if (headerVersion >= 2) w.emptyTaggedFields();
}

/** Writes the response header for a response to `apiVersion` of `apiKey` (v0, or v1 when flexible except ApiVersions). */
export function encodeResponseHeader(w: Writer, apiKey: number, apiVersion: number, correlationId: number): void {
  w.int32(correlationId);
  if (responseHeaderVersion(apiKey, apiVersion) >= 1) w.emptyTaggedFields();
}

/** Reads a response header (client side); unknown tagged fields are skipped. Never throws (see Reader). */
export function decodeResponseHeader(r: Reader, apiKey: number, apiVersion: number): { correlationId: number } {
  const correlationId = r.int32();
  if (responseHeaderVersion(apiKey, apiVersion) >= 1) r.skipTaggedFields();
  return { correlationId };
}

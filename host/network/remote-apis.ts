/**
 * The {@link RemoteApi} codec pairs of the requests brokers send each other as a consumer or
 * follower would (Fetch and ListOffsets), shared by the replica fetchers
 * (replication/remote-leader-end-point.ts) and the group coordinator's remote lag reads
 * (server/remote-partition-lag.ts). Each caller picks its own version.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import { decodeFetchResponse, encodeFetchRequest, type FetchRequestInit, type FetchResponse } from '../protocol/generated/fetch.js';
import {
  decodeListOffsetsResponse, encodeListOffsetsRequest, type ListOffsetsRequestInit, type ListOffsetsResponse,
} from '../protocol/generated/list-offsets.js';
import type { RemoteApi } from './node-channel.js';

/** Fetch (api key 1), codecs generated from Kafka's schema. */
export const FETCH_API: RemoteApi<FetchRequestInit, FetchResponse> = {
  apiKey: ApiKey.Fetch, name: 'Fetch', encodeRequest: encodeFetchRequest, decodeResponse: decodeFetchResponse,
};

/** ListOffsets (api key 2), codecs generated from Kafka's schema. */
export const LIST_OFFSETS_API: RemoteApi<ListOffsetsRequestInit, ListOffsetsResponse> = {
  apiKey: ApiKey.ListOffsets, name: 'ListOffsets', encodeRequest: encodeListOffsetsRequest, decodeResponse: decodeListOffsetsResponse,
};

/**
 * SimControllerTransport: the real {@link AlterPartitionManager}'s transport to the controller
 * over the simulation's network. The request body goes through the generated AlterPartition
 * codec (encoded, then decoded on the controller's side), the controller's answer back through it
 * too; a lost request or answer (loss, partition, broker down) is a timeout after `timeoutMs`.
 */
import type { Time } from '../io/environment.js';
import type { ChannelResult, RemoteApi } from '../network/node-channel.js';
import { decodeAlterPartitionRequest, encodeAlterPartitionResponse } from '../protocol/generated/alter-partition.js';
import { Reader } from '../protocol/reader.js';
import { Writer } from '../protocol/writer.js';
import type { AlterPartitionTransport } from '../replication/alter-partition-manager.js';
import type { AlterPartitionResponseInit } from '../protocol/generated/alter-partition.js';
import type { PendingRequests } from './sim-leader-end-point.js';

/** Sends one encoded AlterPartition request on the network (a controller-bound message). */
export type SendAlterPartition = (requestId: number, request: ReturnType<typeof decodeAlterPartitionRequest>) => void;

export class SimControllerTransport implements AlterPartitionTransport {
  constructor(
    private readonly time: Time,
    private readonly pending: PendingRequests,
    private readonly sendRequest: SendAlterPartition,
    private readonly defaultTimeoutMs: number,
  ) {}

  async send<Req, Res>(_nodeId: number, api: RemoteApi<Req, Res>, version: number, body: Req, timeoutMs?: number): Promise<ChannelResult<Res>> {
    const writer = new Writer(256);
    api.encodeRequest(writer, version, body);
    const request = decodeAlterPartitionRequest(new Reader(writer.toBuffer()), version);
    const { requestId, answer } = this.pending.open(this.time, timeoutMs ?? this.defaultTimeoutMs);
    this.sendRequest(requestId, request);
    const reply = await answer;
    if (reply?.kind !== 'alterPartitionResponse') return { kind: 'timeout' };
    return { kind: 'response', body: decodeResponse(api, version, reply.response) };
  }
}

function decodeResponse<Req, Res>(api: RemoteApi<Req, Res>, version: number, response: AlterPartitionResponseInit): Res {
  const writer = new Writer(256);
  encodeAlterPartitionResponse(writer, version, response);
  return api.decodeResponse(new Reader(writer.toBuffer()), version);
}

/**
 * The Kafka clients behind the console's JSON API. The console reads and writes through the
 * Kafka APIs, with the client library, rather than reaching into the broker's state: what it
 * shows is what Metadata, ListOffsets, DescribeGroups, OffsetFetch and Fetch answer, through the
 * same request handler, limits and (once they exist) ACLs as any client.
 *
 * Requests for this broker go in-process (gateway/in-process-transport.ts: no socket); requests
 * for another broker of a cluster (a partition led elsewhere, a group coordinated elsewhere) go
 * to its advertised endpoint over the client library's default transport (TCP), as any client's.
 */
import { Admin } from '../clients/admin.js';
import { Consumer } from '../clients/consumer.js';
import { Producer } from '../clients/producer.js';
import { lazyDefaultTransportFactory } from '../clients/transport/default-transport.js';
import type { BrokerAddress, TransportFactory } from '../clients/transport/transport.js';
import { inProcessTransportFactory } from '../gateway/in-process-transport.js';
import type { RequestHandler } from '../network/network-types.js';

/** The bootstrap "address" that always means this broker. */
const IN_PROCESS_BOOTSTRAP = 'in-process:1';
const CLIENT_ID = 'tributary-console';

export interface ConsoleClientsOptions {
  /** The broker's request handler (the one its listeners use). */
  readonly handler: RequestHandler;
  /** The client listener the console's requests count as arriving on (Metadata answers with its endpoints). */
  readonly listenerName: string;
  /** This broker's advertised endpoints: requests for them stay in-process. */
  readonly ownEndpoints: () => readonly BrokerAddress[];
}

/** An Admin and a Producer made on first use and kept; short-lived Consumers for browsing. */
export class ConsoleClients {
  private readonly transportFactory: TransportFactory;
  private adminClient: Admin | null = null;
  private producerClient: Producer | null = null;

  constructor(options: ConsoleClientsOptions) {
    const local = inProcessTransportFactory({ handler: options.handler, peer: 'console', listenerName: options.listenerName });
    const remote = lazyDefaultTransportFactory();
    this.transportFactory = (address, transportOptions) => {
      const isOwn = `${address.host}:${address.port}` === IN_PROCESS_BOOTSTRAP ||
        options.ownEndpoints().some((own) => own.host === address.host && own.port === address.port);
      return isOwn ? local(address, transportOptions) : remote(address, transportOptions);
    };
  }

  /** The shared Admin (connects on first request). */
  get admin(): Admin {
    this.adminClient ??= new Admin({ bootstrapServers: [IN_PROCESS_BOOTSTRAP], clientId: CLIENT_ID, transportFactory: this.transportFactory });
    return this.adminClient;
  }

  /** The shared Producer (acks=all, idempotent, no linger: one form submission is one batch). */
  get producer(): Producer {
    this.producerClient ??= new Producer({
      bootstrapServers: [IN_PROCESS_BOOTSTRAP], clientId: CLIENT_ID, transportFactory: this.transportFactory, lingerMs: 0,
    });
    return this.producerClient;
  }

  /** A Consumer without a group (assign + seek), for one browse; the caller closes it. */
  browsingConsumer(maxPartitionFetchBytes: number): Consumer {
    return new Consumer({
      bootstrapServers: [IN_PROCESS_BOOTSTRAP], clientId: CLIENT_ID, transportFactory: this.transportFactory,
      maxPartitionFetchBytes, fetchMaxBytes: maxPartitionFetchBytes, fetchMaxWaitMs: 100, enableAutoCommit: false,
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.adminClient?.close(), this.producerClient?.close()]);
    this.adminClient = null;
    this.producerClient = null;
  }
}

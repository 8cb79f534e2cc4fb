/**
 * `tributary produce TOPIC`: every stdin line becomes one record (value = the line, or
 * KEY<delim>VALUE with --key-delimiter), with the given headers, partition, acks and codec. Lines
 * are sent in chunks; the command exits once everything is acknowledged (per --acks).
 */
import { Producer, type RecordMetadata } from '../../clients/producer.js';
import type { ProduceOptions } from '../client-commands.js';
import { CliError, ExitCode, formatJson, type CliIo } from '../output.js';
import { explain } from './client-errors.js';
import { CLI_CONNECT_TIMEOUT_MS, CLI_REQUEST_TIMEOUT_MS } from './client-session.js';

/** Lines sent per Produce round. */
const CHUNK_RECORDS = 1000;

export interface ProduceDeps {
  /** The input lines, without line terminators. */
  lines(): AsyncIterable<string>;
}

export function produceHandler(io: CliIo, deps: ProduceDeps): (topic: string, options: ProduceOptions) => Promise<void> {
  return async (topic, options) => {
    const producer = new Producer({
      bootstrapServers: options.bootstrapServer,
      clientId: 'tributary-cli-producer',
      acks: options.acks,
      compression: options.compression,
      connectTimeoutMs: CLI_CONNECT_TIMEOUT_MS,
      requestTimeoutMs: CLI_REQUEST_TIMEOUT_MS,
      maxBlockMs: CLI_REQUEST_TIMEOUT_MS,
      deliveryTimeoutMs: 2 * CLI_REQUEST_TIMEOUT_MS,
    });
    const headers = Object.entries(options.headers).map(([key, value]) => ({ key, value }));
    const produced: RecordMetadata[] = [];
    let chunk: { key: string | null; value: string; headers: typeof headers; partition?: number }[] = [];
    const flush = async (): Promise<void> => {
      if (chunk.length === 0) return;
      const messages = chunk;
      chunk = [];
      produced.push(...await producer.send({ topic, messages }));
    };
    try {
      await explain(`produce to "${topic}"`, options.bootstrapServer, async () => {
        await producer.connect();
        let lineNumber = 0;
        for await (const line of deps.lines()) {
          lineNumber++;
          let key: string | null = null;
          let value = line;
          if (options.keyDelimiter !== undefined) {
            const at = line.indexOf(options.keyDelimiter);
            if (at < 0) {
              await flush();
              throw new CliError(
                `line ${lineNumber} has no key delimiter ${JSON.stringify(options.keyDelimiter)} (${produced.length} earlier record(s) were produced)`,
                'write every line as KEY<delimiter>VALUE, or leave out --key-delimiter to send lines as values',
                ExitCode.USAGE,
              );
            }
            key = line.slice(0, at);
            value = line.slice(at + options.keyDelimiter.length);
          }
          chunk.push({ key, value, headers, ...(options.partition === undefined ? {} : { partition: options.partition }) });
          if (chunk.length >= CHUNK_RECORDS) await flush();
        }
        await flush();
      });
    } finally {
      await producer.close().catch(() => undefined);
    }
    if (options.json) {
      io.stdout.write(formatJson({ topic, count: produced.length, records: produced.map(({ partition, offset, timestamp }) => ({ partition, offset, timestamp })) }));
    } else {
      const partitions = [...new Set(produced.map((m) => m.partition))].sort((a, b) => a - b);
      io.stderr.write(`produced ${produced.length} record(s) to ${topic}${partitions.length > 0 ? ` (partition ${partitions.join(', ')})` : ''}\n`);
    }
  };
}

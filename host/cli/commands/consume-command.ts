/**
 * `tributary consume TOPIC`: prints records as they arrive. Without --group it reads the chosen
 * partitions directly (assign) and commits nothing; with --group it joins the group (or, with
 * --partition, reads those partitions as a simple consumer of the group) and commits what it
 * printed when it exits. Start: --from beginning|end|offset:N|timestamp:MS (default: the committed
 * offset in a group, else the end). Stops after --count records, on SIGINT/SIGTERM, or when the
 * reader of stdout goes away (EPIPE, e.g. `| head -1`): then it closes the consumer (leaving the
 * group) and exits 0 without a message, as kcat and rpk do.
 */
import { Consumer, type TopicPartition } from '../../clients/consumer.js';
import type { ConsumeOptions } from '../client-commands.js';
import { ExitCode, type CliIo } from '../output.js';
import { explain } from './client-errors.js';
import { CLI_CONNECT_TIMEOUT_MS, CLI_REQUEST_TIMEOUT_MS } from './client-session.js';
import { recordFormatter } from './record-format.js';

export interface ConsumeDeps {
  /** Calls `stop` on SIGINT/SIGTERM; returns the unregister function. */
  onInterrupt(stop: () => void): () => void;
  /**
   * Calls `stop` once stdout can no longer be written (its reader closed the pipe: EPIPE);
   * returns the unregister function. Absent: stdout never closes (tests' buffers).
   */
  onOutputClosed?(stop: () => void): () => void;
}

export function consumeHandler(io: CliIo, deps: ConsumeDeps): (topic: string, options: ConsumeOptions) => Promise<void> {
  return async (topic, options) => {
    const format = recordFormatter(options.json ? 'json' : options.format);
    const explicitStart = options.offset !== undefined || options.timestamp !== undefined;
    const consumer = new Consumer({
      bootstrapServers: options.bootstrapServer,
      clientId: 'tributary-cli-consumer',
      ...(options.group === undefined ? {} : { groupId: options.group }),
      autoOffsetReset: options.fromBeginning ? 'earliest' : 'latest',
      connectTimeoutMs: CLI_CONNECT_TIMEOUT_MS,
      requestTimeoutMs: CLI_REQUEST_TIMEOUT_MS,
      heartbeatIntervalMs: 1_000,
      sessionTimeoutMs: 10_000,
      ...(options.count === undefined ? {} : { maxPollRecords: Math.min(500, options.count) }),
    });
    let printed = 0;
    let outputClosed = false;
    const unregister = deps.onInterrupt(() => consumer.stop());
    const unregisterOutput = deps.onOutputClosed?.(() => {
      outputClosed = true;
      consumer.stop();
    }) ?? (() => undefined);
    try {
      await explain(`consume "${topic}"`, options.bootstrapServer, async () => {
        await consumer.connect();
        const [info] = await consumer.cluster.topicMetadata([topic]);
        const partitions: TopicPartition[] = (options.partition.length > 0 ? options.partition : info!.partitions.map((p) => p.partition))
          .map((partition) => ({ topic, partition }));
        for (const { partition } of partitions) {
          if (partition >= info!.partitions.length) throw new RangeError(`${topic} has no partition ${partition} (it has ${info!.partitions.length})`);
        }
        const start = async (assigned: TopicPartition[]): Promise<void> => {
          if (options.offset !== undefined) for (const tp of assigned) consumer.seek(tp, options.offset);
          else if (options.timestamp !== undefined) await consumer.seekToTimestamp(options.timestamp, assigned);
          else if (options.group === undefined) await (options.fromBeginning ? consumer.seekToBeginning(assigned) : consumer.seekToEnd(assigned));
        };
        if (options.group !== undefined && options.partition.length === 0) {
          let started = !explicitStart;
          consumer.subscribe({ topics: [topic], listener: {
            onPartitionsAssigned: async (assigned) => {
              // An explicit start applies once, to the first assignment; later rebalances resume from commits.
              if (started) return;
              started = true;
              await start(assigned);
            },
          } });
        } else {
          consumer.assign(partitions);
          await start(partitions);
        }
        if (options.count === undefined || options.count > 0) {
          await consumer.run({
            pollTimeoutMs: 500,
            eachMessage: ({ message }) => {
              // The rest of a fetched batch after EPIPE has nowhere to go.
              if (outputClosed) return;
              io.stdout.write(format(message));
              printed++;
              if (options.count !== undefined && printed >= options.count) consumer.stop();
            },
          });
        }
        await consumer.close();
      });
    } catch (error) {
      // A failure caused by the closed pipe (e.g. the stop interrupting a request) is not one to report.
      if (!outputClosed) throw error;
    } finally {
      unregister();
      await consumer.close().catch(() => undefined);
      unregisterOutput();
    }
    if (outputClosed) io.exit(ExitCode.OK);
  };
}

/**
 * What a single node started as `npm start` does (the HTTP listener on, one voter) never loads,
 * so its start-up does not pay for it (issue 10: the quick start's ready time does not get
 * worse): the client library (the `/json` sessions and the console load it with their first
 * socket or request), the replica fetchers (with the first partition followed) and the
 * AlterPartitionManager (with the first ISR proposal), the consumer-lag reads of partitions led
 * by other brokers (with the first such partition), the client commands' definitions, the
 * simulator's fault-injecting disk, and the Kafka config catalog (the
 * generated table of Kafka's configs, read only when a config Tributary does not implement is met).
 * Some things it loads only after it is ready (in the background, or with the first request that
 * needs them): the group coordinator (about 20 modules) where `__consumer_offsets` does not exist
 * yet, and the inter-broker channels; a group request sent at once is answered as ever, in order.
 * The broker runs from dist/ under a module-loading hook that reports every module, a wrapper of
 * `fs.readFileSync` that reports reads of the catalog's JSON and wrappers of `fs.write`/`fs.writeSync`
 * (pino's) that report the `broker.started` log line, written once the broker is ready.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { encodeConsumerProtocolSubscription } from '../../host/protocol/generated/consumer-protocol-subscription.js';
import { decodeApiVersionsResponse, encodeApiVersionsRequest } from '../../host/protocol/generated/api-versions.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { decodeFindCoordinatorResponse, encodeFindCoordinatorRequest } from '../../host/protocol/generated/find-coordinator.js';
import { decodeJoinGroupResponse, encodeJoinGroupRequest } from '../../host/protocol/generated/join-group.js';
import { decodeListGroupsResponse, encodeListGroupsRequest } from '../../host/protocol/generated/list-groups.js';
import { decodeOffsetFetchResponse, encodeOffsetFetchRequest } from '../../host/protocol/generated/offset-fetch.js';
import { BROKER_CLI_PATH, findFreePort, startBrokerProcess, stopAllBrokerProcesses } from '../helpers/broker-process.js';
import { Writer } from '../../host/protocol/writer.js';
import { RawKafkaClient } from './raw-kafka-client.js';

/** A consumer's JoinGroup protocol metadata: version 0 of ConsumerProtocolSubscription for `topics`. */
function subscription(topics: string[]): Uint8Array {
  const w = new Writer();
  w.int16(0);
  encodeConsumerProtocolSubscription(w, 0, { topics });
  return Buffer.from(w.toBuffer());
}

const hookDir = mkdtempSync(join(tmpdir(), 'tributary-module-hook-'));
afterAll(async () => {
  await stopAllBrokerProcesses();
  rmSync(hookDir, { recursive: true, force: true });
});

/**
 * `node --import <register>`: a load hook (on the hooks thread) writing each file module to stderr,
 * synchronously, `fs.readFileSync` wrapped (named imports too, syncBuiltinESMExports) to write
 * `CATALOG_READ <path>` for each read of generated/kafka-configs.json, and `fs.write`/`fs.writeSync`
 * wrapped to write `BROKER_STARTED` before the log line of the `broker.started` event. All go to
 * fd 2 synchronously, so their order on stderr is the order they happened in.
 */
function moduleReportingHook(): string {
  const hooks = join(hookDir, 'hooks.mjs');
  writeFileSync(hooks, `import { writeSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) writeSync(2, 'MODULE_LOADED ' + url + '\\n');
  return next(url, context);
}
`);
  const register = join(hookDir, 'register.mjs');
  writeFileSync(register, `import fs from 'node:fs';
import { register, syncBuiltinESMExports } from 'node:module';
register(${JSON.stringify(pathToFileURL(hooks).href)});
const readFileSync = fs.readFileSync;
const [write, writeSync] = [fs.write, fs.writeSync];
let started = false;
const sees = (data) => {
  if (!started && typeof data === 'string' && data.includes('"event":"broker.started"')) {
    started = true;
    writeSync(2, 'BROKER_STARTED\\n');
  }
};
fs.write = function reportingWrite(...args) { sees(args[1]); return write.apply(this, args); };
fs.writeSync = function reportingWriteSync(...args) { sees(args[1]); return writeSync.apply(this, args); };
fs.readFileSync = function reportingReadFileSync(file, ...rest) {
  if (String(file).endsWith('kafka-configs.json')) fs.writeSync(2, 'CATALOG_READ ' + String(file) + '\\n');
  return readFileSync.call(this, file, ...rest);
};
syncBuiltinESMExports();
`);
  return register;
}

/** The modules a broker run under {@link moduleReportingHook} loaded before it logged `broker.started`. */
function loadedBeforeReady(lines: readonly string[]): string[] {
  const started = lines.indexOf('BROKER_STARTED');
  expect(started).toBeGreaterThan(0);
  return reported(lines.slice(0, started), 'MODULE_LOADED ');
}

/** The group coordinator's own modules (host/coordinator/ but for the shared `__consumer_offsets` helpers). */
const GROUP_COORDINATOR_MODULES = /\/dist\/host\/(coordinator\/(group-coordinator|classic-group-coordinator|classic-group-rebalance|group-metadata-manager|offset-metadata-manager|group-coordinator-shard|coordinator-runtime)|server\/group-coordinator-setup)\.js$/;

/** The stderr lines of a broker run under {@link moduleReportingHook} that start with `prefix`, without it. */
function reported(lines: readonly string[], prefix: string): string[] {
  return lines.filter((line) => line.startsWith(prefix)).map((line) => line.slice(prefix.length));
}

describe('the single-node quick start', () => {
  it('never loads the client library, the console application, the replica fetchers, the AlterPartitionManager, the remote lag reads, the client commands, the fault-injecting disk or the Kafka config catalog', async () => {
    const httpPort = await findFreePort();
    const broker = await startBrokerProcess({
      command: { file: process.execPath, args: ['--import', moduleReportingHook(), BROKER_CLI_PATH, 'broker'] },
      overrides: { 'http.listeners': `127.0.0.1:${httpPort}` },
    });
    expect((await fetch(`http://127.0.0.1:${httpPort}/ready`)).status).toBe(200);
    await broker.stop();
    const loaded = reported(broker.stderrLines, 'MODULE_LOADED ');
    expect(loaded.some((url) => url.endsWith('/dist/host/server/broker-server.js'))).toBe(true);
    const unwanted = loaded.filter((url) =>
      /\/dist\/host\/clients\//.test(url) ||
      /\/dist\/host\/gateway\/json-session\.js$/.test(url) ||
      /\/dist\/host\/console\/console-(application|clients)\.js$/.test(url) ||
      /\/dist\/host\/server\/replica-fetching\.js$/.test(url) ||
      /\/dist\/host\/replication\/(alter-partition-manager|replica-fetcher-manager)\.js$/.test(url) ||
      /\/dist\/host\/server\/remote-partition-lag\.js$/.test(url) ||
      /\/dist\/host\/(cli\/client-commands|io\/fault-disk)\.js$/.test(url));
    expect(unwanted).toEqual([]);
    expect(reported(broker.stderrLines, 'CATALOG_READ ')).toEqual([]);
    // Loaded after ready (in the background, one import per event-loop turn), not before: the group
    // coordinator, the inter-broker channels, and every API handler but ApiVersions and Metadata.
    const beforeReady = loadedBeforeReady(broker.stderrLines);
    expect(beforeReady.filter((url) => GROUP_COORDINATOR_MODULES.test(url) || /\/dist\/host\/network\/node-channels?\.js$/.test(url))).toEqual([]);
    // pino writes asynchronously: its write of the broker.started line can come after the
    // background loader began its first import (one handler), never after a second.
    const handlers = beforeReady.filter((url) => /\/dist\/host\/api\/[a-z-]+-api\.js$/.test(url)).map((url) => url.replace(/.*\//, ''));
    expect(handlers).toEqual(expect.arrayContaining(['api-versions-api.js', 'metadata-api.js']));
    expect(handlers.length).toBeLessThanOrEqual(3);
    await broker.close();
  });

  it('answers group requests sent at once after start-up, in order, though the group coordinator was not loaded before ready', async () => {
    const broker = await startBrokerProcess({
      command: { file: process.execPath, args: ['--import', moduleReportingHook(), BROKER_CLI_PATH, 'broker'] },
      overrides: { 'group.initial.rebalance.delay.ms': 0 },
    });
    const client = await RawKafkaClient.connect(broker.port);
    try {
      // Pipelined on one connection: every answer comes back in request order (correlation ids checked).
      const listed = client.sendRequest(ApiKey.ListGroups, 2, encodeListGroupsRequest, {});
      const found = client.sendRequest(ApiKey.FindCoordinator, 1, encodeFindCoordinatorRequest, { key: 'early', keyType: 0 });
      const joined = client.sendRequest(ApiKey.JoinGroup, 1, encodeJoinGroupRequest, {
        groupId: 'early', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null,
        protocolType: 'consumer', protocols: [{ name: 'range', metadata: subscription(['orders']) }],
      });
      const fetched = client.sendRequest(ApiKey.OffsetFetch, 1, encodeOffsetFetchRequest, { groupId: 'early', topics: [{ name: 'orders', partitionIndexes: [0] }] });
      const versions = client.sendRequest(ApiKey.ApiVersions, 0, encodeApiVersionsRequest, {});
      expect((await client.readResponse(ApiKey.ListGroups, 2, decodeListGroupsResponse, listed))).toMatchObject({ errorCode: ErrorCode.NONE, groups: [] });
      expect((await client.readResponse(ApiKey.FindCoordinator, 1, decodeFindCoordinatorResponse, found))).toMatchObject({ errorCode: ErrorCode.NONE, port: broker.port });
      const join = await client.readResponse(ApiKey.JoinGroup, 1, decodeJoinGroupResponse, joined);
      expect(join).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 1, protocolName: 'range' });
      expect(join.leader).toBe(join.memberId);
      const offsets = await client.readResponse(ApiKey.OffsetFetch, 1, decodeOffsetFetchResponse, fetched);
      expect(offsets.topics).toEqual([{ name: 'orders', partitions: [expect.objectContaining({ partitionIndex: 0, committedOffset: -1, errorCode: ErrorCode.NONE })] }]);
      expect((await client.readResponse(ApiKey.ApiVersions, 0, decodeApiVersionsResponse, versions)).errorCode).toBe(ErrorCode.NONE);
    } finally {
      client.close();
    }
    await broker.stop();
    expect(loadedBeforeReady(broker.stderrLines).filter((url) => GROUP_COORDINATOR_MODULES.test(url))).toEqual([]);
    expect(reported(broker.stderrLines, 'MODULE_LOADED ').filter((url) => GROUP_COORDINATOR_MODULES.test(url))).not.toEqual([]);
    await broker.close();
  });

  it('reads the Kafka config catalog when a config Tributary does not implement is set, and says it has no effect', async () => {
    const broker = await startBrokerProcess({
      command: { file: process.execPath, args: ['--import', moduleReportingHook(), BROKER_CLI_PATH, 'broker'] },
      overrides: { 'background.threads': '4' },
    });
    await broker.stop();
    expect(reported(broker.stderrLines, 'CATALOG_READ ')).toEqual([expect.stringMatching(/\/dist\/host\/config\/generated\/kafka-configs\.json$/)]);
    expect(broker.stdoutLines.some((line) => line.includes('"event":"config.ignored"') && line.includes('"config":"background.threads"'))).toBe(true);
    await broker.close();
  });
});


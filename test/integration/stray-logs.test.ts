import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeDeleteTopicsResponse, encodeDeleteTopicsRequest } from '../../host/protocol/generated/delete-topics.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { batch, createTopic, metadata, produce } from './requests.js';

async function topicNames(broker: TestBroker): Promise<string[]> {
  const client = await RawKafkaClient.connect(broker.broker.port);
  try {
    const meta = await metadata(client, 4, { topics: null, allowAutoTopicCreation: false });
    return meta.topics.map((topic) => topic.name ?? '');
  } finally {
    client.close();
  }
}

describe('logs on disk that the metadata does not hold (stray logs)', () => {
  let broker: TestBroker | undefined;
  afterEach(async () => {
    await broker?.close();
    broker = undefined;
  });

  it('does not resurrect a deleted topic whose logs were left behind by a crash; renames them -stray', async () => {
    broker = await startTestBroker({}, { captureLogs: true });
    let client = await RawKafkaClient.connect(broker.broker.port);
    expect(await createTopic(client, 'gone', 2)).toBe(ErrorCode.NONE);
    await produce(client, 7, [{ topic: 'gone', partition: 0, records: batch(['a']) }], { acks: -1 });
    client.close();
    await broker.broker.stop();
    const saved = join(broker.logDir, '..', `${join(broker.logDir).split('/').pop()}-saved`);
    cpSync(join(broker.logDir, 'gone-0'), join(saved, 'gone-0'), { recursive: true });
    cpSync(join(broker.logDir, 'gone-1'), join(saved, 'gone-1'), { recursive: true });
    await broker.restart();
    client = await RawKafkaClient.connect(broker.broker.port);
    const deleted = await client.request(ApiKey.DeleteTopics, 1, encodeDeleteTopicsRequest, decodeDeleteTopicsResponse,
      { topicNames: ['gone'], timeoutMs: 1000 });
    expect(deleted.responses[0]!.errorCode).toBe(ErrorCode.NONE);
    client.close();
    await broker.broker.stop();
    // The crash: the deletion was committed to the metadata log, the log directories remain.
    cpSync(join(saved, 'gone-0'), join(broker.logDir, 'gone-0'), { recursive: true });
    cpSync(join(saved, 'gone-1'), join(broker.logDir, 'gone-1'), { recursive: true });
    rmSync(saved, { recursive: true, force: true });
    await broker.restart();
    expect(await topicNames(broker)).not.toContain('gone');
    const names = readdirSync(broker.logDir);
    expect(names.filter((name) => /^gone-[01]\.\d+-stray$/.test(name))).toHaveLength(2);
    expect(names).not.toContain('gone-0');
    expect(broker.logLines.filter((line) => line.event === 'topic.stray_logs' && line.topic === 'gone'))
      .toEqual([expect.objectContaining({ count: 2 })]);
    // Later starts leave the stray directories alone and still do not serve the topic.
    await broker.restart();
    expect(await topicNames(broker)).not.toContain('gone');
    expect(readdirSync(broker.logDir).filter((name) => name.endsWith('-stray'))).toHaveLength(2);
  });

  it('leaves an unrelated directory such as backup-2024 untouched and creates no topic for it', async () => {
    broker = await startTestBroker();
    await broker.broker.stop();
    const backup = join(broker.logDir, 'backup-2024');
    mkdirSync(backup);
    writeFileSync(join(backup, 'notes.txt'), 'keep me');
    const dirs = (): string[] => readdirSync(broker!.logDir).filter((name) => /-\d+/.test(name)).sort();
    const before = dirs();
    await broker.restart();
    expect(await topicNames(broker)).not.toContain('backup');
    expect(readdirSync(backup)).toEqual(['notes.txt']);
    expect(readFileSync(join(backup, 'notes.txt'), 'utf8')).toBe('keep me');
    expect(dirs()).toEqual(before);
    expect(existsSync(join(broker.logDir, 'backup-0'))).toBe(false);
  });
});

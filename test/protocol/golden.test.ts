import { describe, expect, it } from 'vitest';
import { Reader } from '../../host/protocol/reader.js';
import { Writer } from '../../host/protocol/writer.js';
import { decodeApiVersionsRequest, decodeApiVersionsResponse, encodeApiVersionsRequest, encodeApiVersionsResponse } from '../../host/protocol/generated/api-versions.js';
import { decodeMetadataRequest, encodeMetadataRequest } from '../../host/protocol/generated/metadata.js';
import { decodeProduceRequest, encodeProduceRequest } from '../../host/protocol/generated/produce.js';
import { decodeRequestHeader, encodeResponseHeader } from '../../host/protocol/headers.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { encodeRequestFrame } from '../../host/protocol/frame.js';
import { decodeOffsetCommitKey, encodeOffsetCommitKey } from '../../host/protocol/generated/offset-commit-key.js';
import { decodeConsumerProtocolSubscription, encodeConsumerProtocolSubscription } from '../../host/protocol/generated/consumer-protocol-subscription.js';

function hex(text: string): Buffer {
  return Buffer.from(text.replace(/\s+/g, ''), 'hex');
}

function encoded(fn: (w: Writer) => void): string {
  const w = new Writer(16);
  fn(w);
  return w.toBuffer().toString('hex');
}

describe('golden bytes derived by hand from the Kafka protocol spec', () => {
  it('ApiVersions v0 request is an empty body and v3 carries two compact strings and an empty tag section', () => {
    expect(encoded((w) => encodeApiVersionsRequest(w, 0, {}))).toBe('');
    // 0x0b = length 10 + 1, "librdkafka"; 0x06 = 5 + 1, "2.0.2"; 0x00 = no tagged fields.
    const v3 = '0b' + Buffer.from('librdkafka').toString('hex') + '06' + Buffer.from('2.0.2').toString('hex') + '00';
    expect(encoded((w) => encodeApiVersionsRequest(w, 3, { clientSoftwareName: 'librdkafka', clientSoftwareVersion: '2.0.2' }))).toBe(v3);
    const r = new Reader(hex(v3));
    expect(decodeApiVersionsRequest(r, 3)).toEqual({ clientSoftwareName: 'librdkafka', clientSoftwareVersion: '2.0.2' });
    expect(r.error).toBeNull();
    expect(r.remaining).toBe(0);
  });

  it('ApiVersions v0 and v3 responses use classic and compact arrays', () => {
    const body = { errorCode: 0, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }], throttleTimeMs: 0 };
    // v0: error int16, int32 count 1, (key int16, min int16, max int16); no throttle time in v0.
    expect(encoded((w) => encodeApiVersionsResponse(w, 0, body))).toBe('0000' + '00000001' + '0012' + '0000' + '0004');
    // v3: error, uvarint count+1 = 2, entry + empty tags, throttle int32, empty top-level tags.
    const v3 = '0000' + '02' + '0012' + '0000' + '0004' + '00' + '00000000' + '00';
    expect(encoded((w) => encodeApiVersionsResponse(w, 3, body))).toBe(v3);
    const r = new Reader(hex(v3));
    expect(decodeApiVersionsResponse(r, 3)).toEqual({ ...body, supportedFeatures: [], finalizedFeaturesEpoch: -1, finalizedFeatures: [], zkMigrationReady: false });
    expect(r.error).toBeNull();
  });

  it('ApiVersions v3 response writes non-default tagged fields in tag order and skips unknown tags in nested structs', () => {
    const body = { errorCode: 0, apiKeys: [], throttleTimeMs: 0, finalizedFeaturesEpoch: 5, zkMigrationReady: true };
    // tags: count 2; tag 1 (FinalizedFeaturesEpoch) size 8 int64 5; tag 3 (ZkMigrationReady) size 1 true.
    const v3 = '0000' + '01' + '00000000' + '02' + '01' + '08' + '0000000000000005' + '03' + '01' + '01';
    expect(encoded((w) => encodeApiVersionsResponse(w, 3, body))).toBe(v3);
    // An ApiVersion entry carrying an unknown tag (tag 7, 2 bytes) decodes as if it had none.
    const withUnknown = '0000' + '02' + '0003' + '0000' + '0008' + '01' + '07' + '02' + 'abcd' + '00000000' + '00';
    const r = new Reader(hex(withUnknown));
    expect(decodeApiVersionsResponse(r, 3).apiKeys).toEqual([{ apiKey: 3, minVersion: 0, maxVersion: 8 }]);
    expect(r.error).toBeNull();
    expect(r.remaining).toBe(0);
  });

  it('a known tagged field whose size disagrees with its content is an error, not a silent misread', () => {
    // tag 3 (ZkMigrationReady, a bool) claiming 2 bytes.
    const r = new Reader(hex('0000' + '01' + '00000000' + '01' + '03' + '02' + '0101'));
    decodeApiVersionsResponse(r, 3);
    expect(r.error).toMatch(/size mismatch/);
  });

  it('Metadata v1 request with null topics is an int32 -1', () => {
    expect(encoded((w) => encodeMetadataRequest(w, 1, { topics: null }))).toBe('ffffffff');
    const r = new Reader(hex('ffffffff'));
    expect(decodeMetadataRequest(r, 1).topics).toBeNull();
    expect(r.error).toBeNull();
  });

  it('Produce v7 request frame: size, header v1, then transactional id, acks, timeout, topics', () => {
    const records = hex('0102030405');
    const w = encodeRequestFrame({ apiKey: ApiKey.Produce, apiVersion: 7, correlationId: 42, clientId: 'rdkafka' }, (b) =>
      encodeProduceRequest(b, 7, { transactionalId: null, acks: -1, timeoutMs: 30000, topicData: [{ name: 't', partitionData: [{ index: 0, records }] }] }));
    const expected =
      '0000' + '0007' + '0000002a' + '0007' + Buffer.from('rdkafka').toString('hex') + // header v1
      'ffff' + 'ffff' + '00007530' + // null transactional id, acks -1, timeout 30000
      '00000001' + '0001' + '74' + // one topic "t"
      '00000001' + '00000000' + '00000005' + '0102030405'; // one partition 0 with 5 record bytes
    const size = (expected.length / 2).toString(16).padStart(8, '0');
    expect(w.toBuffer().toString('hex')).toBe(size + expected);
    const r = new Reader(w.toBuffer(), 4);
    const header = decodeRequestHeader(r);
    expect(header).toEqual({ apiKey: 0, apiVersion: 7, correlationId: 42, clientId: 'rdkafka', headerVersion: 1 });
    const produce = decodeProduceRequest(r, 7);
    expect(r.error).toBeNull();
    expect(produce.acks).toBe(-1);
    expect(Buffer.from(produce.topicData[0]!.partitionData[0]!.records!).toString('hex')).toBe('0102030405');
  });

  it('OffsetCommitKey (after its int16 version) is group, topic and partition as classic strings and int32', () => {
    const bytes = '0002' + '6731' + '0001' + '74' + '00000003';
    expect(encoded((w) => encodeOffsetCommitKey(w, 1, { group: 'g1', topic: 't', partition: 3 }))).toBe(bytes);
    const r = new Reader(hex('0001' + bytes));
    const version = r.int16();
    expect(decodeOffsetCommitKey(r, version)).toEqual({ group: 'g1', topic: 't', partition: 3 });
    expect(r.remaining).toBe(0);
  });

  it('ConsumerProtocolSubscription v1 carries topics, null user data and owned partitions; newer versions read as the latest', () => {
    const bytes = '00000001' + '0001' + '61' + 'ffffffff' + '00000001' + '0001' + '61' + '00000001' + '00000000';
    const m = { topics: ['a'], userData: null, ownedPartitions: [{ topic: 'a', partitions: [0] }] };
    expect(encoded((w) => encodeConsumerProtocolSubscription(w, 1, m))).toBe(bytes);
    const r = new Reader(hex(bytes + 'ffffffff' + 'ffff')); // plus v2 generation id -1 and v3 null rack
    expect(decodeConsumerProtocolSubscription(r, 9)).toEqual({ ...m, generationId: -1, rackId: null });
    expect(r.error).toBeNull();
  });

  it('ApiVersions responses always use header v0, other flexible responses header v1', () => {
    expect(encoded((w) => encodeResponseHeader(w, ApiKey.ApiVersions, 3, 7))).toBe('00000007');
    expect(encoded((w) => encodeResponseHeader(w, ApiKey.InitProducerId, 2, 7))).toBe('0000000700');
    expect(encoded((w) => encodeResponseHeader(w, ApiKey.InitProducerId, 1, 7))).toBe('00000007');
  });
});

/** The `__transaction_state` records in Kafka's byte layouts (TransactionLog.scala, TransactionLogKey/Value v0). */
import { describe, expect, it } from 'vitest';
import { readTransactionLogKey, readTransactionLogValue, transactionLogKey, transactionLogValue } from '../../host/coordinator/transaction-records.js';
import { TransactionState } from '../../host/coordinator/transaction-state.js';

function bytes(...parts: [type: 'i8' | 'i16' | 'i32' | 'i64' | 'str', value: number | string][]): Buffer {
  const chunks = parts.map(([type, value]) => {
    switch (type) {
      case 'i8': return Buffer.from([Number(value) & 0xff]);
      case 'i16': { const b = Buffer.alloc(2); b.writeInt16BE(Number(value)); return b; }
      case 'i32': { const b = Buffer.alloc(4); b.writeInt32BE(Number(value)); return b; }
      case 'i64': { const b = Buffer.alloc(8); b.writeBigInt64BE(BigInt(value)); return b; }
      case 'str': { const s = Buffer.from(String(value)); const b = Buffer.alloc(2); b.writeInt16BE(s.length); return Buffer.concat([b, s]); }
    }
  });
  return Buffer.concat(chunks);
}

describe('TransactionLog records', () => {
  it('key: int16 version 0, then the transactional id as an int16-length string', () => {
    expect(transactionLogKey('tx-1')).toEqual(bytes(['i16', 0], ['str', 'tx-1']));
    expect(readTransactionLogKey(bytes(['i16', 0], ['str', 'tx-1']))).toBe('tx-1');
    expect(readTransactionLogKey(bytes(['i16', 1], ['str', 'tx-1']))).toBeNull();
  });

  it('value v0 of an Ongoing transaction: producer, epoch, timeout, status, partitions grouped by topic, timestamps', () => {
    const value = transactionLogValue({
      producerId: 7_000_000_001, lastProducerId: -1, producerEpoch: 3, lastProducerEpoch: -1, txnTimeoutMs: 60_000,
      state: TransactionState.Ongoing, topicPartitions: [{ topic: 'a', partition: 0 }, { topic: 'a', partition: 2 }, { topic: 'b', partition: 1 }],
      txnStartTimestampMs: 1_700_000_000_000, txnLastUpdateTimestampMs: 1_700_000_000_500,
    });
    expect(value).toEqual(bytes(
      ['i16', 0], ['i64', 7_000_000_001], ['i16', 3], ['i32', 60_000], ['i8', 1],
      ['i32', 2], ['str', 'a'], ['i32', 2], ['i32', 0], ['i32', 2], ['str', 'b'], ['i32', 1], ['i32', 1],
      ['i64', 1_700_000_000_500], ['i64', 1_700_000_000_000],
    ));
    expect(readTransactionLogValue(value)).toEqual({
      producerId: 7_000_000_001, producerEpoch: 3, txnTimeoutMs: 60_000, state: TransactionState.Ongoing,
      topicPartitions: [{ topic: 'a', partition: 0 }, { topic: 'a', partition: 2 }, { topic: 'b', partition: 1 }],
      txnLastUpdateTimestampMs: 1_700_000_000_500, txnStartTimestampMs: 1_700_000_000_000,
    });
  });

  it('value v0 of an Empty transactional id has null partitions; an unknown status byte is skipped', () => {
    const empty = transactionLogValue({
      producerId: 5, lastProducerId: -1, producerEpoch: 0, lastProducerEpoch: -1, txnTimeoutMs: 1_000,
      state: TransactionState.Empty, topicPartitions: [], txnStartTimestampMs: -1, txnLastUpdateTimestampMs: 9,
    });
    expect(empty).toEqual(bytes(['i16', 0], ['i64', 5], ['i16', 0], ['i32', 1_000], ['i8', 0], ['i32', -1], ['i64', 9], ['i64', -1]));
    expect(readTransactionLogValue(empty)!.topicPartitions).toEqual([]);
    expect(readTransactionLogValue(bytes(['i16', 0], ['i64', 5], ['i16', 0], ['i32', 1_000], ['i8', 9], ['i32', -1], ['i64', 9], ['i64', -1]))).toBeNull();
  });
});

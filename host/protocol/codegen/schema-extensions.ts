/**
 * Versions newer than the Kafka 3.9 schemas in ../shared/kafka-protocol that we need, applied to
 * the loaded schema before models are built. Each entry names the KIP and the Kafka release that
 * defined the version; only fields we use are added.
 *
 * - Vote v2 (KIP-996, Kafka 4.0): `PreVote` (bool, v2+) in each partition of the request, so a
 *   prospective voter can ask "would you vote for me?" without anyone bumping its epoch. The
 *   response gains no field in v2.
 */
import type { RawField, RawMessage } from './schema.js';

function findField(fields: readonly RawField[], name: string): RawField {
  const field = fields.find((f) => f.name === name);
  if (field === undefined) throw new Error(`schema extension: no field ${name}`);
  return field;
}

/** Returns `raw` with the extensions for its message applied (a new object; `raw` is not changed). */
export function extendSchema(raw: RawMessage): RawMessage {
  if (raw.name === 'VoteRequest' && raw.validVersions === '0-1') {
    const copy = structuredClone(raw);
    copy.validVersions = '0-2';
    const partitions = findField(findField(copy.fields, 'Topics').fields ?? [], 'Partitions');
    partitions.fields!.push({
      name: 'PreVote', type: 'bool', versions: '2+',
      about: 'Whether the request is a PreVote request (not persisted) or not (KIP-996).',
    });
    return copy;
  }
  if (raw.name === 'VoteResponse' && raw.validVersions === '0-1') return { ...raw, validVersions: '0-2' };
  return raw;
}

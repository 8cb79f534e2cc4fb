/**
 * `npm test` on a fresh machine (issue 13): the global setup installs the missing real clients
 * when it may (root with apt-get), and otherwise stops at once with the one command to run.
 */
import { describe, expect, it } from 'vitest';
import { installCommand, provisionClients } from '../global-setup.js';

const kcat = { name: 'kcat', debianPackages: ['kcat'] };
const python = { name: 'python3 with confluent_kafka and kafka', debianPackages: ['python3-confluent-kafka', 'python3-kafka', 'python3-lz4'] };

describe('global setup', () => {
  it('does nothing when every client is present', () => {
    const installed: string[][] = [];
    provisionClients({ missing: () => [], mayInstall: () => true, install: (p) => installed.push([...p]) });
    expect(installed).toEqual([]);
  });

  it('installs the missing clients\' packages when it may, once', () => {
    const installed: string[][] = [];
    let absent = [kcat, python];
    provisionClients({
      missing: () => absent,
      mayInstall: () => true,
      install: (packages) => {
        installed.push([...packages]);
        absent = [];
      },
    });
    expect(installed).toEqual([['kcat', 'python3-confluent-kafka', 'python3-kafka', 'python3-lz4']]);
  });

  it('stops at once with the one command when it may not install', () => {
    expect(() => provisionClients({ missing: () => [python], mayInstall: () => false, install: () => { throw new Error('not called'); } }))
      .toThrow('sudo apt-get install -y python3-confluent-kafka python3-kafka python3-lz4');
  });

  it('stops when the install did not provide a client', () => {
    expect(() => provisionClients({ missing: () => [kcat], mayInstall: () => true, install: () => {} })).toThrow(/missing: kcat/);
  });

  it('names every client package in the full command', () => {
    expect(installCommand()).toBe('sudo apt-get install -y kcat python3-confluent-kafka python3-kafka python3-lz4 chromium');
  });
});

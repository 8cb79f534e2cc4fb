/**
 * vitest globalSetup: the real clients the compatibility and browser tests drive are present
 * before any test runs (issue 13: `npm test` on a fresh machine passes, or stops at once saying
 * what to run; a compatibility test is never skipped silently).
 *
 * Needed: kcat (librdkafka), /usr/bin/python3 with the confluent_kafka, kafka and lz4 modules, and
 * /usr/bin/chromium (playwright-core drives it; no browser download). When one is missing and
 * this process may install system packages (root, apt-get present: a CI container, `.ci/run`), it
 * runs `apt-get update` once and installs Debian's packages; otherwise it fails at once with the
 * one command that provides them. TRIBUTARY_SKIP_CLIENT_CHECK=1 skips the check (a run that
 * selects no compatibility or browser test).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian packages providing the clients, in install order. */
export const CLIENT_PACKAGES = ['kcat', 'python3-confluent-kafka', 'python3-kafka', 'python3-lz4', 'chromium'] as const;

interface Requirement {
  readonly name: string;
  readonly debianPackages: readonly string[];
  readonly present: () => boolean;
}

function succeeds(command: string, args: readonly string[]): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: 30_000 });
  return result.status === 0;
}

const REQUIREMENTS: readonly Requirement[] = [
  { name: 'kcat', debianPackages: ['kcat'], present: () => succeeds('kcat', ['-V']) },
  {
    name: 'python3 with confluent_kafka, kafka (kafka-python) and lz4 (kafka-python\'s lz4 codec)',
    debianPackages: ['python3-confluent-kafka', 'python3-kafka', 'python3-lz4'],
    present: () => succeeds('/usr/bin/python3', ['-c', 'import confluent_kafka, kafka, lz4.frame']),
  },
  { name: 'chromium (/usr/bin/chromium)', debianPackages: ['chromium'], present: () => existsSync('/usr/bin/chromium') },
];

function missing(): Requirement[] {
  return REQUIREMENTS.filter((requirement) => !requirement.present());
}

function mayInstall(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0 && succeeds('apt-get', ['--version']);
}

function install(packages: readonly string[]): void {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...packages]]) {
    console.log(`[global-setup] apt-get ${args.join(' ')}`);
    const result = spawnSync('apt-get', args, { stdio: 'inherit', env });
    if (result.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (exit ${result.status}).`);
  }
}

/** The command a user runs to get every missing client. */
export function installCommand(packages: readonly string[] = CLIENT_PACKAGES): string {
  return `sudo apt-get install -y ${packages.join(' ')}`;
}

/** What {@link provisionClients} needs from the machine (tests fake it). */
export interface ProvisionDeps {
  readonly missing: () => readonly { readonly name: string; readonly debianPackages: readonly string[] }[];
  readonly mayInstall: () => boolean;
  readonly install: (packages: readonly string[]) => void;
}

/**
 * Makes sure the clients are present: installs the missing ones when allowed, else throws an
 * Error naming them and the one command that installs them.
 */
export function provisionClients(deps: ProvisionDeps = { missing, mayInstall, install }): void {
  let absent = deps.missing();
  if (absent.length === 0) return;
  const packages = [...new Set(absent.flatMap((requirement) => requirement.debianPackages))];
  if (deps.mayInstall()) {
    deps.install(packages);
    absent = deps.missing();
    if (absent.length === 0) return;
  }
  throw new Error(
    `The compatibility tests drive real Kafka clients, and these are missing: ${absent.map((r) => r.name).join('; ')}.\n` +
    `Install them with:\n\n    ${installCommand(packages)}\n\nthen run npm test again.`,
  );
}

export default function setup(): void {
  if (process.env['TRIBUTARY_SKIP_CLIENT_CHECK'] === '1') return;
  provisionClients();
}

#!/usr/bin/env node
// `npm run fuzz -- --frames N --seed S`: runs the live-broker fuzz test (protocol-fuzz.test.ts)
// with N frames from seed S (defaults 300 and 15, as in `npm test`).
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1] : fallback;
};
const env = { ...process.env, FUZZ_FRAMES: option('frames', '300'), FUZZ_SEED: option('seed', '15') };
const result = spawnSync('npx', ['vitest', 'run', 'test/network/protocol-fuzz.test.ts', '--testTimeout', '0'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);

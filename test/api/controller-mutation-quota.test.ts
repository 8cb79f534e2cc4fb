import { describe, expect, it } from 'vitest';
import { ControllerMutationQuotaManager, MAX_TRACKED_CLIENTS } from '../../host/api/controller-mutation-quota.js';
import { ManualTime } from '../../host/io/time.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';

// rate 10/s, burst 10 x 2 windows x 1 s = 20 tokens.
const config = { controllerMutationRate: 10, controllerQuotaWindowNum: 2, controllerQuotaWindowSizeSeconds: 1 };

describe('Controller mutation quota (KIP-599 token bucket per principal and client id)', () => {
  it('strict: accepts a mutation that finds tokens, even one larger than the burst, then refuses with THROTTLING_QUOTA_EXCEEDED until refilled', () => {
    const time = new ManualTime();
    const quotas = new ControllerMutationQuotaManager(config, time);
    const quota = quotas.quotaFor('User:ANONYMOUS', 'admin', 6, 6);
    expect(quota.strict).toBe(true);
    expect(quota.record(25)).toBeNull(); // 20 - 25 = -5 tokens
    expect(quota.throttleTimeMs()).toBe(500);
    const refused = quota.record(1);
    expect(refused).toMatchObject({ errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED, throttleTimeMs: 500 });
    expect(refused!.errorMessage).toContain('controller.mutation.rate');
    time.advance(499);
    expect(quota.record(1)).not.toBeNull();
    time.advance(1);
    expect(quota.record(1)).toBeNull();
  });

  it('permissive (older versions): never refuses, reports how long the answer is held', () => {
    const time = new ManualTime();
    const quotas = new ControllerMutationQuotaManager(config, time);
    const quota = quotas.quotaFor('User:ANONYMOUS', 'old', 4, 6);
    expect(quota.strict).toBe(false);
    expect(quota.record(30)).toBeNull();
    expect(quota.record(10)).toBeNull();
    expect(quota.throttleTimeMs()).toBe(2000);
  });

  it('keeps one bucket per client id, and a rate of 0 disables the quota', () => {
    const time = new ManualTime();
    const quotas = new ControllerMutationQuotaManager(config, time);
    quotas.quotaFor('User:ANONYMOUS', 'a', 6, 6).record(100);
    expect(quotas.quotaFor('User:ANONYMOUS', 'b', 6, 6).record(1)).toBeNull();
    expect(quotas.quotaFor('User:ANONYMOUS', 'a', 6, 6).record(1)).not.toBeNull();
    const off = new ControllerMutationQuotaManager({ ...config, controllerMutationRate: 0 }, time).quotaFor('User:ANONYMOUS', 'a', 6, 6);
    expect(off.record(1_000_000)).toBeNull();
    expect(off.throttleTimeMs()).toBe(0);
  });

  it('remembers at most MAX_TRACKED_CLIENTS client ids however many a client invents', () => {
    const time = new ManualTime();
    const quotas = new ControllerMutationQuotaManager(config, time);
    for (let i = 0; i < MAX_TRACKED_CLIENTS + 500; i++) quotas.quotaFor('User:ANONYMOUS', `c${i}`, 6, 6).record(1);
    expect(quotas.trackedClients).toBeLessThanOrEqual(MAX_TRACKED_CLIENTS);
  });
});

import { describe, expect, it } from 'vitest';
import { autoCreateRefusalLog } from '../../host/api/auto-topic-creation.js';
import { ManualTime } from '../../host/io/time.js';

describe('autoCreateRefusalLog', () => {
  it('lets one auto_create.refused line through per 10 s for the whole broker, counting the requests left out', () => {
    const time = new ManualTime();
    const log = autoCreateRefusalLog(time);
    expect(log.check()).toEqual({ log: true, suppressed: 0 });
    for (let i = 0; i < 999; i++) expect(log.check().log).toBe(false);
    time.advance(9_999);
    expect(log.check().log).toBe(false);
    time.advance(1);
    expect(log.check()).toEqual({ log: true, suppressed: 1000 });
  });
});

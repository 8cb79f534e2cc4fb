/** LogThrottle: the first event of a key logs, the rest of its interval are counted, the next line reports them. */
import { describe, expect, it } from 'vitest';
import { LogThrottle } from '../../host/observability/log-throttle.js';

describe('LogThrottle', () => {
  it('logs the first event of a key, counts the rest of the interval and reports them with the next line', () => {
    const throttle = new LogThrottle(1_000);
    expect(throttle.check('a', 0)).toEqual({ log: true, suppressed: 0 });
    expect(throttle.check('a', 10)).toEqual({ log: false, suppressed: 1 });
    expect(throttle.check('a', 999)).toEqual({ log: false, suppressed: 2 });
    expect(throttle.check('b', 999)).toEqual({ log: true, suppressed: 0 });
    expect(throttle.check('a', 1_000)).toEqual({ log: true, suppressed: 2 });
    expect(throttle.check('a', 1_500)).toEqual({ log: false, suppressed: 1 });
  });

  it('remembers at most maxKeys keys, evicting the oldest', () => {
    const throttle = new LogThrottle(1_000, 2);
    throttle.check('a', 0);
    throttle.check('b', 0);
    throttle.check('c', 0);
    // 'a' was evicted: it logs again at once.
    expect(throttle.check('a', 1)).toEqual({ log: true, suppressed: 0 });
    expect(throttle.check('c', 1)).toEqual({ log: false, suppressed: 1 });
  });
});

import { createLogger, startPump } from '@studium/platform';
import { describe, expect, it } from 'vitest';

const log = createLogger('pump-test', 'silent');

describe('startPump', () => {
  it('runs one pass at a time and one more when kicked during a pass', async () => {
    let active = 0;
    let maxActive = 0;
    let passes = 0;
    let gate: Promise<void> | null = null;
    let open: () => void = () => {};
    const pump = startPump(
      async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        passes++;
        if (gate) await gate;
        active--;
        return 1;
      },
      { intervalMs: 60_000, log, name: 'test' },
    );
    await pump.flush(); // the pass started at once, then the flush's own
    expect(passes).toBe(2);
    gate = new Promise<void>((r) => (open = r));
    const running = pump.kick(); // pass 3 starts and waits at the gate
    void pump.kick(); // during it: asks for one more
    void pump.kick(); // asked again: still one more, not two
    gate = null;
    open();
    expect(await running).toBe(2); // pass 3 and its one repeat
    expect(passes).toBe(4);
    expect(maxActive).toBe(1);
    await pump.stop();
  });

  it('logs a failed pass and keeps running on the next kick', async () => {
    let calls = 0;
    const pump = startPump(
      async () => {
        calls++;
        if (calls === 1) throw new Error('dependency away');
        return 5;
      },
      { intervalMs: 60_000, log, name: 'test' },
    );
    expect(await pump.flush()).toBe(5);
    await pump.stop();
    expect(await pump.kick()).toBe(0);
  });
});

/**
 * The simulator's clock. In `real` mode it follows the wall clock; in `manual` mode it stands
 * still until advanced. Either way `advance()` moves it forward, so the 10 s, 120 s, 72 h and 81 h
 * rules can be exercised without waiting.
 */
export class SimClock {
  readonly mode: 'real' | 'manual';
  private offsetMs = 0;
  private readonly manualStart: number;

  constructor(mode: 'real' | 'manual' = 'real', start: number = Date.now()) {
    this.mode = mode;
    this.manualStart = start;
  }

  now(): number {
    return (this.mode === 'real' ? Date.now() : this.manualStart) + this.offsetMs;
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0)
      throw new RangeError(`cannot advance the clock by ${ms} ms`);
    this.offsetMs += ms;
  }
}

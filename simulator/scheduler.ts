import type { SimClock } from './clock.ts';

interface Task {
  readonly at: number;
  readonly seq: number;
  readonly run: () => unknown;
}

/**
 * Work due at a simulated time (report generation, webhook retries, confirm deadlines). Tasks run
 * when the clock reaches them: on a short real-time tick, and at once after the clock is advanced.
 * Tasks scheduled while running that are already due run in the same pass.
 */
export class Scheduler {
  private tasks: Task[] = [];
  private seq = 0;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly clock: SimClock) {}

  /** Runs `run` once the clock reaches `at` (epoch ms, simulated). */
  at(at: number, run: () => unknown): void {
    this.tasks.push({ at, seq: this.seq++, run });
  }

  /** Runs `run` after `delayMs` of simulated time. */
  after(delayMs: number, run: () => unknown): void {
    this.at(this.clock.now() + delayMs, run);
  }

  get pending(): number {
    return this.tasks.length;
  }

  /** Runs every due task and waits for the asynchronous ones (webhook posts) to settle. */
  async runDue(): Promise<void> {
    if (this.running) await this.running;
    this.running = this.drain();
    try {
      await this.running;
    } finally {
      this.running = undefined;
    }
  }

  private async drain(): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const due = this.tasks
        .filter((task) => task.at <= now)
        .sort((a, b) => a.at - b.at || a.seq - b.seq);
      if (due.length === 0 && this.inFlight.size === 0) return;
      this.tasks = this.tasks.filter((task) => task.at > now);
      for (const task of due) {
        const result = Promise.resolve()
          .then(task.run)
          .catch((error: unknown) => console.error('simulator task failed', error));
        this.inFlight.add(result);
        void result.finally(() => this.inFlight.delete(result));
      }
      await Promise.all([...this.inFlight]);
    }
  }

  /** Starts the real-time tick. */
  start(intervalMs = 50): void {
    this.timer ??= setInterval(() => void this.runDue(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

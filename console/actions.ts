import { randomUUID } from 'node:crypto';

/*
 * The operator's actions started from the console (redrive, republish, replay) run in the
 * console's process, one job each; the page of a job polls its progress. Jobs are kept in memory
 * for the life of the process (the last 50).
 */

export type ActionKind = 'redrive' | 'republish' | 'replay';

export interface Job {
  readonly id: string;
  readonly kind: ActionKind;
  readonly label: string;
  readonly startedAt: string;
  state: 'running' | 'done' | 'failed';
  done: number;
  total: number | undefined;
  /** What the action reported when it ended (or why it failed). */
  message: string | undefined;
  endedAt: string | undefined;
}

export interface Progress {
  total(total: number): void;
  update(done: number): void;
}

const KEEP = 50;

export class Jobs {
  private readonly jobs = new Map<string, Job>();

  /** Starts `run` in the background; it returns the line shown when it ends. */
  start(kind: ActionKind, label: string, run: (progress: Progress) => Promise<string>): Job {
    const job: Job = {
      id: randomUUID(),
      kind,
      label,
      startedAt: new Date().toISOString(),
      state: 'running',
      done: 0,
      total: undefined,
      message: undefined,
      endedAt: undefined,
    };
    this.jobs.set(job.id, job);
    for (const id of [...this.jobs.keys()].slice(0, Math.max(0, this.jobs.size - KEEP)))
      this.jobs.delete(id);
    const progress: Progress = {
      total: (total) => {
        job.total = total;
      },
      update: (done) => {
        job.done = done;
      },
    };
    void run(progress).then(
      (message) => {
        job.state = 'done';
        job.message = message;
        job.endedAt = new Date().toISOString();
      },
      (error: unknown) => {
        job.state = 'failed';
        job.message = error instanceof Error ? error.message : String(error);
        job.endedAt = new Date().toISOString();
      },
    );
    return job;
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  list(): Job[] {
    return [...this.jobs.values()].reverse();
  }
}

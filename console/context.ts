import type { Target } from '../ops/target.ts';
import type { Jobs } from './actions.ts';
import type { EventLogReader } from './event-log.ts';

/** What every page of one console shares. */
export interface ConsoleContext {
  readonly target: Target;
  readonly onStack: boolean;
  /** This process's CSRF token, carried by every form. */
  readonly csrf: string;
  readonly jobs: Jobs;
  /** The local run's events file, read incrementally and never whole; undefined on a stack. */
  readonly eventLog: EventLogReader | undefined;
  readonly read: (path: string) => Promise<string>;
  readonly now: () => Date;
  readonly options: {
    readonly tpsQuota?: number;
    readonly sleep?: (ms: number) => Promise<void>;
  };
}

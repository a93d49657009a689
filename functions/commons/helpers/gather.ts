import { AsyncResource } from 'node:async_hooks';

/** What one gathered item came to: its own value, or its own error. */
export type Gathered<R> =
  | { readonly ok: true; readonly value: R }
  | { readonly ok: false; readonly error: unknown };

export interface GatherOptions<T, R> {
  /** The most weight a group holds; a group that reaches it goes at once. */
  readonly capacity: number;
  /** An item's weight. @default 1 */
  readonly weight?: (item: T) => number;
  /** How long a group's first item waits for others. */
  readonly gatherMs: number;
  /** Handles a group, answering one outcome per item, in order. */
  readonly flush: (items: readonly T[]) => Promise<ReadonlyArray<Gathered<R>>>;
  /** @default a timer */
  readonly schedule?: (run: () => void, ms: number) => void;
}

interface Waiting<T, R> {
  readonly item: T;
  readonly resolve: (value: R) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Runs `run` in the async context of this module's loading, not of the caller: a group's call
 * belongs to none of the requests in it, so what happens to one of them (the local run's stand-in
 * for a sandbox frozen mid-invocation stalls every call made in that invocation's context) cannot
 * hold up the others.
 */
const detached = AsyncResource.bind(<V>(run: () => V): V => run());

/**
 * Gathers the items asked for within `gatherMs` of one another into groups of at most `capacity`
 * weight and hands each group to `flush` once; each caller gets its own item's outcome. An item as
 * heavy as `capacity` goes alone and at once.
 */
export const gatherer = <T, R>({
  capacity,
  weight = () => 1,
  gatherMs,
  flush,
  schedule = (run, ms) => setTimeout(run, ms),
}: GatherOptions<T, R>): ((item: T) => Promise<R>) => {
  let open: { weight: number; readonly waiting: Array<Waiting<T, R>> } | undefined;

  const send = (group: { readonly waiting: ReadonlyArray<Waiting<T, R>> }): void => {
    if (open === group) open = undefined;
    const { waiting } = group;
    detached(() =>
      flush(waiting.map((w) => w.item)).then(
        (outcomes) =>
          waiting.forEach((w, index) => {
            const outcome = outcomes[index];
            if (outcome === undefined) w.reject(new Error('gatherer: no outcome for an item'));
            else if (outcome.ok) w.resolve(outcome.value);
            else w.reject(outcome.error);
          }),
        (error: unknown) => {
          for (const w of waiting) w.reject(error);
        },
      ),
    );
  };

  return (item: T) =>
    new Promise<R>((resolve, reject) => {
      const heft = weight(item);
      if (open && open.weight + heft > capacity) send(open);
      if (!open) {
        const group = { weight: 0, waiting: [] as Array<Waiting<T, R>> };
        open = group;
        detached(() =>
          schedule(() => {
            if (open === group) send(group);
          }, gatherMs),
        );
      }
      const group = open;
      group.weight += heft;
      group.waiting.push({ item, resolve, reject });
      if (group.weight >= capacity) send(group);
    });
};

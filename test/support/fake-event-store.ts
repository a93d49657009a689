import type { EventRecord } from '../../functions/event-table/event-record.ts';
import type { EventStore } from '../../functions/event-table/ports.ts';

/**
 * An in-memory event table with DynamoDB's conditional-put semantics, plus scripted failures:
 * `failNext(n)` makes the next n puts throw as a throttled DynamoDB call would.
 */
export class FakeEventStore implements EventStore {
  readonly items = new Map<string, EventRecord>();
  puts = 0;
  private failures = 0;
  private readonly failingKeys = new Set<string>();

  failNext(count: number): void {
    this.failures += count;
  }

  /** Every put of this `pk` throws until {@link heal} is called. */
  failKey(pk: string): void {
    this.failingKeys.add(pk);
  }

  heal(): void {
    this.failures = 0;
    this.failingKeys.clear();
  }

  async putIfAbsent(record: EventRecord): Promise<'stored' | 'duplicate'> {
    this.puts += 1;
    await Promise.resolve();
    if (this.failures > 0 || this.failingKeys.has(record.pk)) {
      if (this.failures > 0) this.failures -= 1;
      throw Object.assign(new Error('Throughput exceeds the current capacity'), {
        name: 'ProvisionedThroughputExceededException',
      });
    }
    // Keys as DynamoDB keeps them: UTF-8, in which an unpaired surrogate becomes U+FFFD.
    const key = Buffer.from(`${record.pk}|${record.sk}`, 'utf8').toString('utf8');
    if (this.items.has(key)) return 'duplicate';
    this.items.set(key, record);
    return 'stored';
  }

  /** Stored records of one kind. */
  ofKind(kind: EventRecord['kind']): EventRecord[] {
    return [...this.items.values()].filter((record) => record.kind === kind);
  }

  /** The parsed `detail` of every stored record of one kind. */
  details(
    kind: EventRecord['kind'],
  ): Array<{ metadata: Record<string, unknown>; data: Record<string, unknown> }> {
    return this.ofKind(kind).map((record) => JSON.parse(record.detail));
  }
}

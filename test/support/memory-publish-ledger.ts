import type { StoredMarker } from '../../functions/publishing/adapters/dynamodb-publish-ledger.ts';
import {
  type ItemKey,
  type MarkerState,
  markerId,
  type PublishLedger,
  type PublishMarker,
} from '../../functions/publishing/ports.ts';

/**
 * The publisher's ledger in memory, written from the port's contract (a durable key-value store
 * whose reads and writes can fail, a batch write that may leave some items unprocessed), with
 * scripted faults: `failCall()` decides, per call, whether it throws; `dropItem()` whether one
 * item of a batch write is left unprocessed.
 */
export class MemoryPublishLedger implements PublishLedger {
  readonly markers = new Map<string, PublishMarker>();
  redelivery = false;
  writes = 0;
  reads = 0;
  /** Calls that threw, and markers left unwritten, by injection. */
  failedCalls = 0;
  readonly dropped = new Set<string>();

  constructor(
    private readonly faults: {
      readonly failCall?: (operation: string) => boolean;
      readonly dropItem?: () => boolean;
    } = {},
  ) {}

  private check(operation: string): void {
    if (this.faults.failCall?.(operation)) {
      this.failedCalls += 1;
      throw Object.assign(new Error(`injected ${operation} failure`), {
        name: 'ProvisionedThroughputExceededException',
      });
    }
  }

  async redeliveryExpected(): Promise<boolean> {
    this.reads += 1;
    this.check('redeliveryExpected');
    return this.redelivery;
  }

  async expectRedelivery(): Promise<void> {
    this.writes += 1;
    this.check('expectRedelivery');
    this.redelivery = true;
  }

  async find(keys: readonly ItemKey[]): Promise<ReadonlyMap<string, MarkerState>> {
    this.reads += 1;
    this.check('find');
    const found = new Map<string, MarkerState>();
    for (const key of keys) {
      const marker = this.markers.get(markerId(key));
      if (marker) found.set(markerId(key), marker.state);
    }
    return found;
  }

  async write(markers: readonly PublishMarker[]): Promise<ReadonlySet<string>> {
    this.writes += 1;
    this.check('write');
    const written = new Set<string>();
    for (const marker of markers) {
      if (this.faults.dropItem?.()) {
        this.dropped.add(markerId(marker.key));
        continue;
      }
      this.markers.set(markerId(marker.key), marker);
      written.add(markerId(marker.key));
    }
    return written;
  }

  /** The same markers and flag, without the faults (the state table back to normal). */
  healed(): MemoryPublishLedger {
    const healed = new MemoryPublishLedger();
    for (const [id, marker] of this.markers) healed.markers.set(id, marker);
    healed.redelivery = this.redelivery;
    return healed;
  }

  /** The `unpublished` markers, as `msgbridge events republish` lists them. */
  async listUnpublished(): Promise<StoredMarker[]> {
    this.check('listUnpublished');
    return [...this.markers.values()]
      .filter((marker) => marker.state === 'unpublished')
      .map((marker) => ({ ...marker, markedAt: '2026-11-21T00:00:00.000Z' }));
  }

  /** The keys marked `unpublished`. */
  unpublished(): string[] {
    return [...this.markers.entries()]
      .filter(([, marker]) => marker.state === 'unpublished')
      .map(([id]) => id);
  }
}

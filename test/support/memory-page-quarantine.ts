import {
  POLLED_QUARANTINE_PREFIX,
  type PolledPage,
  type PolledPageKind,
  type PolledPageQuarantine,
} from '../../functions/polling/polled-page-quarantine.ts';

/**
 * Kept pages in memory, listed in key order as S3 lists them, with scripted faults:
 * `failKeeps(n)` makes the next n keeps throw, as an unreachable bucket would.
 */
export class MemoryPageQuarantine implements PolledPageQuarantine {
  readonly pages = new Map<string, PolledPage>();
  readonly removed: string[] = [];
  private keepFailures = 0;
  private sequence = 0;

  failKeeps(count: number): void {
    this.keepFailures += count;
  }

  async keep(page: PolledPage, at: Date): Promise<string> {
    await Promise.resolve();
    if (this.keepFailures > 0) {
      this.keepFailures -= 1;
      throw Object.assign(new Error('Service Unavailable'), { name: 'ServiceUnavailable' });
    }
    this.sequence += 1;
    const location = `${POLLED_QUARANTINE_PREFIX}${page.kind}/${at.toISOString()}-${String(this.sequence).padStart(4, '0')}.json`;
    this.pages.set(location, page);
    return location;
  }

  async list(kind: PolledPageKind, limit: number): Promise<string[]> {
    return [...this.pages.keys()]
      .filter((location) => location.startsWith(`${POLLED_QUARANTINE_PREFIX}${kind}/`))
      .sort()
      .slice(0, limit);
  }

  async read(location: string): Promise<string> {
    const page = this.pages.get(location);
    if (page === undefined) throw new Error(`NoSuchKey: ${location}`);
    return page.body;
  }

  async remove(location: string): Promise<void> {
    this.pages.delete(location);
    this.removed.push(location);
  }

  /** Kept pages of one kind. */
  ofKind(kind: PolledPageKind): PolledPage[] {
    return [...this.pages.values()].filter((page) => page.kind === kind);
  }
}

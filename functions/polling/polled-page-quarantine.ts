/**
 * Durable quarantine of polled pages: where a page goes when its items could not be stored in the
 * event table after every attempt. It must be another failure domain than the event table (an
 * S3 bucket, not another table item), so that the fault that stopped the puts does not also stop
 * this write.
 */

/** Which poller kept a page aside; also the key segment below the quarantine prefix. */
export type PolledPageKind = 'reports' | 'mo';

/** The key prefix of every kept page; the poller may use objects below it only. */
export const POLLED_QUARANTINE_PREFIX = 'quarantine/polled/';

export interface PolledPage {
  readonly kind: PolledPageKind;
  /**
   * The exact body the poller handed to the receive path (`{"rptLst":[...]}` or
   * `{"moLst":[...]}`): re-ingesting this same text keys every item, quarantined ones included,
   * exactly as the first attempt did, so nothing is stored or published twice.
   */
  readonly body: string;
  /** Why the page was kept aside, for the operator. */
  readonly reason: string;
  /** The report page's key, for correlation with the gateway (reports only). */
  readonly rptKey?: string;
}

/** The port; {@link S3PolledPageQuarantine} implements it on the attachment bucket. */
export interface PolledPageQuarantine {
  /** Keeps `page` durably and answers where; throws when it could not. */
  keep(page: PolledPage, at: Date): Promise<string>;
  /** Where kept pages of `kind` are, oldest first, at most `limit`. */
  list(kind: PolledPageKind, limit: number): Promise<string[]>;
  /** The body of a kept page, as {@link PolledPage.body}. */
  read(location: string): Promise<string>;
  /** Removes a kept page: only once every item in it is stored. */
  remove(location: string): Promise<void>;
}

/**
 * The chaos run's invariants on bad sends (oversized, nested, a reused cliKey), checked on a
 * hand-made outcome: a run where each bad message has its one "Send Rejected" holds, and each
 * broken promise planted in it (a missing or second rejection, a rejection naming the wrong first
 * message, the gateway given the reuse's content, an event over the bus's limit, a body too big
 * for an item without its payloadRef) makes the run fail.
 */
import { describe, expect, it } from 'vitest';
import {
  checkInvariants,
  type GatewayLedger,
  holds,
  type QueuedBadSend,
} from '../../chaos/invariants.ts';
import type { BusEntry } from '../../functions/publishing/ports.ts';
import { oneSendWorkload } from '../support/chaos-workload.ts';

const workload = oneSendWorkload('webhook');

/** k1 was sent once, to the first message's phone; its report is not due yet. */
const ledger = (phone = '01011110000'): GatewayLedger => ({
  acceptances: [
    { cliKey: 'k1', msgKey: 'M1', phone, requestedAt: 0, deliverAt: 0, reported: false },
  ],
  tpsQuota: 20,
  quotaRefusals: 0,
  mo: [],
});

const badSends: QueuedBadSend[] = [
  { kind: 'oversized', sqsMessageId: 'sqs-big', bytes: 600_000, cliKeys: ['bad-big'] },
  { kind: 'nested', sqsMessageId: 'sqs-deep', bytes: 40_000, cliKeys: ['bad-deep'] },
  {
    kind: 'reused',
    sqsMessageId: 'sqs-reuse',
    bytes: 300,
    cliKeys: ['k1'],
    reuse: {
      cliKey: 'k1',
      firstSqsMessageId: 'sqs-first',
      firstPhones: { k1: '01011110000' },
      phones: { k1: '01022220000' },
    },
  },
];

const rejected = (sqsMessageId: string, data: Record<string, unknown> = {}, id = sqsMessageId) =>
  ({
    Source: 'msgbridge',
    DetailType: 'Send Rejected',
    Time: new Date(0),
    Detail: JSON.stringify({
      metadata: { id: `id-${id}`, type: 'Send Rejected', idempotencyKey: `rejected:${id}` },
      data: { sqsMessageId, ...data },
    }),
  }) satisfies BusEntry;

const payloadRef = { bucket: 'payloads', key: 'payloads/send/abc' };
const reusedCliKey = { cliKey: 'k1', sqsMessageId: 'sqs-first' };
const allRejected = (): BusEntry[] => [
  rejected('sqs-big', { payloadRef }),
  rejected('sqs-deep'),
  rejected('sqs-reuse', { reusedCliKey }),
];

const check = (entries: BusEntry[], gateway = ledger()) =>
  checkInvariants({
    workload,
    ledger: gateway,
    entries,
    unavoidable: new Set(),
    hostileAnswers: new Map(),
    acceptedEvents: false,
    badSends,
  });

describe('the chaos invariants on bad sends', () => {
  it('hold when every bad message is one Send Rejected and the first of a reuse was sent', () => {
    // Act
    const verdict = check(allRejected());

    // Assess
    expect(verdict.violations).toEqual([]);
    expect(verdict).toMatchObject({ badSends: 3, rejectedOnce: 3, laterWon: 0 });
    expect(holds(verdict)).toBe(true);
  });

  it('hold when the later message claimed first: it is sent, the first rejected naming it', () => {
    // Prepare
    const entries = [
      ...allRejected().slice(0, 2),
      rejected('sqs-first', { reusedCliKey: { cliKey: 'k1', sqsMessageId: 'sqs-reuse' } }),
    ];

    // Act
    const verdict = check(entries, ledger('01022220000'));

    // Assess
    expect(verdict.violations).toEqual([]);
    expect(verdict.laterWon).toBe(1);
    expect(holds(verdict)).toBe(true);
  });

  it('fail on a bad message without its Send Rejected', () => {
    const verdict = check(allRejected().filter((entry) => !entry.Detail.includes('sqs-deep')));

    expect(verdict.lost).toBe(1);
    expect(verdict.violations).toEqual([
      { invariant: 'lost', item: 'rejection nested sqs-deep', detail: 'no Send Rejected event' },
    ]);
    expect(holds(verdict)).toBe(false);
  });

  it('fail on a second Send Rejected for one message', () => {
    const verdict = check([...allRejected(), rejected('sqs-deep', {}, 'again')]);

    expect(verdict.duplicated).toBe(1);
    expect(holds(verdict)).toBe(false);
  });

  it('fail on a reuse rejected naming another message than its first', () => {
    const entries = [
      ...allRejected().slice(0, 2),
      rejected('sqs-reuse', { reusedCliKey: { cliKey: 'k1', sqsMessageId: 'sqs-other' } }),
    ];

    const verdict = check(entries);

    expect(verdict.misattributed).toBe(1);
    expect(holds(verdict)).toBe(false);
  });

  it('fail when both the first and its reuse are rejected', () => {
    const verdict = check([...allRejected(), rejected('sqs-first', { reusedCliKey })]);

    expect(verdict.misattributed).toBe(1);
    expect(holds(verdict)).toBe(false);
  });

  it("fail when the gateway got the rejected reuse's phone", () => {
    const verdict = check(allRejected(), ledger('01022220000'));

    expect(verdict.badSent).toBe(1);
    expect(holds(verdict)).toBe(false);
  });

  it("fail when the gateway accepted an invalid message's cliKey", () => {
    const gateway = ledger();
    const verdict = check(allRejected(), {
      ...gateway,
      acceptances: [
        ...gateway.acceptances,
        { cliKey: 'bad-deep', msgKey: 'M2', requestedAt: 0, deliverAt: 0, reported: false },
      ],
    });

    expect(verdict.badSent).toBe(1);
    expect(holds(verdict)).toBe(false);
  });

  it('fail on a Send Rejected over the bus limit of 256 KiB', () => {
    const entries = [
      ...allRejected().slice(1),
      rejected('sqs-big', { payloadRef, body: 'x'.repeat(256 * 1024) }),
    ];

    const verdict = check(entries);

    expect(verdict.tooBigForBus).toBe(1);
    expect(holds(verdict)).toBe(false);
  });

  it('fail on a body over the item limit whose event has no payloadRef', () => {
    const verdict = check([rejected('sqs-big'), ...allRejected().slice(1)]);

    expect(verdict.misattributed).toBe(1);
    expect(holds(verdict)).toBe(false);
  });
});

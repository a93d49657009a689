/**
 * Where a lost report stopped, as the chaos run prints it (`chaos/trail.ts`): the steps recorded
 * while the run went on (the send's delivery and the gateway's answer, the report check on its
 * queue, the reconcile-status invocation that had it and its counts, the status query's answer),
 * then what the run's end found and where the report's way stopped, printed under its "lost"
 * violation; and the gateway's answers, which the trail reads off the simulator's HTTP server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkInvariants } from '../../chaos/invariants.ts';
import { printViolations } from '../../chaos/report.ts';
import type { ReportState } from '../../chaos/report-state.ts';
import { ReportTrail } from '../../chaos/trail.ts';
import type { SendMessage } from '../../functions/send-contract/queue-message.ts';
import { oneSendWorkload } from '../support/chaos-workload.ts';

const workload = oneSendWorkload('polling');

/** k1 was accepted as M1 and the gateway made its report; nothing reached the bus. */
const lostReport = () =>
  checkInvariants({
    workload,
    ledger: {
      acceptances: [
        { cliKey: 'k1', msgKey: 'M1', requestedAt: 1_000, deliverAt: 1_000, reported: true },
      ],
      tpsQuota: 20,
      quotaRefusals: 0,
      mo: [],
    },
    entries: [],
    unavoidable: new Set(),
    hostileAnswers: new Map(),
    acceptedEvents: false,
    badSends: [],
  });

const check = JSON.stringify({
  v: 1,
  channel: 'sms',
  acceptedAt: '2026-12-08T01:00:01.000Z',
  recipients: [{ cliKey: 'k1', msgKey: 'M1' }],
});

/** What the run's end found: nothing stored, nothing queued. */
const found = (facts: Partial<ReportState> = {}): ReportState => ({
  gateway: 'accepted cliKey k1 at +1.0 s (1 acceptance(s)); status DONE, report 10000 (SMS)',
  table: ['REPORT#M1: nothing'],
  queue: ['report-check queue: nothing naming it', 'report-check DLQ: nothing naming it'],
  bus: 'no event of the report or its recipient',
  stored: false,
  published: false,
  checkQueued: false,
  checkInDlq: false,
  unknownOpen: false,
  sendInDlq: false,
  sendQueued: false,
  ...facts,
});

const envelope = (data: unknown) => JSON.stringify({ code: '10000', message: 'success', data });

describe('the trail of a lost report', () => {
  it('is printed under its violation: each step in time order, what the end found, where it stopped', async () => {
    // Prepare: the run's clock, and the steps as the hooks record them.
    let now = 0;
    const trail = new ReportTrail(0, () => now);
    const gateway = trail.watchSends({
      send: async () => ({
        kind: 'immediate',
        results: [{ cliKey: 'k1', code: '10000', message: 'success', msgKey: 'M1' }],
      }),
    });
    now = 1_000;
    await gateway.send({
      channel: 'sms',
      body: {
        callback: '0215880000',
        msg: 'hello',
        recvInfoLst: [{ cliKey: 'k1', phone: '01011110000' }],
      },
    } as unknown as SendMessage);
    now = 1_200;
    trail.checkQueued('send-messages', check, { messageId: 'check-0001' });
    now = 61_000;
    trail.checksReceived('reconcile-status', [
      {
        MessageId: 'check-0001',
        ReceiptHandle: 'receipt-1',
        Body: check,
        Attributes: { ApproximateReceiveCount: '1' },
      },
    ]);
    const logger = trail.loggerFor('reconcile-status');
    await trail.watchInvocation('reconcile-status', async () => {
      now = 61_500;
      trail.statusAnswered(200, envelope({ cliKeyLst: [{ cliKey: 'k1', status: 'ING' }] }));
      logger.info('report checks done', {
        run: { checksReceived: 1, checksFinished: 1, statusQueries: 1, stoppedBy: 'complete' },
      });
      now = 62_000;
      return { batchItemFailures: [] };
    })({
      Records: [
        {
          messageId: 'check-0001',
          body: check,
          eventSource: 'aws:sqs',
          attributes: { ApproximateReceiveCount: '1' },
        },
      ],
    });
    trail.checksDeleted(['receipt-1']);
    const verdict = lostReport();
    const lines: string[] = [];

    // Act
    printViolations(
      verdict,
      (line) => lines.push(line),
      new Map([['report M1', trail.describe('M1', 'k1', found())]]),
    );

    // Assess
    expect(lines).toEqual([
      '  VIOLATION lost: report M1: no event',
      '    trail of report M1 (cliKey k1):',
      '      gateway: accepted cliKey k1 at +1.0 s (1 acceptance(s)); status DONE, report 10000 (SMS); never handed out by a poll page or a webhook post (withheld)',
      '      +1.0 s send call answered 10000 (msgKey M1)',
      '      +1.2 s check check-00 queued by send-messages (acceptedAt 2026-12-08T01:00:01.000Z, msgKey M1, 1 recipients)',
      '      +61.0 s check check-00 received by reconcile-status (receive 1)',
      '      +61.0 s reconcile-status invocation 1 started with check check-00 and 0 more',
      '      +61.5 s status query answered ING',
      '      +62.0 s reconcile-status invocation 1 ended: check check-00 done with (finished, or put back as a new message); run: checksReceived=1 checksFinished=1 statusQueries=1 stoppedBy=complete',
      '      +62.0 s check check-00 deleted from the queue',
      '      now, event table: REPORT#M1: nothing',
      '      now, report-check queue: nothing naming it',
      '      now, report-check DLQ: nothing naming it',
      '      now, bus: no event of the report or its recipient',
      '      where it stopped: its check is gone; the status query never answered DONE (last: status query answered ING)',
    ]);
  });

  it('says what a lost report waits for: an unknown send outcome no reconcile-status run resolved', () => {
    const trail = new ReportTrail(0, () => 0);

    const lines = trail.describe('M1', 'k1', found({ unknownOpen: true }));

    expect(lines.at(-1)).toBe(
      '  where it stopped: its send ended as an unknown outcome that no reconcile-status run has resolved yet: no report check is queued until one does',
    );
  });

  it('says a report whose acceptance no delivery recorded has its send message in the DLQ', () => {
    const trail = new ReportTrail(0, () => 0);

    const lines = trail.describe('M1', 'k1', found({ sendInDlq: true }));

    expect(lines.at(-1)).toBe(
      '  where it stopped: its send message is in the send DLQ and no delivery recorded the acceptance or an unknown outcome: no report check until the DLQ is redriven',
    );
  });
});

describe("the trail's reading of the gateway", () => {
  let server: Server | undefined;
  let unwatch: (() => void) | undefined;
  afterEach(async () => {
    unwatch?.();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('takes the status query answers and the poll pages off the gateway simulator', async () => {
    // Prepare: a gateway that answers as the simulator does.
    server = createServer((request, response) => {
      const body =
        request.url === '/msg/v1/sent'
          ? envelope({
              cliKeyLst: [
                { cliKey: 'k1', msgKey: 'M1', status: 'DONE', resultCode: '10000', ch: 'SMS' },
              ],
            })
          : envelope({ rptKey: 'R1', rptCnt: 1, rptLst: [{ msgKey: 'M2', resultCode: '10000' }] });
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const trail = new ReportTrail(Date.now());
    trail.gatewayPort = port;
    unwatch = trail.watchGateway();

    // Act
    await (
      await fetch(`http://127.0.0.1:${port}/msg/v1/sent`, { method: 'POST', body: '{}' })
    ).text();
    await (await fetch(`http://127.0.0.1:${port}/msg/v1.2/report`)).text();

    // Assess
    expect(trail.describe('M1', 'k1', found()).join('\n')).toContain(
      'status query answered DONE 10000 (SMS), msgKey M1',
    );
    expect(trail.describe('M2', undefined, found()).join('\n')).toMatch(
      /handed out \(see below\)\n.*handed out by a poll page \(10000\)/,
    );
  });
});

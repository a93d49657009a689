/**
 * Where each delivery report went on its way to the bus, recorded from outside the bridge while
 * the chaos run goes on, so that a report the run calls lost can be followed to where it stopped.
 * A report reaches the bridge by a poll page or a webhook post, or, when the gateway never hands
 * it out (withheld), only through its recipient's report check: send-messages queues a check per
 * acceptance (reconcile-status queues one for an unknown outcome it finds accepted), and
 * reconcile-status, invoked with the due checks, asks the gateway's status query and stores a
 * finished status as the report. Recorded here: each delivery of a send message to send-messages
 * and how it ended (a killed invocation included) with the gateway's answer per recipient, the
 * gateway's answers to polls (the pages that handed a report out) and status queries, the
 * webhook bodies, the report checks on their queue (queued, received, put back, deleted) and the
 * reconcile-status invocations that had them, with how each ended. Once the run is over, what
 * the simulator, the event table, the queues and the bus hold for a lost report is read and
 * printed under its violation, with where its way stopped.
 *
 * Nothing here changes what the bridge does: the hooks only read calls, answers and invocations.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Logger } from '@aws-lambda-powertools/logger';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { recipientsOf } from '../functions/send-contract/queue-message-recipients.ts';
import type { SendGateway } from '../functions/sending/ports.ts';
import type { LocalBridge } from '../local/bridge.ts';
import type { Verdict } from './invariants.ts';
import { type ReportState, reportState, short, stoppedAt } from './report-state.ts';
import { checkOf, envelopeOf, isSqsEvent } from './trail-bodies.ts';

/** One thing that happened to a report or its recipient, at a wall-clock time. */
interface Step {
  readonly at: number;
  readonly text: string;
}

/** One reconcile-status invocation with a batch of report checks. */
interface Invocation {
  readonly number: number;
  readonly checks: readonly string[];
  /** The run's counts, as its handler logged them. */
  run?: Record<string, unknown>;
  /** Warnings and errors it logged (the token provider's, say). */
  readonly notes: string[];
}

const COUNTS_SHOWN = [
  'checksReceived',
  'checksFinished',
  'checksPostponed',
  'alreadyRecorded',
  'statusQueries',
  'keysQueried',
  'reportsReconciled',
  'reportsDuplicate',
  'statusUnavailable',
  'stillPending',
  'storeFailures',
  'notQueried',
  'stoppedBy',
  'gatewayError',
] as const;

/** Records the trail of every report while the run goes on; {@link explain} prints it. */
export class ReportTrail {
  private readonly byCliKey = new Map<string, Step[]>();
  private readonly byMsgKey = new Map<string, Step[]>();
  /** The message id of each report check's receipt handle, and the cliKeys of each check. */
  private readonly receipts = new Map<string, string>();
  private readonly checks = new Map<string, readonly string[]>();
  /** Status queries the gateway refused as a whole (no cliKey to file them under). */
  private readonly refusedStatusQueries: Step[] = [];
  private readonly current = new AsyncLocalStorage<Invocation>();
  private invocations = 0;
  /** The report-check queue's URL, once the bridge is up: its calls are the ones followed. */
  checkQueueUrl: string | undefined;
  /** The gateway simulator's port, once the bridge is up: its answers are the ones read. */
  gatewayPort: number | undefined;

  constructor(
    readonly startedAt: number = Date.now(),
    private readonly now: () => number = Date.now,
  ) {}

  private add(map: Map<string, Step[]>, key: string, text: string, at = this.now()): void {
    const steps = map.get(key) ?? [];
    steps.push({ at, text });
    map.set(key, steps);
  }

  /** A check put on the queue (`by` send-messages, or reconcile-status putting one back). */
  checkQueued(
    by: string,
    body: string,
    sent: { readonly messageId?: string; readonly delaySeconds?: number; readonly error?: string },
  ): void {
    const check = checkOf(body);
    if (sent.messageId !== undefined)
      this.checks.set(
        sent.messageId,
        check.recipients.map((r) => r.cliKey),
      );
    for (const recipient of check.recipients)
      this.add(
        this.byCliKey,
        recipient.cliKey,
        sent.error === undefined
          ? `check ${short(sent.messageId)} queued by ${by}` +
              `${sent.delaySeconds === undefined ? '' : `, delayed ${sent.delaySeconds} s`}` +
              ` (acceptedAt ${check.acceptedAt}, ${recipient.msgKey ? `msgKey ${recipient.msgKey}` : 'no msgKey'}, ${check.recipients.length} recipients)`
          : `a check queued by ${by} was not taken by SQS: ${sent.error}`,
      );
  }

  /** Checks an event source (or reader) received. */
  checksReceived(
    by: string,
    messages: ReadonlyArray<{
      readonly MessageId?: string;
      readonly ReceiptHandle?: string;
      readonly Body?: string;
      readonly Attributes?: Partial<Record<string, string>>;
    }>,
  ): void {
    for (const message of messages) {
      const id = message.MessageId ?? '?';
      if (message.ReceiptHandle) this.receipts.set(message.ReceiptHandle, id);
      const cliKeys = checkOf(message.Body).recipients.map((r) => r.cliKey);
      this.checks.set(id, cliKeys);
      for (const cliKey of cliKeys)
        this.add(
          this.byCliKey,
          cliKey,
          `check ${short(id)} received by ${by} (receive ${message.Attributes?.ApproximateReceiveCount ?? '?'})`,
        );
    }
  }

  /** Checks deleted from the queue (finished, put back as a new message, or expired). */
  checksDeleted(receiptHandles: readonly string[]): void {
    for (const handle of receiptHandles) {
      const id = this.receipts.get(handle);
      if (id === undefined) continue;
      for (const cliKey of this.checks.get(id) ?? [])
        this.add(this.byCliKey, cliKey, `check ${short(id)} deleted from the queue`);
    }
  }

  /** A status query's answer (`POST /msg/v1/sent`), as the gateway sent it. */
  statusAnswered(httpStatus: number, text: string): void {
    const envelope = envelopeOf(text);
    const items = (envelope?.data as { cliKeyLst?: unknown } | null | undefined)?.cliKeyLst;
    if (envelope?.code !== '10000' || !Array.isArray(items)) {
      this.refusedStatusQueries.push({
        at: this.now(),
        text: `HTTP ${httpStatus} ${envelope?.code ?? 'no envelope'} ${String(envelope?.message ?? text.slice(0, 80))}`,
      });
      return;
    }
    for (const item of items as Array<Record<string, unknown>>) {
      if (typeof item.cliKey !== 'string') continue;
      const result =
        item.status === 'DONE'
          ? ` ${String(item.resultCode ?? 'no resultCode')} (${String(item.ch ?? 'no ch')})`
          : '';
      this.add(
        this.byCliKey,
        item.cliKey,
        `status query answered ${String(item.status)}${result}${typeof item.msgKey === 'string' ? `, msgKey ${item.msgKey}` : ''}`,
      );
    }
  }

  /** A poll page (`GET /msg/v1.2/report`): the reports it handed out. */
  reportsPolled(text: string): void {
    const envelope = envelopeOf(text);
    const items = (envelope?.data as { rptLst?: unknown } | null | undefined)?.rptLst;
    if (!Array.isArray(items)) return;
    for (const item of items as Array<Record<string, unknown>>)
      if (typeof item.msgKey === 'string')
        this.add(
          this.byMsgKey,
          item.msgKey,
          `handed out by a poll page (${String(item.resultCode)})`,
        );
  }

  /** A webhook body posted to the report route, and the receiver's answer. */
  reportsPosted(body: string, statusCode: number | string): void {
    for (const match of body.matchAll(/"msgKey"\s*:\s*"([^"]+)"/g))
      if (match[1]) this.add(this.byMsgKey, match[1], `posted by webhook, answered ${statusCode}`);
  }

  /** What a function logged: reconcile-status's counts of a run, warnings and errors. */
  logged(level: string, attributes: Record<string, unknown>): void {
    const invocation = this.current.getStore();
    if (!invocation) return;
    if (typeof attributes.run === 'object' && attributes.run !== null)
      invocation.run = attributes.run as Record<string, unknown>;
    if (level === 'WARN' || level === 'ERROR')
      invocation.notes.push(
        `${level.toLowerCase()} "${String(attributes.message)}"${attributes.error ? `: ${String((attributes.error as { message?: unknown }).message ?? attributes.error)}` : ''}`,
      );
  }

  /** The SDK middleware that records the report-check queue's calls of one function's client. */
  watchSqs(client: SQSClient, functionName: string): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as Record<string, unknown>;
        if (this.checkQueueUrl === undefined || input.QueueUrl !== this.checkQueueUrl)
          return next(args);
        const command = context.commandName;
        let result: Awaited<ReturnType<typeof next>>;
        try {
          result = await next(args);
        } catch (error) {
          if (command === 'SendMessageCommand')
            this.checkQueued(functionName, String(input.MessageBody), { error: String(error) });
          throw error;
        }
        const output = result.output as unknown as Record<string, unknown>;
        if (command === 'SendMessageCommand')
          this.checkQueued(functionName, String(input.MessageBody), {
            messageId: output.MessageId as string | undefined,
            ...(typeof input.DelaySeconds === 'number' ? { delaySeconds: input.DelaySeconds } : {}),
          });
        else if (command === 'SendMessageBatchCommand') {
          const entries = (input.Entries ?? []) as Array<{
            Id: string;
            MessageBody: string;
            DelaySeconds?: number;
          }>;
          const ok = new Map(
            ((output.Successful ?? []) as Array<{ Id: string; MessageId: string }>).map((s) => [
              s.Id,
              s.MessageId,
            ]),
          );
          const failed = new Map(
            ((output.Failed ?? []) as Array<{ Id: string; Code?: string }>).map((f) => [
              f.Id,
              f.Code ?? 'failed',
            ]),
          );
          for (const entry of entries)
            this.checkQueued(functionName, entry.MessageBody, {
              ...(ok.has(entry.Id) ? { messageId: ok.get(entry.Id) } : {}),
              ...(entry.DelaySeconds === undefined ? {} : { delaySeconds: entry.DelaySeconds }),
              ...(failed.has(entry.Id) ? { error: failed.get(entry.Id) } : {}),
            });
        } else if (command === 'ReceiveMessageCommand')
          this.checksReceived(
            functionName,
            (output.Messages ?? []) as Parameters<ReportTrail['checksReceived']>[1],
          );
        else if (command === 'DeleteMessageCommand')
          this.checksDeleted([String(input.ReceiptHandle)]);
        else if (command === 'DeleteMessageBatchCommand') {
          const entries = (input.Entries ?? []) as Array<{ Id: string; ReceiptHandle: string }>;
          const done = new Set(
            ((output.Successful ?? []) as Array<{ Id: string }>).map((s) => s.Id),
          );
          this.checksDeleted(entries.filter((e) => done.has(e.Id)).map((e) => e.ReceiptHandle));
        }
        return result;
      },
      { step: 'initialize', name: 'chaosReportTrail' },
    );
  }

  /**
   * Wraps each invocation: reconcile-status's batches of checks (how each ended) and
   * receive-reports' webhook bodies. Fits `LocalBridgeInstrument['lambda']`.
   */
  readonly watchInvocation =
    <E, R>(name: string, handler: (event: E) => Promise<R>) =>
    async (event: E): Promise<R> => {
      if (name === 'receive-reports') {
        const { body, isBase64Encoded } = (event ?? {}) as {
          body?: string;
          isBase64Encoded?: boolean;
        };
        const text = isBase64Encoded ? Buffer.from(body ?? '', 'base64').toString() : (body ?? '');
        try {
          const answer = await handler(event);
          this.reportsPosted(text, (answer as { statusCode?: number })?.statusCode ?? '?');
          return answer;
        } catch (error) {
          this.reportsPosted(text, `an error (${String(error).slice(0, 80)})`);
          throw error;
        }
      }
      if (name === 'send-messages' && isSqsEvent(event))
        return this.watchSendInvocation(handler, event);
      if (name !== 'reconcile-status' || !isSqsEvent(event)) return handler(event);
      this.invocations += 1;
      const invocation: Invocation = {
        number: this.invocations,
        checks: event.Records.map((record) => record.messageId),
        notes: [],
      };
      // Each check's recipients, from the records themselves (a check this trail never saw queued).
      for (const record of event.Records)
        if (!this.checks.has(record.messageId))
          this.checks.set(
            record.messageId,
            checkOf(record.body).recipients.map((r) => r.cliKey),
          );
      const tell = (say: (id: string) => string) => {
        for (const id of invocation.checks)
          for (const cliKey of this.checks.get(id) ?? [])
            this.add(
              this.byCliKey,
              cliKey,
              `reconcile-status invocation ${invocation.number} ${say(id)}`,
            );
      };
      tell((id) => `started with check ${short(id)} and ${invocation.checks.length - 1} more`);
      try {
        const answer = await this.current.run(invocation, () => handler(event));
        const failures = failedItems(answer);
        tell(
          (id) =>
            `ended: check ${short(id)} ${failures.has(id) ? 'left unfinished (a batch item failure: it comes back after its visibility timeout)' : 'done with (finished, or put back as a new message)'}; ${runText(invocation)}`,
        );
        return answer;
      } catch (error) {
        const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        tell(
          () =>
            `failed: ${reason.slice(0, 300)} (the whole batch comes back after its visibility timeout); ${runText(invocation)}`,
        );
        throw error;
      }
    };

  /**
   * Wraps the gateway send-messages sends through (inside the faults, so it records what the
   * gateway answered, also to an invocation killed right after): each recipient's answer.
   */
  readonly watchSends = (inner: SendGateway): SendGateway => ({
    send: async (message, options) => {
      const keys = recipientsOf(message).map((recipient) => recipient.cliKey);
      try {
        const outcome = await inner.send(message, options);
        if (outcome.kind === 'scheduled')
          for (const key of keys) this.add(this.byCliKey, key, 'send call answered: scheduled');
        else {
          const answered = new Map(outcome.results.map((result) => [result.cliKey, result]));
          for (const key of keys) {
            const result = answered.get(key);
            this.add(
              this.byCliKey,
              key,
              result
                ? `send call answered ${result.code}${result.msgKey ? ` (msgKey ${result.msgKey})` : ''}`
                : 'send call answered without an item for it',
            );
          }
        }
        return outcome;
      } catch (error) {
        const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        for (const key of keys)
          this.add(this.byCliKey, key, `send call failed: ${reason.slice(0, 160)}`);
        throw error;
      }
    },
  });

  /** send-messages' deliveries of each message, and how each invocation ended. */
  private async watchSendInvocation<E, R>(
    handler: (event: E) => Promise<R>,
    event: E & {
      Records: Array<{ messageId: string; body: string; attributes?: Record<string, string> }>;
    },
  ): Promise<R> {
    const deliveries = event.Records.map((record) => ({
      id: record.messageId,
      receive: record.attributes?.ApproximateReceiveCount ?? '?',
      cliKeys: [
        ...new Set([...record.body.matchAll(/"cliKey"\s*:\s*"([^"]+)"/g)].map((m) => m[1] ?? '')),
      ],
    }));
    const tell = (say: (delivery: (typeof deliveries)[number]) => string) => {
      for (const delivery of deliveries)
        for (const cliKey of delivery.cliKeys) this.add(this.byCliKey, cliKey, say(delivery));
    };
    tell(
      (d) =>
        `send message ${short(d.id)} delivered to send-messages (receive ${d.receive}, ${deliveries.length} in the batch)`,
    );
    try {
      const answer = await handler(event);
      const failures = failedItems(answer);
      tell(
        (d) =>
          `send message ${short(d.id)} (receive ${d.receive}) ${failures.has(d.id) ? 'to be delivered again' : 'done'}`,
      );
      return answer;
    } catch (error) {
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      tell(
        (d) =>
          `send message ${short(d.id)} (receive ${d.receive}): the invocation failed: ${reason.slice(0, 160)}`,
      );
      throw error;
    }
  }

  /** The logger of `functionName`: reconcile-status's lines go to the trail, the rest nowhere. */
  loggerFor = (functionName: string): Logger =>
    functionName === 'reconcile-status' ? new TrailLogger(this) : SILENT;

  /** Reads the gateway simulator's answers to status queries and polls; returns the undo. */
  watchGateway(): () => void {
    const onRequest = (message: unknown) => {
      const { request, response } = message as {
        request: IncomingMessage;
        response: ServerResponse;
      };
      if (this.gatewayPort === undefined || request.socket.localPort !== this.gatewayPort) return;
      const path = (request.url ?? '').split('?')[0];
      const read =
        request.method === 'POST' && path === '/msg/v1/sent'
          ? (text: string) => this.statusAnswered(response.statusCode, text)
          : request.method === 'GET' && path === '/msg/v1.2/report'
            ? (text: string) => this.reportsPolled(text)
            : undefined;
      if (!read) return;
      const end = response.end;
      response.end = function (this: ServerResponse, ...args: unknown[]) {
        const [chunk] = args;
        if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) {
          try {
            read(String(chunk));
          } catch {
            // The trail never stands in the answer's way.
          }
        }
        return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
      } as ServerResponse['end'];
    };
    subscribe('http.server.request.start', onRequest);
    return () => unsubscribe('http.server.request.start', onRequest);
  }

  /** `+12.3 s`: a time of the run. */
  private when(at: number): string {
    return `+${((at - this.startedAt) / 1000).toFixed(1)} s`;
  }

  /**
   * The lines that say where the report `msgKey` of recipient `cliKey` stopped: every recorded
   * step in time order, then `state` (what the run's end found), then the verdict.
   */
  describe(msgKey: string, cliKey: string | undefined, state: ReportState): string[] {
    const steps = [
      ...(cliKey === undefined ? [] : (this.byCliKey.get(cliKey) ?? [])),
      ...(this.byMsgKey.get(msgKey) ?? []),
    ].sort((a, b) => a.at - b.at);
    const handedOut = (this.byMsgKey.get(msgKey) ?? []).length > 0;
    const answers = cliKey === undefined ? [] : (this.byCliKey.get(cliKey) ?? []);
    const asked = answers.filter((s) => s.text.startsWith('status query answered'));
    const queued = answers.some((s) => /^check \S+ queued by /.test(s.text));
    const lines = [
      `trail of report ${msgKey}${cliKey === undefined ? '' : ` (cliKey ${cliKey})`}:`,
      `  gateway: ${state.gateway}; ${handedOut ? 'handed out (see below)' : 'never handed out by a poll page or a webhook post (withheld)'}`,
      ...steps.map((step) => `  ${this.when(step.at)} ${step.text}`),
      ...(this.refusedStatusQueries.length > 0
        ? [
            `  status queries the gateway refused as a whole: ${this.refusedStatusQueries.length}, the first: ${this.refusedStatusQueries
              .slice(0, 3)
              .map((s) => `${this.when(s.at)} ${s.text}`)
              .join('; ')}`,
          ]
        : []),
      ...state.table.map((line) => `  now, event table: ${line}`),
      ...state.queue.map((line) => `  now, ${line}`),
      `  now, bus: ${state.bus}`,
      `  where it stopped: ${stoppedAt(state, { queued, asked: asked.map((s) => s.text), handedOut })}`,
    ];
    return lines;
  }

  /**
   * The trail of every lost report of `verdict`, read from `bridge` (at most `limit`): by the
   * violation's item (`report <msgKey>`), the lines to print under it.
   */
  async explain(
    bridge: LocalBridge,
    verdict: Verdict,
    limit = 20,
  ): Promise<Map<string, readonly string[]>> {
    const lost = verdict.violations
      .filter((v) => v.invariant === 'lost' && v.item.startsWith('report '))
      .slice(0, limit);
    const explained = new Map<string, readonly string[]>();
    for (const violation of lost) {
      const msgKey = violation.item.slice('report '.length);
      const state = await reportState(bridge, msgKey, this.startedAt).catch(
        (error: unknown): ReportState => ({
          gateway: `unreadable: ${String(error)}`,
          table: [],
          queue: [],
          bus: 'unread',
          stored: false,
          published: false,
          checkQueued: false,
          checkInDlq: false,
          unknownOpen: false,
          sendInDlq: false,
          sendQueued: false,
        }),
      );
      const cliKey = bridge.sim.acceptances().find((a) => a.msgKey === msgKey)?.cliKey;
      explained.set(violation.item, this.describe(msgKey, cliKey, state));
    }
    return explained;
  }

  /**
   * One line on the reports the gateway withheld (never on a poll page or in a webhook body):
   * how many, and how each reached the bus (by `via`) or did not.
   */
  withheldSummary(bridge: LocalBridge): string {
    const reported = bridge.sim.acceptances().filter((a) => a.result !== undefined);
    const withheld = reported.filter((a) => !this.byMsgKey.has(a.msgKey));
    const via = new Map<string, string>();
    for (const entry of bridge.bus.entries) {
      if (entry.DetailType !== 'Delivery Report Received') continue;
      const detail = JSON.parse(entry.Detail) as {
        metadata: { via?: string };
        data: { msgKey?: string };
      };
      if (typeof detail.data.msgKey === 'string')
        via.set(detail.data.msgKey, detail.metadata.via ?? '?');
    }
    const counts = new Map<string, number>();
    for (const a of withheld) {
      const how = via.get(a.msgKey) ?? 'not on the bus';
      counts.set(how, (counts.get(how) ?? 0) + 1);
    }
    return `  reports never handed out by a poll page or a webhook post: ${withheld.length} of ${reported.length}${
      withheld.length > 0
        ? `; on the bus ${[...counts]
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([how, n]) => `${how === 'not on the bus' ? how : `via ${how}`}=${n}`)
            .join(' ')}`
        : ''
    }`;
  }
}

/** The message ids an SQS handler's answer names as batch item failures. */
const failedItems = (answer: unknown): Set<string> =>
  new Set(
    (
      (answer as { batchItemFailures?: Array<{ itemIdentifier: string }> } | undefined)
        ?.batchItemFailures ?? []
    ).map((failure) => failure.itemIdentifier),
  );

/** reconcile-status's counts of one invocation, as the trail prints them. */
const runText = (invocation: Invocation): string => {
  const run = invocation.run;
  const counts = run
    ? COUNTS_SHOWN.filter((name) => run[name] !== undefined && run[name] !== 0)
        .map((name) => `${name}=${String(run[name])}`)
        .join(' ')
    : 'no counts logged';
  return `run: ${counts}${invocation.notes.length > 0 ? `; logged ${invocation.notes.slice(0, 3).join('; ')}` : ''}`;
};

const SILENT = new Logger({ logLevel: 'SILENT' });

type LogItemLike = Parameters<Logger['printLog']>[1];

/** reconcile-status's logger: its lines go to the trail instead of the output. */
class TrailLogger extends Logger {
  constructor(private readonly trail: ReportTrail) {
    super({ logLevel: 'INFO' });
  }

  protected override printLog(logLevel: number, log: LogItemLike): void {
    const attributes = log.getAttributes() as Record<string, unknown>;
    // Powertools' levels: INFO 12, WARN 16, ERROR 20.
    this.trail.logged(logLevel >= 20 ? 'ERROR' : logLevel >= 16 ? 'WARN' : 'INFO', attributes);
  }

  protected override createLogger(): Logger {
    return new TrailLogger(this.trail);
  }
}

/**
 * `msgbridge console --stack NAME` against a deployed stack, its AWS clients mocked: the stack's
 * outputs name the tables and queues, the timeline reads the event table by Query, the quarantine
 * page shows the queues' depths and the quarantined bodies, and a replay confirmed in the console
 * starts an archive replay and reports its progress to COMPLETED. Phone numbers stay masked, and
 * nothing of the gateway credentials reaches a page.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeReplayCommand,
  EventBridgeClient,
  StartReplayCommand,
} from '@aws-sdk/client-eventbridge';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { OPTIONAL_OUTPUTS, REQUIRED_OUTPUTS } from '../../ops/target.ts';
import { captureIo, runCli } from '../support/cli-gateway.ts';
import { stackOutputs } from '../support/stack-outputs.ts';

const REGION = 'ap-northeast-2';
const PHONE = '01055556666';
const cloudFormation = mockClient(CloudFormationClient);
// The target wraps its DynamoDB client in a document client, which sends on its own.
const dynamodb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const eventBridge = mockClient(EventBridgeClient);
afterEach(() => {
  for (const mock of [cloudFormation, dynamodb, sqs, eventBridge]) mock.reset();
});

const outputs = stackOutputs([...REQUIRED_OUTPUTS, ...OPTIONAL_OUTPUTS]);

const detail = (type: string, id: string, data: Record<string, unknown>) =>
  JSON.stringify({
    metadata: {
      id,
      type,
      version: '1',
      occurredAt: '2026-11-27T09:00:02Z',
      receivedAt: '2026-11-27T09:00:02Z',
      via: 'webhook',
      idempotencyKey: id,
    },
    data,
  });

const ITEMS: Record<string, Record<string, unknown>[]> = {
  'SEND#order-1': [
    {
      pk: 'SEND#order-1',
      sk: 'MESSAGE',
      kind: 'send',
      owner: '1#abc',
      claimedUntil: 0,
      recipients: 1,
      channel: 'sms',
      sqsMessageId: 'sqs-1',
      'accepted#order-1': { t: 1795770001, m: 'M-1' },
    },
  ],
  'REPORT#M-1': [
    {
      pk: 'REPORT#M-1',
      sk: 'RESULT#10000#SMS',
      kind: 'report',
      detailType: 'Delivery Report Received',
      eventId: 'event-report-1',
      receivedAt: '2026-11-27T09:00:02Z',
      detail: detail('Delivery Report Received', 'event-report-1', {
        msgKey: 'M-1',
        cliKey: 'order-1',
        delivered: true,
        resultCode: '10000',
        channel: 'SMS',
        phone: PHONE,
      }),
    },
  ],
};
// A queue message rejected for reusing order-1 with another text: found by its id and its cliKey.
const REJECTED_DETAIL = detail('Send Rejected', 'event-rejected-1', {
  channel: 'sms',
  cliKeys: ['order-9'],
  cliKeyCount: 1,
  problems: [{ path: '$.recvInfoLst[0].cliKey', message: 'cliKey "order-9" was already used' }],
  problemCount: 1,
  sqsMessageId: 'sqs-bad',
  body: '{"channel":"sms"}',
  truncated: false,
});
ITEMS['SEND#order-9'] = [
  {
    pk: 'SEND#order-9',
    sk: 'REJECTED#sqs-bad',
    kind: 'send',
    cliKey: 'order-9',
    sqsMessageId: 'sqs-bad',
    receivedAt: '2026-11-27T09:05:00Z',
  },
];
ITEMS['SENDREJECTED#sqs-bad'] = [
  {
    pk: 'SENDREJECTED#sqs-bad',
    sk: 'REJECTED',
    kind: 'send',
    detailType: 'Send Rejected',
    eventId: 'event-rejected-1',
    receivedAt: '2026-11-27T09:05:00Z',
    detail: REJECTED_DETAIL,
  },
];

const QUARANTINED = {
  pk: 'QUARANTINE#aa',
  sk: 'report#aa#body',
  kind: 'quarantine',
  detailType: 'Item Quarantined',
  eventId: 'event-q-1',
  receivedAt: '2026-11-27T09:01:00Z',
  payload: '{"broken": <b>',
  detail: detail('Item Quarantined', 'event-q-1', {
    webhook: 'report',
    reason: 'body is not JSON',
    raw: '{"broken": <b>',
  }),
};

const startConsole = async () => {
  cloudFormation.on(DescribeStacksCommand).resolves({
    Stacks: [
      {
        StackName: 'prod',
        CreationTime: new Date(),
        StackStatus: 'UPDATE_COMPLETE',
        Outputs: outputs,
      },
    ],
  });
  dynamodb
    .on(QueryCommand)
    .callsFake((input: { ExpressionAttributeValues?: Record<string, unknown> }) => ({
      Items: ITEMS[String(input.ExpressionAttributeValues?.[':pk'])] ?? [],
    }));
  dynamodb.on(ScanCommand).resolves({ Items: [QUARANTINED] });
  sqs.on(GetQueueAttributesCommand).resolves({ Attributes: { ApproximateNumberOfMessages: '7' } });
  sqs.on(ReceiveMessageCommand).resolves({ Messages: [] });
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const captured = captureIo();
  const run = runCli(
    ['console', '--stack', 'prod', '--region', REGION, '--port', '0'],
    {
      aws: {
        cloudFormation: new CloudFormationClient({ region: REGION }),
        dynamodb: new DynamoDBClient({ region: REGION }),
        sqs: new SQSClient({ region: REGION }),
        eventBridge: new EventBridgeClient({ region: REGION }),
      },
      interrupted: () => stopped,
      sleep: async () => {},
    },
    captured,
  );
  for (let tries = 0; !captured.stdout().includes('http://'); tries += 1) {
    if (tries > 200) throw new Error(`the console did not start: ${captured.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const url = /http:\/\/127\.0\.0\.1:\d+\/console/.exec(captured.stdout())?.[0] ?? '';
  return {
    url,
    stop: async () => {
      stop();
      return run;
    },
  };
};

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
  redirect: 'manual' as const,
});

describe('msgbridge console --stack', () => {
  it('shows a message, the quarantine and the queues of the stack, and runs a confirmed archive replay', async () => {
    // Prepare
    const console = await startConsole();
    eventBridge.on(StartReplayCommand).resolves({ ReplayArn: 'arn:replay', State: 'STARTING' });
    eventBridge
      .on(DescribeReplayCommand)
      .resolvesOnce({ State: 'RUNNING', EventLastReplayedTime: new Date('2026-11-27T09:30:00Z') })
      .resolves({ State: 'COMPLETED' });

    // Act
    const timeline = await (await fetch(`${console.url}/message?by=key&q=order-1`)).text();
    const flow = await (await fetch(`${console.url}/flow`)).text();
    const unscanned = await fetch(`${console.url}/flow/series.json`);
    const series = (await (await fetch(`${console.url}/flow/series.json?scan=1`)).json()) as {
      starts: number[];
    };
    const quarantine = await fetch(`${console.url}/quarantine`);
    const page = await quarantine.text();
    if (quarantine.status !== 200) throw new Error(page);
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(page)?.[1] ?? '';
    const window = { from: '2026-11-27T09:00:00Z', to: '2026-11-27T10:00:00Z' };
    const confirm = await (
      await fetch(`${console.url}/actions/replay`, form({ csrf, ...window }))
    ).text();
    const started = await fetch(
      `${console.url}/actions/replay`,
      form({ csrf, ...window, confirm: 'yes' }),
    );
    const jobUrl = new URL(started.headers.get('location') ?? '', console.url).href;
    if (started.status !== 303) throw new Error(`${started.status} ${await started.text()}`);
    let job: { state: string; done: number; total: number; message: string } | undefined;
    for (let tries = 0; tries < 100 && job?.state !== 'done'; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      job = (await (await fetch(`${jobUrl}.json`)).json()) as typeof job;
    }
    const code = await console.stop();

    // Assess
    expect(timeline).toContain('data-stage="queued"');
    expect(timeline).toContain('data-stage="accepted"');
    expect(timeline).toContain('data-stage="report"');
    expect(timeline).toContain('event-report-1');
    expect(timeline).toContain("from the table's stream");
    expect(timeline).not.toContain(PHONE);
    // On a stack the flow scans the event table only when asked.
    expect(flow).toContain('Scan now');
    expect(flow).not.toContain('id="charts"');
    expect(unscanned.status).toBe(400);
    expect(series.starts).toHaveLength(60);
    expect(quarantine.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page).toContain('<td id="dlq-depth">7</td>');
    expect(page).toContain('body is not JSON');
    expect(page).toContain('{&quot;broken&quot;: &lt;b&gt;');
    expect(page).not.toContain('<b>');
    expect(confirm).toContain('Replay the archived events');
    expect(started.status).toBe(303);
    expect(job).toMatchObject({ state: 'done', done: 100, total: 100 });
    expect(eventBridge.commandCalls(StartReplayCommand)[0]?.args[0].input).toMatchObject({
      EventSourceArn: 'value-of-EventArchiveArn',
      Destination: { Arn: 'value-of-EventBusArn' },
      EventStartTime: new Date(window.from),
      EventEndTime: new Date(window.to),
    });
    expect(code.code).toBe(0);
    for (const text of [timeline, page, confirm]) expect(text).not.toContain('GatewayCredentials');
  });

  it('gives every page its icon, served as SVG, and a font stack with a Hangul face on each system', async () => {
    // Prepare
    const console = await startConsole();

    // Act
    const home = await (await fetch(console.url)).text();
    const icon = await fetch(`${console.url}/assets/favicon.svg`);
    const css = await (await fetch(`${console.url}/assets/console.css`)).text();
    await console.stop();

    // Assess
    expect(home).toContain(
      `<link rel="icon" type="image/svg+xml" href="/console/assets/favicon.svg">`,
    );
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg /);
    for (const face of ['Apple SD Gothic Neo', 'Malgun Gothic', 'Noto Sans CJK KR', 'NanumGothic'])
      expect(css).toContain(`"${face}"`);
  });

  it('finds a message by a phone number typed into the one search box, and a key as a key', async () => {
    // Prepare: the table a Scan reads holds the report that names the number.
    const console = await startConsole();
    dynamodb.on(ScanCommand).resolves({ Items: ITEMS['REPORT#M-1'] ?? [] });

    // Act
    const home = await (await fetch(console.url)).text();
    const byPhone = await (
      await fetch(`${console.url}/message?q=${encodeURIComponent('010-5555-6666')}`)
    ).text();
    const scansForPhone = dynamodb.commandCalls(ScanCommand).length;
    const byKey = await (await fetch(`${console.url}/message?q=order-1`)).text();
    await console.stop();

    // Assess
    // One box: no choice of what the text is (the list's status filter is a form of its own).
    expect(home.slice(home.indexOf('<form class="search"'), home.indexOf('</form>'))).not.toContain(
      '<select',
    );
    expect(home).toContain('placeholder="cliKey, msgKey, moKey or a phone number"');
    expect(byPhone).toContain('Phone <code>01055556666</code>: one message.');
    expect(byPhone).toContain('data-stage="report"');
    expect(scansForPhone).toBe(1);
    expect(byKey).toContain('data-stage="queued"');
    expect(dynamodb.commandCalls(ScanCommand)).toHaveLength(scansForPhone);
  });

  it('finds a rejected send by its SQS message id and by the cliKey it named, by Query only', async () => {
    const console = await startConsole();

    const byId = await (await fetch(`${console.url}/message?q=sqs-bad`)).text();
    const byCliKey = await (await fetch(`${console.url}/message?q=order-9`)).text();
    await console.stop();

    for (const page of [byId, byCliKey]) {
      expect(page).toContain('Send Rejected');
      expect(page).toContain(
        'Not sent: queue message sqs-bad rejected, 1 problem: $.recvInfoLst[0].cliKey: cliKey &quot;order-9&quot; was already used',
      );
    }
    expect(dynamodb.commandCalls(ScanCommand)).toHaveLength(0);
  });

  it('shows the flow over the last hour or the last day, per minute or per quarter of an hour', async () => {
    // Prepare
    const console = await startConsole();

    // Act
    const day = await (await fetch(`${console.url}/flow?scan=1&window=day`)).text();
    const hour = (await (await fetch(`${console.url}/flow/series.json?scan=1`)).json()) as {
      window: string;
      starts: number[];
      slotSeconds: number;
    };
    const daily = (await (
      await fetch(`${console.url}/flow/series.json?scan=1&window=day`)
    ).json()) as typeof hour;
    const unknown = await fetch(`${console.url}/flow/series.json?scan=1&window=week`);
    await console.stop();

    // Assess
    expect(day).toContain('data-series="/console/flow/series.json?scan=1&amp;window=day"');
    expect(day).toContain('aria-current="page">Last day</a>');
    expect(day).toContain('Per quarter of an hour over the last day');
    expect(hour).toMatchObject({ window: 'hour', slotSeconds: 60 });
    expect(hour.starts).toHaveLength(60);
    expect(daily).toMatchObject({ window: 'day', slotSeconds: 900 });
    expect(daily.starts).toHaveLength(96);
    expect((daily.starts.at(-1) ?? 0) - (daily.starts[0] ?? 0)).toBe(95 * 900);
    expect(unknown.status).toBe(400);
  });

  it('opens on the latest messages after asking to scan, filtered by status, with each event’s raw JSON', async () => {
    // Prepare: the Scan reads a delivered send and a failed report of another message.
    const console = await startConsole();
    const failed = {
      ...ITEMS['REPORT#M-1']?.[0],
      pk: 'REPORT#M-2',
      sk: 'RESULT#40001#SMS',
      eventId: 'event-report-2',
      receivedAt: '2026-11-27T09:10:00Z',
      detail: detail('Delivery Report Received', 'event-report-2', {
        msgKey: 'M-2',
        cliKey: 'order-2',
        delivered: false,
        resultCode: '40001',
        channel: 'SMS',
        phone: PHONE,
      }),
    };
    ITEMS['REPORT#M-2'] = [failed];
    dynamodb.on(ScanCommand).resolves({
      Items: [...(ITEMS['SEND#order-1'] ?? []), ...(ITEMS['REPORT#M-1'] ?? []), failed],
    });

    // Act
    const unscanned = await (await fetch(console.url)).text();
    const scansBefore = dynamodb.commandCalls(ScanCommand).length;
    const listed = await (await fetch(`${console.url}?scan=1`)).text();
    const onlyFailed = await (await fetch(`${console.url}?scan=1&status=failed`)).text();
    const badCursor = await fetch(`${console.url}?scan=1&after=nope`);
    const badStatus = await fetch(`${console.url}?scan=1&status=lost`);
    const message = await (await fetch(`${console.url}/message?by=key&q=M-2`)).text();
    await console.stop();

    // Assess
    expect(unscanned).toContain('List the latest messages');
    expect(scansBefore).toBe(0);
    const order = ['order-2', 'order-1'].map((key) => listed.indexOf(`>${key}</a>`));
    expect(order.every((at) => at > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(listed).toContain('<span class="status status-failed">failed</span>');
    expect(listed).toContain('<span class="status status-delivered">delivered</span>');
    expect(onlyFailed).toContain('>order-2</a>');
    expect(onlyFailed).not.toContain('>order-1</a>');
    expect(badCursor.status).toBe(400);
    expect(badStatus.status).toBe(400);
    for (const page of [listed, message]) expect(page).not.toContain(PHONE);
    expect(message).toContain('data-outcome="failed"');
    expect(message).toContain('<button type="button" class="copy" data-copy="event-json-0">');
    expect(message).toContain('&quot;detail-type&quot;: &quot;Delivery Report Received&quot;');
    expect(message).toContain('&quot;id&quot;: &quot;event-report-2&quot;');
  });

  it('refuses a replay posted without the console token, and starts nothing', async () => {
    const console = await startConsole();

    const forged = await fetch(
      `${console.url}/actions/replay`,
      form({ csrf: 'x', from: '2026-11-27T09:00:00Z', to: '2026-11-27T10:00:00Z', confirm: 'yes' }),
    );
    await console.stop();

    expect(forged.status).toBe(403);
    expect(eventBridge.commandCalls(StartReplayCommand)).toHaveLength(0);
  });
});

/**
 * The operator console in a real browser (Debian's Chromium through playwright-core) against the
 * local run, started as `npm start` starts it (the bridge, bridge.json, the console mounted on the
 * webhook port): the demo runs, the landing page lists the latest messages (paged, filtered by
 * status, a failed one marked so), a cliKey's timeline shows its steps and each event's raw JSON to
 * copy, a bad body shows up in the quarantine, and a replay started from the console shows its
 * progress to the end. Screenshots go to docs/console/.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountConsole } from '../../console/serve.ts';
import { reportItem } from '../../fixtures/gateway-bodies.ts';
import { type LocalBridge, startLocalBridge } from '../../local/bridge.ts';
import { writeBridgeFile } from '../../local/bridge-file.ts';
import { localClientConfig } from '../../local/dynamodb-local.ts';
import { captureDiskIo, runCli } from '../support/cli-gateway.ts';
import { waitFor } from '../support/e2e-wait.ts';
import { namedLocalRun } from '../support/named-local-run.ts';

const ROOT = join(import.meta.dirname, '../..');
// Screenshots go to .local/console (ignored); CONSOLE_SCREENSHOTS=docs/console refreshes the
// ones docs/console.md shows.
const SHOTS = join(ROOT, process.env.CONSOLE_SCREENSHOTS ?? '.local/console');
const CHROMIUM = '/usr/bin/chromium';
const run = namedLocalRun('console');
const { dataDir, credentials } = run;
const profile = mkdtempSync(join(tmpdir(), 'msgbridge-chromium-'));
// The demo's recipients (producer/examples.ts) and inbound senders (local/demo.ts).
const PHONES = ['01012345678', '01098765432'];

let bridge: LocalBridge;
let consoleUrl: string;
let browser: BrowserContext;
let page: Page;

beforeAll(async () => {
  // Fails, not skips: CI installs Chromium (.ci/run) before the tests.
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
  }
  bridge = await startLocalBridge(
    run.options({ tpsQuota: 50, simulator: { reportDelayMs: 200, failureRate: 0, seed: 18 } }),
  );
  await writeBridgeFile(dataDir, bridge, credentials);
  consoleUrl = await mountConsole(bridge, dataDir, { tpsQuota: 50 });
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1200, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = browser.pages()[0] ?? (await browser.newPage());
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await bridge?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(profile, { recursive: true, force: true });
});

/** The status of a GET with its own Host header (fetch does not let a caller set one). */
const statusWithHost = (url: string, host: string) =>
  new Promise<number>((resolve, reject) => {
    get(url, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    }).on('error', reject);
  });

const runDemo = () =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', join(ROOT, 'local/demo.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      LOCAL_DATA_DIR: dataDir,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  });

describe('the operator console in Chromium', () => {
  it('shows the timeline of a demo message found by its cliKey, phone numbers masked', async () => {
    // Prepare
    const demo = await runDemo();
    expect(demo.stdout).toMatch(/queued \d+ messages \(0 invalid, 0 failed\)/);
    const reported = () => bridge.bus.details('Delivery Report Received');
    expect(await waitFor(() => reported().length > 0, 60_000)).toBe(true);
    const cliKey = String(reported()[0]?.data.cliKey);

    // Act
    await page.goto(consoleUrl);
    await page.fill('input[name="q"]', cliKey);
    await page.click('form.search button');
    await page.waitForSelector('#timeline');

    // Assess
    const stages = await page.$$eval('#timeline li', (items) =>
      items.map((item) => item.getAttribute('data-stage')),
    );
    // queued → claimed → sent (accepted) → report, in that order.
    const order = ['queued', 'claimed', 'accepted', 'report'].map((stage) => stages.indexOf(stage));
    expect(
      order.every((index) => index >= 0),
      stages.join(' '),
    ).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    const published = await page.$$eval('#published tbody tr', (rows) =>
      rows.map((row) => row.getAttribute('data-detail-type')),
    );
    expect(published).toContain('Delivery Report Received');
    expect(await page.textContent('#published')).not.toContain('not on the bus yet');
    const text = (await page.textContent('body')) ?? '';
    expect(text).toContain(cliKey);
    for (const phone of PHONES) expect(text).not.toContain(phone);
    // Every step with its time; no table key, claim owner or empty list; the columns explained.
    const times = await page.$$eval('#timeline li', (items) =>
      items.map((item) => item.querySelector('.when time')?.getAttribute('datetime') ?? null),
    );
    expect(times.filter((at) => at === null)).toEqual([]);
    const main = (await page.textContent('main')) ?? '';
    expect(main).not.toMatch(/SEND#|REPORT#|RESULT#|MESSAGE accepted|owner/);
    expect(
      await page.$$eval('#timeline dd', (cells) => cells.map((cell) => cell.textContent)),
    ).not.toContain('[]');
    expect(await page.textContent('p.legend')).toContain(
      'when the item was written to the event table',
    );
    await page.screenshot({ path: join(SHOTS, 'timeline.png'), fullPage: true });
  });

  it('copies an event’s raw JSON from the message page, phone numbers masked', async () => {
    // Prepare
    const cliKey = String(bridge.bus.details('Delivery Report Received')[0]?.data.cliKey);
    await browser.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(consoleUrl).origin,
    });
    await page.goto(`${consoleUrl}/message?by=key&q=${encodeURIComponent(cliKey)}`);
    const row = page.locator('#published tbody tr').first();
    const type = await row.getAttribute('data-detail-type');
    const id = await row.locator('td code').first().textContent();

    // Act
    await row.locator('button.copy').click();
    await page.waitForSelector('#published button.copy:text("Copied")');
    const copied = String(await page.evaluate('navigator.clipboard.readText()'));
    await row.locator('details summary').click();
    const shown = await row.locator('pre.json').isVisible();

    // Assess
    const event = JSON.parse(copied) as {
      'detail-type': string;
      detail: { metadata: { id: string }; data: Record<string, unknown> };
    };
    expect(event['detail-type']).toBe(type);
    expect(event.detail.metadata.id).toBe(id);
    expect(event.detail.data.cliKey).toBe(cliKey);
    for (const phone of PHONES) expect(copied).not.toContain(phone);
    expect(shown).toBe(true);
    expect(await page.textContent('#message-text')).toContain('keeps no copy');
  });

  it('opens on the latest messages, newest first, paged, filtered by status, a failed report marked failed', async () => {
    // Prepare: the demo's messages as the landing page lists them (the docs' screenshot), then 30
    // failed reports in one body, newer than every demo message.
    await page.goto(consoleUrl);
    await page.screenshot({ path: join(SHOTS, 'home.png') });
    const failed = Array.from({ length: 30 }, (_, index) =>
      reportItem(index, {
        msgKey: `M-FAIL-${index}`,
        cliKey: `fail-${String(index).padStart(2, '0')}`,
        resultCode: '40001',
        resultCodeDesc: 'unreachable',
      }),
    );
    const posted = await fetch(bridge.urls.reportWebhook, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rptCnt: failed.length, rptLst: failed }),
    });
    expect(posted.status).toBe(200);
    const stored = () =>
      bridge.bus
        .details('Delivery Report Received')
        .filter((detail) => String(detail.data.msgKey).startsWith('M-FAIL-')).length;
    expect(await waitFor(() => stored() === 30, 60_000)).toBe(true);
    const rowsOf = () =>
      page.$$eval('#latest tbody tr', (rows) =>
        rows.map((row) => ({
          key: row.querySelector('td.key a')?.textContent ?? '',
          kind: row.getAttribute('data-kind'),
          status: row.getAttribute('data-status'),
          at: row.querySelector('time')?.getAttribute('datetime') ?? '',
        })),
      );

    // Act: the landing page, its next page, and the list filtered to delivered messages.
    await page.goto(consoleUrl);
    const first = await rowsOf();
    const failedBadge = await page.$eval('#latest tr[data-status="failed"] .status', (badge) => ({
      text: badge.textContent,
      colour: badge.ownerDocument.defaultView?.getComputedStyle(badge).backgroundColor,
    }));
    await page.click('#older');
    await page.waitForSelector('#newest');
    const second = await rowsOf();
    await page.goto(consoleUrl);
    await page.selectOption('form.filter select[name="status"]', 'delivered');
    await page.click('form.filter button');
    await page.waitForSelector('#latest-summary');
    const delivered = await rowsOf();
    const deliveredBadge = await page.$eval(
      '#latest .status',
      (badge) => badge.ownerDocument.defaultView?.getComputedStyle(badge).backgroundColor,
    );

    // Assess: 25 a page, newest first across pages, no row twice.
    expect(first).toHaveLength(25);
    const all = [...first, ...second];
    const times = all.map((row) => row.at);
    expect(times).toEqual([...times].sort().reverse());
    expect(new Set(all.map((row) => `${row.kind} ${row.key}`)).size).toBe(all.length);
    expect(first[0]?.key).toMatch(/^fail-\d\d$/);
    expect(all.map((row) => row.kind)).toContain('moKey');
    expect(all.filter((row) => row.key.startsWith('fail-')).map((row) => row.status)).toEqual(
      Array(30).fill('failed'),
    );
    expect(failedBadge.text).toBe('failed');
    expect(page.url()).toContain('status=delivered');
    expect(delivered.length).toBeGreaterThan(0);
    expect(delivered.every((row) => row.status === 'delivered')).toBe(true);
    expect(failedBadge.colour).not.toBe(deliveredBadge);
    expect((await page.textContent('main')) ?? '').not.toMatch(new RegExp(PHONES.join('|')));
  });

  it('marks a failed report failed on its timeline, in colour and in words, unlike a delivered one', async () => {
    // Prepare
    const delivered = String(
      bridge.bus
        .details('Delivery Report Received')
        .find((detail) => detail.data.resultCode === '10000')?.data.cliKey,
    );
    const dot = (selector: string) =>
      page.$eval(selector, (step) => ({
        colour: step.ownerDocument.defaultView?.getComputedStyle(step, '::before').backgroundColor,
        word: step.querySelector('.status')?.textContent,
      }));

    // Act
    await page.goto(`${consoleUrl}/message?by=key&q=M-FAIL-0`);
    const failed = await dot('#timeline li[data-stage="report"]');
    const title = await page.textContent('#timeline li[data-stage="report"] strong');
    await page.screenshot({ path: join(SHOTS, 'failed.png'), fullPage: true });
    await page.goto(`${consoleUrl}/message?by=key&q=${encodeURIComponent(delivered)}`);
    const ok = await dot('#timeline li[data-stage="report"][data-outcome="delivered"]');

    // Assess
    expect(failed.word).toBe('failed');
    expect(title).toContain('not delivered');
    expect(failed.colour).toBe('rgb(197, 48, 48)');
    expect(ok).toEqual({ colour: 'rgb(47, 133, 90)', word: 'delivered' });
  });

  it('shows an inbound message with its attachment, and a number searched for in full', async () => {
    // Prepare
    const withPhoto = () =>
      bridge.bus.details('Inbound Message Received').find((d) => d.data.attachmentCount === 1);
    expect(await waitFor(() => withPhoto() !== undefined, 60_000)).toBe(true);
    const moKey = String(withPhoto()?.data.moKey);

    // Act
    await page.goto(`${consoleUrl}/message?by=key&q=${encodeURIComponent(moKey)}`);
    const stages = await page.$$eval('#timeline li', (items) =>
      items.map((item) => item.getAttribute('data-stage')),
    );
    const attachment = await page.getAttribute('table.attachments tbody tr', 'data-state');
    const text = (await page.textContent('#message-text')) ?? '';
    await page.screenshot({ path: join(SHOTS, 'inbound.png'), fullPage: true });
    // The number, as people write it, in the one search box.
    await page.goto(consoleUrl);
    const selects = await page.$$('form.search select');
    await page.fill('input[name="q"]', '010-9876-5432');
    await page.click('form.search button');
    await page.waitForSelector('main');
    const searched = (await page.textContent('main')) ?? '';

    // Assess
    expect(stages[0]).toBe('inbound');
    expect(text.length).toBeGreaterThan(0);
    expect(stages).toContain('attachment');
    expect(['stored', 'pending', 'lost']).toContain(attachment);
    expect(selects).toHaveLength(0);
    expect(searched).toContain('01098765432');
    expect(searched).not.toContain('01012345678');
  });

  it('lists a bad webhook body in the quarantine with its reason and raw body, its phone numbers masked in every spelling', async () => {
    // Prepare: a bad body, and an inbound message whose sender and text hold numbers spelled
    // as people write them.
    const bad = await fetch(bridge.urls.reportWebhook, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"rptLst": [<script>alert(1)</script> call +82 10 5678 9012 or 010.6789.0123',
    });
    expect(bad.status).toBeLessThan(300);
    const mo = await fetch(bridge.urls.moWebhook, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        moCnt: 1,
        moLst: [
          {
            moKey: 'MO-SPELLED-1',
            moNumber: '15880000',
            moType: 'SMSMO',
            moCallback: '01056781234',
            moMsg: '제 번호는 010 9012 3456 입니다',
            moRecvDt: '2026-11-28 09:00:00',
            contentCnt: 0,
            contentInfoLst: null,
          },
        ],
      }),
    });
    expect(mo.status).toBe(200);
    // A body of a shape the bridge does not know: kept, with the reason said for it.
    const unknownShape = await fetch(bridge.urls.moWebhook, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ biCnt: 1, biLst: [{ chatbotId: 'bot-1', text: 'hello' }] }),
    });
    expect(unknownShape.status).toBe(200);

    // Act
    await page.goto(`${consoleUrl}/quarantine`);
    const table = (await page.textContent('#quarantine')) ?? '';
    const reasons = await page.$$eval('#quarantine td.reason', (cells) =>
      cells.map((cell) => (cell.textContent ?? '').trim()),
    );
    const scripts = await page.$$('#quarantine script');
    await page.screenshot({ path: join(SHOTS, 'quarantine.png'), fullPage: true });
    await page.goto(`${consoleUrl}/message?by=key&q=MO-SPELLED-1`);
    const message = (await page.textContent('main')) ?? '';

    // Assess
    expect(table).toContain('body is not JSON');
    expect(reasons.length).toBeGreaterThanOrEqual(2);
    expect(reasons.filter((reason) => reason === '')).toEqual([]);
    expect(table).toContain(
      'a body of a shape msgbridge does not know (top-level keys: biCnt, biLst)',
    );
    expect(table).not.toMatch(/QUARANTINE#|UNRECOGNISED#/);
    expect(table).toContain('<script>alert(1)</script>');
    expect(table).not.toMatch(/5678 9012|6789\.0123/);
    expect(message).toContain('MO-SPELLED-1');
    expect(message).not.toMatch(/9012 3456|01056781234/);
    expect(scripts).toHaveLength(0);
  });

  it('replays the last hour after a confirmation and shows its progress to the end', async () => {
    // Prepare
    await page.goto(`${consoleUrl}/quarantine`);
    const before = bridge.bus.replayed.length;

    // Act
    await page.click('form.replay button');
    await page.waitForSelector('#confirm');
    const count = Number(await page.textContent('#replay-count'));
    await page.click('#confirm button');
    await page.waitForSelector('#job');
    await page.waitForSelector('#job:not([data-state="running"])', { timeout: 60_000 });

    // Assess
    expect(count).toBeGreaterThan(0);
    expect(await page.textContent('#job-state')).toBe('done');
    expect(Number(await page.textContent('#job-done'))).toBe(count);
    expect(await page.textContent('#job-message')).toContain(
      `${count} events put on the bus again`,
    );
    expect(bridge.bus.replayed.length - before).toBe(count);
    await page.screenshot({ path: join(SHOTS, 'replay.png'), fullPage: true });
  });

  it('redrives the send DLQ after a confirmation, showing the messages moved', async () => {
    // Prepare: a message the sender gave up on, in the DLQ.
    const sqs = new SQSClient(localClientConfig(bridge.urls.sqs));
    await sqs.send(
      new SendMessageCommand({ QueueUrl: bridge.urls.sendDlq, MessageBody: '{"not": "a send"}' }),
    );
    sqs.destroy();
    await page.goto(`${consoleUrl}/quarantine`);
    const depth = await page.textContent('#dlq-depth');

    // Act
    await page.click('form[action$="/actions/redrive"] button');
    await page.waitForSelector('#confirm');
    const question = (await page.textContent('#confirm')) ?? '';
    await page.click('#confirm button');
    await page.waitForSelector('#job:not([data-state="running"])', { timeout: 60_000 });

    // Assess
    expect(depth).toBe('1');
    expect(question).toContain('Move 1 message from the send DLQ');
    expect(await page.textContent('#job-state')).toBe('done');
    expect(await page.textContent('#job-message')).toBe('moved 1 message to the send queue');
    expect(await page.textContent('#job-done')).toBe('1');
  });

  it('charts the flow per minute and adds events as they are published', async () => {
    // Act
    await page.goto(`${consoleUrl}/flow`);
    await page.waitForSelector('figure.chart canvas');
    await page.waitForSelector('figure.chart:nth-of-type(4) canvas');
    await fetch(bridge.urls.reportWebhook, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"live": ',
    });
    await page.waitForSelector('#flow-events tr.new[data-detail-type="Item Quarantined"]', {
      timeout: 30_000,
    });

    // Assess: the charts in a grid, two to a row at this width, each legend with its values.
    const rows = await page.$$eval('#flow-events tbody tr', (items) => items.length);
    expect(rows).toBeGreaterThan(5);
    expect(
      await page.$eval(
        '#charts',
        (charts) => charts.ownerDocument.defaultView?.getComputedStyle(charts).display,
      ),
    ).toBe('grid');
    const tops = await page.$$eval('figure.chart', (figures) =>
      figures.map((figure) => Math.round(figure.getBoundingClientRect().top)),
    );
    expect(tops[0]).toBe(tops[1]);
    const legends = await page.$$eval('ul.legend', (lists) =>
      lists.map((list) => [...list.querySelectorAll('output')].map((out) => out.textContent)),
    );
    expect(legends).toHaveLength(4);
    for (const values of legends.flat()) expect(values).toMatch(/^\d+( %)?$/);
    const sent = await page.textContent('figure.chart[data-chart^="accepted"] ul.legend');
    expect(sent).toContain('last hour');
    expect(
      Number(await page.textContent('figure.chart[data-chart^="accepted"] output')),
    ).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, 'flow.png') });

    // Act: the same over the last day.
    await page.click('nav.window a:text("Last day")');
    await page.waitForSelector('figure.chart canvas');
    await page.waitForSelector('ul.legend .when:has-text("last day")');

    // Assess
    expect(page.url()).toContain('window=day');
    expect(await page.textContent('main')).toContain('Per quarter of an hour over the last day');
  });

  it('fits a phone’s width: no page wider than the screen, tables scrolling on their own', async () => {
    // Prepare
    const phone = await browser.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    const cliKey = String(bridge.bus.details('Delivery Report Received')[0]?.data.cliKey);
    const overflow = () =>
      phone.$eval(
        'html',
        (root) => root.scrollWidth - (root.ownerDocument.defaultView?.innerWidth ?? 0),
      );

    try {
      // Act
      await phone.goto(consoleUrl);
      await phone.waitForSelector('#latest');
      const home = await overflow();
      // Every key whole on the screen: wrapped where it must be, never cut or off to the side.
      const keys = await phone.$$eval('#latest td.key a, #latest td.key code', (links) =>
        links.map((link) => {
          const box = link.getBoundingClientRect();
          return {
            inside: box.left >= 0 && box.right <= (link.ownerDocument.defaultView?.innerWidth ?? 0),
            whole: link.scrollWidth <= link.clientWidth + 1 || link.clientWidth === 0,
          };
        }),
      );
      await phone.screenshot({ path: join(SHOTS, 'phone-home.png') });
      await phone.goto(`${consoleUrl}/message?q=${encodeURIComponent(cliKey)}`);
      await phone.waitForSelector('#timeline');
      const message = await overflow();
      await phone.screenshot({ path: join(SHOTS, 'phone-timeline.png'), fullPage: true });
      await phone.goto(`${consoleUrl}/flow`);
      await phone.waitForSelector('figure.chart:nth-of-type(4) canvas');
      const flow = await overflow();
      const columns = await phone.$eval(
        '#charts',
        (charts) =>
          charts.ownerDocument.defaultView?.getComputedStyle(charts).gridTemplateColumns.split(' ')
            .length,
      );
      await phone.screenshot({ path: join(SHOTS, 'phone-flow.png') });
      await phone.goto(`${consoleUrl}/quarantine`);
      const quarantine = await overflow();

      // Assess
      expect([home, message, flow, quarantine]).toEqual([0, 0, 0, 0]);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.filter((key) => !key.inside || !key.whole)).toEqual([]);
      expect(columns).toBe(1);
    } finally {
      await phone.close();
    }
  });

  it('is served by msgbridge console on its own port too, in the browser', async () => {
    // Prepare
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const captured = captureDiskIo();
    const run = runCli(
      ['console', '--local', dataDir, '--port', '0'],
      { interrupted: () => stopped },
      captured,
    );
    expect(await waitFor(() => captured.stdout().includes('http://127.0.0.1:'), 30_000)).toBe(true);
    const url = /http:\/\/127\.0\.0\.1:\d+\/console/.exec(captured.stdout())?.[0] ?? '';

    // Act
    await page.goto(`${url}/quarantine`);
    const table = (await page.textContent('#quarantine')) ?? '';
    stop();
    const done = await run;

    // Assess
    expect(url).not.toBe(consoleUrl);
    expect(table).toContain('body is not JSON');
    expect(done.code).toBe(0);
  });

  it('refuses a form without the console token and a request for another host', async () => {
    const forged = await fetch(`${consoleUrl}/actions/replay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'csrf=forged&from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&confirm=yes',
    });
    const rebound = await statusWithHost(consoleUrl, 'attacker.example');
    const badQuery = await fetch(`${consoleUrl}/message?q=a%20b`);
    expect(forged.status).toBe(403);
    expect(rebound).toBe(403);
    expect(badQuery.status).toBe(400);
  });
});

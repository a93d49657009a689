/**
 * `npm start`: the local bridge with embedded defaults. Settings come from the environment and
 * are all checked before anything starts; every problem is reported at once.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { CONSOLE_PATH } from '../console/http.ts';
import { mountConsole } from '../console/serve.ts';
import { startLocalBridge } from '../local/bridge.ts';
import { removeBridgeFile, writeBridgeFile } from '../local/bridge-file.ts';
import { JavaNotFoundError } from '../local/dynamodb-local.ts';
import { restoreQueues, saveQueues } from '../local/queue-snapshot.ts';
import { DataDirInUseError, type RunLock, takeRunLock } from '../local/run-lock.ts';
import {
  parseRunSettings,
  portInUseMessage,
  settingsWithPortsInUse,
} from '../local/run-settings.ts';
import {
  removeSendJournal,
  replaySendJournal,
  SEND_JOURNAL_FILE,
  SEND_JOURNAL_SKIPPED_FILE,
  snapshotSends,
  startSendJournal,
} from '../local/send-journal.ts';
import { readRunningBridge } from '../ops/bridge-file.ts';

// The SDK warns on Node 20 that its releases after January 2027 will need Node 22; the pinned
// versions here support Node 20, and the warning would only clutter the local run's output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const parsed = parseRunSettings(process.env);
if (!parsed.ok) {
  console.error('msgbridge local run: invalid settings');
  for (const problem of parsed.problems) console.error(`  ${problem}`);
  process.exit(2);
}
const settings = parsed.settings;
const generated = (what: string, value: string | undefined) => {
  if (value !== undefined) return { value, note: '' };
  return {
    value: randomBytes(18).toString('base64url'),
    note: ` (generated; set ${what} to fix it)`,
  };
};
const secret = generated('WEBHOOK_SECRET', settings.WEBHOOK_SECRET);
const password = generated('SIMULATOR_API_PASSWORD', settings.SIMULATOR_API_PASSWORD);
const dataDir = resolve(settings.LOCAL_DATA_DIR);

// Two runs on one data directory would share DynamoDB Local's database file and both deliver
// every report: the lock is taken before anything starts (run-lock.ts).
let lock: RunLock;
try {
  lock = await takeRunLock(dataDir);
} catch (error) {
  if (!(error instanceof DataDirInUseError)) throw error;
  const running = await readRunningBridge(dataDir).catch(() => undefined);
  console.error(
    `msgbridge local run: ${error.message}${running ? ` (webhooks ${running.webhooks})` : ''}`,
  );
  process.exit(1);
}

// A taken port would otherwise surface as Node's EADDRINUSE stack trace, and only after the stack
// is synthesized and DynamoDB Local is up: it is looked for first, and named with its setting.
const ports = { PORT: settings.PORT, SIMULATOR_PORT: settings.SIMULATOR_PORT };
const taken = await settingsWithPortsInUse(ports);
if (taken.length > 0) {
  for (const { name, port } of taken)
    console.error(`msgbridge local run: ${await portInUseMessage(name, port)}`);
  await lock.release();
  process.exit(1);
}

console.log(
  'starting msgbridge locally: the synthesized stack on DynamoDB Local, fauxqs and the gateway simulator …',
);
let bridge: Awaited<ReturnType<typeof startLocalBridge>>;
try {
  bridge = await startLocalBridge({
    port: settings.PORT,
    // The console is mounted once the run is up; until then its URL answers "starting".
    reservedMounts: [CONSOLE_PATH],
    simulatorPort: settings.SIMULATOR_PORT,
    webhookSecret: secret.value,
    dataDir,
    apiKey: settings.SIMULATOR_API_KEY,
    apiPassword: password.value,
    tpsQuota: settings.TPS_QUOTA,
    reportDelivery: settings.REPORT_DELIVERY,
    persistTables: true,
  });
} catch (error) {
  // Another program may take a port between the check above and the listen.
  const { code, port } = error as { code?: unknown; port?: unknown };
  const setting = Object.entries(ports).find(([, value]) => value === port)?.[0];
  if (code === 'EADDRINUSE' && setting !== undefined && typeof port === 'number')
    console.error(`msgbridge local run: ${await portInUseMessage(setting, port)}`);
  else console.error(error instanceof JavaNotFoundError ? error.message : error);
  await lock.release();
  process.exit(1);
}

// The report checks too: each is the only reminder to look for its recipients' reports. And the
// publisher's on-failure queue: what `events republish` reads.
const queueUrls = Object.fromEntries(
  Object.values(bridge.queues).map((queue) => [queue.name, queue.url]),
);
const fromSnapshot = await snapshotSends(dataDir).catch(() => new Set<string>());
const restored = await restoreQueues(bridge.sqs, queueUrls, dataDir).catch((error: unknown) => {
  console.error(
    'could not restore the send queues of the last run (kept for the next start):',
    error,
  );
  return {};
});
for (const [name, count] of Object.entries(restored))
  console.log(`restored ${count} message(s) of ${name} from the last run`);
// Sends a run that was killed had accepted: its journal has them (send-journal.ts). A line it
// cannot put back is reported and kept aside; the lines after it are put back all the same.
const recovered = await replaySendJournal(bridge.sqs, queueUrls, dataDir, fromSnapshot).catch(
  (error: unknown) => {
    console.error('could not put back the sends of the journal:', error);
    return { replayed: {}, skipped: [] };
  },
);
for (const [name, count] of Object.entries(recovered.replayed))
  console.log(`recovered ${count} message(s) of ${name} that a stopped run had accepted`);
for (const { line, reason } of recovered.skipped)
  console.error(
    `skipped line ${line} of ${SEND_JOURNAL_FILE}: ${reason} (kept in ${SEND_JOURNAL_SKIPPED_FILE})`,
  );
// Producers reach the queues through the journal, so that an accepted send survives a crash.
const journal = await startSendJournal({
  upstream: bridge.urls.sqs,
  dataDir,
  queues: bridge.fauxqs,
  queueNames: Object.keys(queueUrls),
});
await journal.compact();

await writeBridgeFile(
  dataDir,
  {
    ...bridge,
    // The queue URLs stay fauxqs's (it knows its queues by them); the endpoint is the journal's.
    urls: { ...bridge.urls, sqs: journal.url },
  },
  {
    apiKey: settings.SIMULATOR_API_KEY,
    apiPassword: password.value,
  },
);
// The operator console, on the webhook port, reading this run as `msgbridge --local` does.
const consoleUrl = await mountConsole(bridge, dataDir, { tpsQuota: settings.TPS_QUOTA });

const u = bridge.urls;
const schedules = bridge.stack
  .schedules()
  .map((schedule) => {
    const fn = bridge.stack.functions().find((each) => each.logicalId === schedule.functionId);
    return `${fn?.name ?? schedule.functionId} ${schedule.expression}`;
  })
  .join(', ');
console.log(`
msgbridge is running locally
  console          ${consoleUrl}  (timeline of a message, live flow, quarantine)
  report webhook   POST ${u.webhooks}/webhooks/<secret>/report
  MO webhook       POST ${u.webhooks}/webhooks/<secret>/mo
  webhook secret   ${secret.value}${secret.note}
  gateway sim      ${u.simulator}  (api key ${settings.SIMULATOR_API_KEY}, password ${password.value}${password.note})
  send queue       ${u.sendQueue}  (DLQ ${u.sendDlq})
  DynamoDB Local   ${u.dynamodb}  (tables ${bridge.tables.events}, ${bridge.tables.state})
  S3 (fauxqs)      ${u.s3}  (bucket ${u.attachmentBucket})
  events           printed below and appended to ${u.eventsFile}
  data             ${dataDir} (tables and waiting sends kept across restarts; S3 objects are not)
  stack            ${bridge.stack.functions().length} functions, as \`cdk synth\` wires them (${schedules});
                   reports by ${settings.REPORT_DELIVERY}

Try it:  npm run demo     (a message per channel and a couple of inbound messages)
         npx msgbridge --help  (send, opt-out, tracking URLs, templates … against this run)
Ctrl+C stops everything.
`);

const shutdown = async (signal: string, code = 0) => {
  console.log(`\n${signal}: stopping`);
  // No producer gets an answer from here on; the journal stays until the snapshot is written.
  await journal.close();
  // fauxqs keeps nothing across a stop: once the sender has let go of every message, what still
  // waits is saved for the next start (queue-snapshot.ts).
  await bridge.sender.stop();
  const saved = await saveQueues(bridge.fauxqs, Object.keys(queueUrls), dataDir).then(
    async (counts) => {
      await removeSendJournal(dataDir);
      return counts;
    },
    (error: unknown) => {
      console.error('  could not save the send queues; the send journal keeps them:', error);
      return {};
    },
  );
  for (const [name, count] of Object.entries(saved))
    console.log(`  kept ${count} message(s) of ${name} for the next start`);
  await bridge.stop();
  // Nothing may point at a run that is gone: the CLI and the demo would hit closed ports.
  await removeBridgeFile(dataDir);
  await lock.release();
  process.exit(code);
};
process.once('SIGINT', () => void shutdown('SIGINT'));
process.once('SIGTERM', () => void shutdown('SIGTERM'));

// Last line of defence; the servers themselves answer every request (webhook-server.ts). A
// rejected promise is one failed operation: logged, and the run with its data goes on, where
// Node's default would take DynamoDB Local and every other part down with it. A synchronous
// exception leaves Node in an unknown state (its docs say not to resume), so that one stops the
// run cleanly instead of abruptly.
process.on('unhandledRejection', (reason) => {
  console.error('msgbridge local run: an operation failed unhandled; still running:', reason);
});
process.once('uncaughtException', (error) => {
  console.error('msgbridge local run: unexpected error; stopping:', error);
  void shutdown('uncaughtException', 1);
});

import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Faults, SimulatorOptionsInput } from './options.ts';
import { SimulatorOptionsSchema } from './options.ts';
import { parseSimulatorOptions, type Simulator, startSimulator } from './server.ts';

/**
 * `npm run simulator -- [flags]`: runs the gateway simulator in the foreground. Every option of
 * `SimulatorOptionsSchema` has a flag (see `--help`); bad flags exit 2 listing every problem.
 */

type OptionKey = Exclude<keyof SimulatorOptionsInput, 'faults'>;
type Target = { readonly option: OptionKey } | { readonly fault: keyof Faults };

interface Flag {
  readonly name: string;
  readonly target: Target;
  /** `list` is a comma-separated string. */
  readonly kind: 'string' | 'number' | 'boolean' | 'list';
  readonly value?: string;
  readonly description: string;
}

const option = (
  name: string,
  key: OptionKey,
  kind: Flag['kind'],
  value: string | undefined,
  description: string,
): Flag => ({ name, target: { option: key }, kind, value, description });

/**
 * The fault flags, each named after its key in kebab case (`errorRate` is `--error-rate`): the
 * value shown in `--help` and what the fault does. Every fault has one.
 */
const FAULT_FLAGS: Readonly<Record<keyof Faults, readonly [value: string, description: string]>> = {
  errorRate: ['0..1', 'share of gateway calls answered HTTP 503 49999'],
  latencyMs: ['ms', 'real delay added to every gateway call'],
  latencyJitterMs: ['ms', 'up to this much more delay, drawn uniformly per gateway call (seeded)'],
  timeoutRate: ['0..1', 'share of gateway calls never answered'],
  rateLimitBurst: ['n', 'the next N send calls answer 29002'],
  duplicateWebhookRate: ['0..1', 'share of webhook posts delivered twice'],
  reportWithholdRate: [
    '0..1',
    'share of delivery reports never handed out (only the status query knows them)',
  ],
  http200ErrorRate: ['0..1', 'share of gateway calls refused with HTTP 200 29018/29019/29039'],
  tokenErrorRate: ['0..1', 'share of token issuances and refreshes refused 20003'],
};

const faultFlags = (): Flag[] =>
  Object.entries(FAULT_FLAGS).map(([key, [value, description]]) => ({
    name: key.replace(/[A-Z]/g, (upper) => `-${upper.toLowerCase()}`),
    target: { fault: key as keyof Faults },
    kind: 'number',
    value,
    description,
  }));

const FLAGS: readonly Flag[] = [
  option('host', 'host', 'string', 'address', 'interface to listen on'),
  option('port', 'port', 'number', 'port', 'port to listen on; 0 picks a free one'),
  option('api-key', 'apiKey', 'string', 'key', 'API key clients authenticate with'),
  option(
    'api-password',
    'apiPassword',
    'string',
    'password',
    'API password (env SIMULATOR_API_PASSWORD)',
  ),
  option(
    'clock',
    'clock',
    'string',
    'real|manual',
    'simulated clock: follows wall time, or stands still until advanced',
  ),
  option('seed', 'seed', 'number', 'n', 'seed of the outcome mix and fault draws'),
  option(
    'access-token-ttl-seconds',
    'accessTokenTtlSeconds',
    'number',
    's',
    'access token lifetime',
  ),
  option(
    'refresh-token-ttl-seconds',
    'refreshTokenTtlSeconds',
    'number',
    's',
    'refresh token lifetime',
  ),
  option(
    'tps-quota',
    'tpsQuota',
    'number',
    'n',
    'recipients accepted per simulated second (29002 above it)',
  ),
  option(
    'duplicate-window-seconds',
    'duplicateWindowSeconds',
    'number',
    's',
    'a cliKey seen again within this window answers a duplicate code',
  ),
  option(
    'report-delay-ms',
    'reportDelayMs',
    'number',
    'ms',
    'delay between delivery and its report',
  ),
  option(
    'failure-rate',
    'failureRate',
    'number',
    '0..1',
    'share of recipients whose first channel fails',
  ),
  option(
    'fallback-rate',
    'fallbackRate',
    'number',
    '0..1',
    'share of failures that fall back (when fbInfoLst is given)',
  ),
  option(
    'uncertain-rate',
    'uncertainRate',
    'number',
    '0..1',
    'share of messenger recipients reported 32114',
  ),
  option(
    'report-delivery',
    'reportDelivery',
    'string',
    'polling|webhook|both',
    'how reports leave',
  ),
  option(
    'report-webhook',
    'reportWebhookUrl',
    'string',
    'url',
    'URL report webhooks are posted to',
  ),
  option('mo-webhook', 'moWebhookUrl', 'string', 'url', 'URL MO webhooks are posted to'),
  option(
    'webhook-retry-interval-ms',
    'webhookRetryIntervalMs',
    'number',
    'ms',
    'wait before a failed webhook is posted again',
  ),
  option(
    'webhook-timeout-ms',
    'webhookTimeoutMs',
    'number',
    'ms',
    'how long a webhook post waits for an answer',
  ),
  option(
    'webhook-retention-ms',
    'webhookRetentionMs',
    'number',
    'ms',
    'undelivered webhook reports are dropped after this',
  ),
  option(
    'report-batch-size',
    'reportBatchSize',
    'number',
    '1..100',
    'reports per poll page and per webhook body',
  ),
  option(
    'confirm-window-ms',
    'confirmWindowMs',
    'number',
    'ms',
    'polled reports come back unless confirmed within this',
  ),
  option(
    'min-empty-poll-interval-ms',
    'minEmptyPollIntervalMs',
    'number',
    'ms',
    'minimum wait after an empty poll',
  ),
  option(
    'poll-expiry-ms',
    'pollExpiryMs',
    'number',
    'ms',
    'reports nobody polled are removed after this',
  ),
  option('mo-retention-ms', 'moRetentionMs', 'number', 'ms', 'MO messages are kept this long'),
  option(
    'content-url-validity-ms',
    'contentUrlValidityMs',
    'number',
    'ms',
    'MO attachment URLs work this long',
  ),
  option(
    'date-style',
    'dateStyle',
    'string',
    'standard|mixed',
    'date-time formats in reports and MO',
  ),
  option(
    'allowed-ips',
    'allowedIps',
    'list',
    'ip,ip',
    'source addresses allowed to call (20001 / 29025 for others)',
  ),
  option(
    'duplicate-code',
    'duplicateCode',
    'string',
    '29005|29023|29024|mixed',
    'code a repeated cliKey is answered with',
  ),
  option(
    'empty-poll-style',
    'emptyPollStyle',
    'string',
    'null|zero|mixed',
    'empty poll answers data null, rptCnt 0, or either',
  ),
  option(
    'fb-reason-style',
    'fbReasonStyle',
    'string',
    'list|mixed',
    'fbReasonLst without fallback: [] only, or [], null or missing',
  ),
  option(
    'report-order',
    'reportOrder',
    'string',
    'ordered|shuffled',
    'reports delivered in order or shuffled',
  ),
  option(
    'internal-approval',
    'internalApproval',
    'boolean',
    undefined,
    'rejected messenger templates may be sent for review again',
  ),
  ...faultFlags(),
  option('verbose', 'verbose', 'boolean', undefined, 'print one line per gateway call and webhook'),
];

/** Defaults of the command line that differ from the library's (`npm start` needs no flags). */
const CLI_DEFAULTS = { port: 4010, apiKey: 'local-key' } as const;

const defaultText = (flag: Flag): string => {
  const defaults = SimulatorOptionsSchema.parse({ ...CLI_DEFAULTS, apiPassword: '-' });
  if ('fault' in flag.target) return String(defaults.faults[flag.target.fault]);
  switch (flag.target.option) {
    case 'apiPassword':
      return 'random, printed at start';
    case 'reportDelivery':
      return 'webhook when --report-webhook is set, else polling';
    default: {
      const value = defaults[flag.target.option];
      return value === undefined ? 'none' : String(value);
    }
  }
};

const helpText = (): string => {
  const lines = FLAGS.map((flag) => {
    const left = `--${flag.name}${flag.value === undefined ? '' : ` <${flag.value}>`}`;
    return `  ${left.padEnd(42)}${flag.description} (default: ${defaultText(flag)})`;
  });
  return [
    'Gateway simulator: a local HTTP implementation of the messaging gateway (spec 01).',
    '',
    'Usage: npm run simulator -- [flags]',
    '',
    'Flags:',
    ...lines,
    `  ${'--help'.padEnd(42)}print this help`,
  ].join('\n');
};

type Parsed =
  | { readonly kind: 'help' }
  | {
      readonly kind: 'run';
      readonly input: SimulatorOptionsInput;
      readonly generatedPassword?: string;
    }
  | { readonly kind: 'invalid'; readonly problems: readonly string[] };

/** Turns the command line into simulator options, collecting every problem before failing. */
const parseCommandLine = (args: readonly string[], env: NodeJS.ProcessEnv): Parsed => {
  const { tokens } = parseArgs({
    args: [...args],
    options: Object.fromEntries(
      [...FLAGS, { name: 'help', kind: 'boolean' as const }].map((flag) => [
        flag.name,
        { type: flag.kind === 'boolean' ? ('boolean' as const) : ('string' as const) },
      ]),
    ),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const problems: string[] = [];
  const options: Record<string, unknown> = { ...CLI_DEFAULTS };
  const faults: Record<string, unknown> = {};
  let help = false;
  for (const token of tokens) {
    if (token.kind === 'positional') problems.push(`unexpected argument "${token.value}"`);
    if (token.kind !== 'option') continue;
    if (token.name === 'help') {
      help = true;
      continue;
    }
    const flag = FLAGS.find((candidate) => candidate.name === token.name);
    if (!flag) {
      problems.push(`unknown flag ${token.rawName}`);
      continue;
    }
    const value = readValue(flag, token.value, token.inlineValue === true);
    if (typeof value === 'object' && !Array.isArray(value)) {
      problems.push(`${token.rawName}: ${value.problem}`);
      continue;
    }
    if ('fault' in flag.target) faults[flag.target.fault] = value;
    else options[flag.target.option] = value;
  }
  if (help) return { kind: 'help' };

  let generatedPassword: string | undefined;
  if (options.apiPassword === undefined) {
    const fromEnv = env.SIMULATOR_API_PASSWORD;
    if (fromEnv) options.apiPassword = fromEnv;
    else {
      generatedPassword = randomBytes(12).toString('base64url');
      options.apiPassword = generatedPassword;
    }
  }
  if (Object.keys(faults).length > 0) options.faults = faults;
  const parsed = parseSimulatorOptions(options);
  if ('problems' in parsed) problems.push(...parsed.problems.map(withFlagName));
  if (problems.length > 0 || !('options' in parsed)) return { kind: 'invalid', problems };
  return {
    kind: 'run',
    input: parsed.options,
    ...(generatedPassword ? { generatedPassword } : {}),
  };
};

const readValue = (
  flag: Flag,
  raw: string | undefined,
  inline: boolean,
): string | number | boolean | string[] | { problem: string } => {
  if (flag.kind === 'boolean') {
    return raw === undefined ? true : { problem: 'takes no value' };
  }
  // parseArgs takes the next argument as the value even when it is another flag.
  if (raw === undefined || (!inline && raw.startsWith('--'))) {
    return { problem: `needs a value <${flag.value ?? 'value'}>` };
  }
  if (flag.kind === 'string') return raw;
  if (flag.kind === 'list') return raw.split(',').map((item) => item.trim());
  const number = Number(raw);
  return raw.trim() === '' || !Number.isFinite(number)
    ? { problem: `expected a number, got "${raw}"` }
    : number;
};

/** Rewrites `faults.errorRate: …` / `tpsQuota: …` from zod into the flag the user typed. */
const withFlagName = (line: string): string => {
  const [path = '', ...rest] = line.split(': ');
  const key = path.replace(/^faults\./, '');
  const flag = FLAGS.find((candidate) =>
    'fault' in candidate.target ? candidate.target.fault === key : candidate.target.option === key,
  );
  return flag ? `--${flag.name}: ${rest.join(': ')}` : line;
};

const describeStart = (simulator: Simulator, generatedPassword: string | undefined): string => {
  const { options, hosts } = simulator;
  const delivery = options.reportDelivery ?? (options.reportWebhookUrl ? 'webhook' : 'polling');
  return [
    `gateway simulator listening on ${simulator.url}`,
    `  api_url   ${hosts.api}`,
    `  send_url  ${hosts.send}`,
    `  mnt_url   ${hosts.mnt}`,
    `  api key   ${options.apiKey}`,
    generatedPassword
      ? `  password  ${generatedPassword}  (generated; set --api-password or SIMULATOR_API_PASSWORD)`
      : '  password  as given',
    `  clock ${options.clock}, reports by ${delivery}${options.reportWebhookUrl ? ` to ${options.reportWebhookUrl}` : ''}`,
    ...(options.moWebhookUrl ? [`  MO webhook ${options.moWebhookUrl}`] : []),
    `  control   ${simulator.url}/_sim/state (clock, faults, MO injection: see simulator/README.md)`,
    'Ctrl+C stops it.',
  ].join('\n');
};

const main = async (): Promise<void> => {
  const parsed = parseCommandLine(process.argv.slice(2), process.env);
  if (parsed.kind === 'help') {
    console.log(helpText());
    return;
  }
  if (parsed.kind === 'invalid') {
    console.error(
      `simulator: invalid command line:\n${parsed.problems.map((p) => `  - ${p}`).join('\n')}\nRun with --help for every flag.`,
    );
    process.exitCode = 2;
    return;
  }
  const simulator = await startSimulator(parsed.input);
  console.log(describeStart(simulator, parsed.generatedPassword));
  const stop = (signal: string) => {
    console.log(`simulator: ${signal}, stopping`);
    simulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('simulator: close failed', error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
};

main().catch((error: unknown) => {
  console.error('simulator: failed to start:', error instanceof Error ? error.message : error);
  process.exitCode = 1;
});

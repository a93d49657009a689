/**
 * The project's modules and which of them each may import. `test/unit/architecture.test.ts` holds
 * the code to these rules (every import between two modules must be allowed here, and every
 * permission here must be used by an import), and `npm run docs:architecture` writes them as the
 * "Modules" table of docs/architecture.md, which the same test compares with this file.
 */

/** One module: a folder of the repository and the modules its files may import. */
export interface ModuleRule {
  /** The folder, from the repository root; a file belongs to the longest folder that holds it. */
  readonly folder: string;
  /** What lives there (Markdown, one sentence or two). */
  readonly holds: string;
  /** The modules (by folder) it may import besides itself; `*` is every module. */
  readonly mayImport: readonly string[];
}

const SLICE_BASE = ['functions/commons', 'gateway'];

export const MODULES: readonly ModuleRule[] = [
  {
    folder: 'protocol',
    holds:
      "Pure helpers of the gateway's wire protocol that the bridge and the simulator share: the apiPwd hash, KST date-times, CP949 byte counting.",
    mayImport: [],
  },
  {
    folder: 'gateway',
    holds:
      'The typed gateway client: `client.ts` (messaging), `management/` (messenger channels and templates, RCS brands), the wire layer (`transport.ts` the HTTP exchange, `envelope.ts` the envelope rules, `errors.ts`), `token-api.ts` (issue and refresh), `bearer/` (token providers and the fresh-token retry), `schemas/`, `settings.ts`.',
    mayImport: ['protocol'],
  },
  {
    folder: 'functions/commons',
    holds:
      'What every slice shares: the AWS clients (`clients/`), the table names and key layout (`tables.ts`, `table-keys.ts`), the environment readers, what a caller may hand a composition (`composition.ts`), logging and metrics, the lease, small helpers (`helpers/`).',
    mayImport: [],
  },
  {
    folder: 'functions/send-contract',
    holds:
      'The queue-message contract producers write and the sender reads (`queue-message*.ts`: schema, checks, parsing, JSON Schema) and the channels a message may name.',
    mayImport: ['functions/commons', 'gateway', 'protocol'],
  },
  {
    folder: 'functions/catalogue',
    holds:
      "The public event contract: every event type a constant of its own with its schema (`catalogue.ts`; the events of unreadable bodies in `body-events.ts`, the statistics in `statistics-events.ts`), the whole catalogue for what reads all of it (`index.ts`: the documents, the registry, the console; a Lambda imports the events it builds, never this), the envelope and its name-based ids, a message's status and its order, the names the generated files derive from a detail-type.",
    mayImport: ['functions/commons', 'functions/send-contract', 'gateway'],
  },
  {
    folder: 'functions/event-table',
    holds:
      'The event table that every slice writes through: the stored item (`event-record.ts`), its size limits, the store ports (`ports.ts`), the DynamoDB event store and the one reader of the reports of a msgKey, the payload bucket and its S3 store, the stream filter.',
    mayImport: ['functions/catalogue', 'functions/commons'],
  },
  {
    folder: 'functions/received-items',
    holds:
      'Storing the report and MO items the gateway hands over, however they arrive (webhook, polling, status query): `receive-items.ts` splits a body into items and stores each, `item-records.ts` the record of each, `body-records.ts` those of a quarantined item or an unrecognised body (imported on first use), `item-context.ts` what the records of one body share, `receive-environment.ts` the stores from the environment.',
    mayImport: [
      'functions/commons',
      'functions/catalogue',
      'functions/event-table',
      'gateway',
      'protocol',
    ],
  },
  {
    folder: 'functions/send-records',
    holds:
      'What a send leaves behind, written by the sender and read by reconcile-status: the send record and its claim, outcome records, unknown outcomes and report checks (`ports.ts`), the DynamoDB send store and the SQS report-check queue (`adapters/`).',
    mayImport: [
      'functions/commons',
      'functions/catalogue',
      'functions/event-table',
      'functions/send-contract',
      'gateway',
      'protocol',
    ],
  },
  {
    folder: 'functions/publishing',
    holds:
      '`publish-events`: the stream records of new event items put on the bus (`publish.ts`), the stream batch handler, its composition, the EventBridge bus and the publish ledger (`adapters/`).',
    mayImport: ['functions/commons', 'functions/catalogue', 'functions/event-table'],
  },
  {
    folder: 'functions/gateway-access',
    holds:
      "The gateway token every function shares (its state-table record, the provider that reads and renews it), the gateway credentials, and the gateway client composed from a function's environment.",
    mayImport: SLICE_BASE,
  },
  {
    folder: 'functions/webhooks',
    holds:
      'The webhook receivers: the HTTP contract (path secret, body decoding, source allowlist, 200/204/400 and the `10000` body) (`handler.ts`) and their composition (`compose.ts`, `composeReceiver`).',
    mayImport: ['functions/commons', 'functions/event-table', 'functions/received-items'],
  },
  {
    folder: 'functions/sending',
    holds:
      'Sending from the queue: the use case (`send-use-case.ts`) and its ports, the rate limiter, the queue record handler (`handler.ts`) and the composition (`compose.ts`, `composeSender`), the gateway sender and the DynamoDB rate limiter (`adapters/`).',
    mayImport: [
      ...SLICE_BASE,
      // The claim check of a rejected message too large for its item, as the receivers keep bodies.
      'functions/event-table',
      'functions/gateway-access',
      'functions/send-contract',
      'functions/send-records',
    ],
  },
  {
    folder: 'functions/polling',
    holds:
      'Report polling: the use case, its composition and handler, the poller lease, the storing and quarantine of polled pages.',
    mayImport: [...SLICE_BASE, 'functions/gateway-access', 'functions/received-items', 'protocol'],
  },
  {
    folder: 'functions/reconcile',
    holds:
      'reconcile-status: late reports by status query and unknown outcomes decided, with its composition, its handler of both triggers, ports and the event-table adapter it reads stored reports and unknown outcomes through.',
    mayImport: [
      ...SLICE_BASE,
      'functions/catalogue',
      'functions/event-table',
      'functions/gateway-access',
      'functions/received-items',
      'functions/send-contract',
      'functions/send-records',
      'protocol',
    ],
  },
  {
    folder: 'functions/attachments',
    holds:
      'MO attachments: fetching and sweeping, the content-URL policy, the attachment store, downloads and S3 object storage.',
    mayImport: [
      ...SLICE_BASE,
      'functions/catalogue',
      'functions/event-table',
      'functions/gateway-access',
    ],
  },
  {
    folder: 'functions/statistics',
    holds:
      "The statistics export: the gateway's daily statistics as events and in S3, with its composition and handler.",
    mayImport: [
      ...SLICE_BASE,
      'functions/catalogue',
      'functions/event-table',
      'functions/gateway-access',
      'protocol',
    ],
  },
  {
    folder: 'functions/tokens',
    holds:
      'refresh-token: the job that keeps the shared gateway token fresh, with its composition and handler.',
    mayImport: [...SLICE_BASE, 'functions/gateway-access'],
  },
  {
    folder: 'functions',
    holds:
      "The Lambda entries, one file per function (`receive-reports.ts`, `send-messages.ts`, …): each wraps its slice's handler in middy.",
    mayImport: [
      'functions/attachments',
      'functions/webhooks',
      'functions/polling',
      'functions/publishing',
      'functions/reconcile',
      'functions/sending',
      'functions/statistics',
      'functions/tokens',
    ],
  },
  {
    folder: 'lib',
    holds:
      'The CDK constructs (`MsgBridge`, `MsgbridgeStack` and every capability), reading a few constants and the stream filters of `functions/`.',
    mayImport: [
      'functions/attachments',
      'functions/commons',
      'functions/catalogue',
      'functions/event-table',
      'functions/webhooks',
      'functions/polling',
      'functions/reconcile',
      'functions/sending',
      'functions/statistics',
      'gateway',
    ],
  },
  {
    folder: 'events',
    holds: "The subscribers' event types (`msgbridge/events`), generated from the catalogue.",
    mayImport: [],
  },
  {
    folder: 'producer',
    holds:
      'The validating producer library (`msgbridge/send`) for services that enqueue sends, and the example messages.',
    mayImport: ['functions/commons', 'functions/send-contract'],
  },
  {
    folder: 'aws-semantics',
    holds:
      "AWS's documented behaviour that both the local run and the operator operations apply: Lambda event filtering over EventBridge patterns, the stream record a function receives, reading a synthesized CloudFormation template, the concurrency a template fixes, an account's default quotas per Region.",
    mayImport: [],
  },
  {
    folder: 'ops',
    holds:
      'The operator operations and queries the CLI, the console and the local run share: the target (a stack or the local run) and its clients, the local run file reader, trace, phone search, quarantine, republish, redrive, replay, doctor, and how an operator reads a time (KST with its zone, or UTC).',
    mayImport: [
      'aws-semantics',
      'functions/commons',
      'functions/catalogue',
      'functions/event-table',
      'functions/gateway-access',
      'functions/publishing',
      'functions/send-records',
      'gateway',
      'protocol',
    ],
  },
  {
    folder: 'cli',
    holds: 'The `msgbridge` commands and their framework (options, output, errors, exit codes).',
    mayImport: ['functions/commons', 'functions/send-contract', 'gateway', 'ops', 'producer'],
  },
  {
    folder: 'console',
    holds: 'The operator console: its pages, HTML and HTTP handling, served on a target.',
    mayImport: [
      'functions/commons',
      'functions/catalogue',
      'functions/event-table',
      'functions/send-records',
      'ops',
      'protocol',
    ],
  },
  {
    folder: 'simulator',
    holds: 'The gateway simulator, written from the spec; it shares only `protocol/`.',
    mayImport: ['protocol'],
  },
  {
    folder: 'local',
    holds:
      'The local runtime: the synthesized template read as a deployment (`stack/`), what AWS does for it (`aws/`), DynamoDB Local and fauxqs, the bridge with the simulator and the webhook server.',
    mayImport: [
      'aws-semantics',
      'functions/attachments',
      'functions/commons',
      'functions/event-table',
      'functions/webhooks',
      'functions/polling',
      'functions/publishing',
      'functions/reconcile',
      // Only to import, at start, the records of unreadable bodies the receivers load on first
      // use (`first-use-modules.ts`), as the gateway schemas below.
      'functions/received-items',
      'functions/send-contract',
      'functions/sending',
      'functions/statistics',
      'functions/tokens',
      // Only to import, at start, the gateway schemas the functions load on first use
      // (`first-use-modules.ts`): in one process such an import stalls the others' calls.
      'gateway',
      'lib',
      'ops',
      'producer',
      'protocol',
      'simulator',
    ],
  },
  {
    folder: 'bin',
    holds:
      'The executables, which wire modules that import no one another: the CDK app (`msgbridge.ts`), the `msgbridge` command with the console (`cli.ts`, which `msgbridge-cli.mjs` runs in a checkout and the package ships compiled), `npm start` with the console (`start.ts`).',
    mayImport: ['cli', 'console', 'lib', 'local', 'ops'],
  },
  {
    folder: 'fixtures',
    holds: 'Sample queue-message and gateway bodies that the tests and the benchmarks build on.',
    mayImport: [],
  },
  {
    folder: 'scripts',
    holds:
      'The docs generators, the package build, the stack policy, the test runner, and this rule set.',
    mayImport: [
      'aws-semantics',
      'functions/catalogue',
      'functions/reconcile',
      'functions/send-contract',
      'gateway',
      'lib',
      'local',
      'producer',
    ],
  },
  {
    folder: 'bench',
    holds: 'The benchmarks (`npm run bench`).',
    mayImport: [
      'aws-semantics',
      'console',
      'fixtures',
      'functions/commons',
      'functions/event-table',
      'functions/webhooks',
      'functions/publishing',
      'functions/send-contract',
      'functions/send-records',
      'functions/sending',
      'gateway',
      'lib',
      'local',
      'producer',
      'simulator',
    ],
  },
  {
    folder: 'chaos',
    holds: 'The seeded fault-injection run (`npm run chaos`).',
    mayImport: [
      'functions/commons',
      'functions/polling',
      'functions/publishing',
      'functions/send-contract',
      'functions/sending',
      'local',
      'producer',
      'protocol',
      'simulator',
    ],
  },
  {
    folder: 'docs/examples',
    holds:
      "The documentation's example programs: apps written against the package's entry points, and in `gateway/` this repository's gateway client on its own.",
    mayImport: ['events', 'gateway', 'lib', 'producer'],
  },
  {
    folder: 'test',
    holds: 'The test tiers and their support; nothing outside it imports it.',
    mayImport: ['*'],
  },
];

/** The module `file` (a path from the root) belongs to: the longest folder holding it. */
export const moduleOf = (
  file: string,
  rules: readonly ModuleRule[] = MODULES,
): string | undefined =>
  rules
    .map((rule) => rule.folder)
    .filter((folder) => file.startsWith(`${folder}/`))
    .sort((a, b) => b.length - a.length)[0];

/** An import from one module into another. */
export interface ModuleEdge {
  readonly from: string;
  readonly to: string;
  /** One import that makes it, `importer -> imported`. */
  readonly example: string;
}

/** The imports between modules of `graph` (file → imported files, paths from the root). */
export const moduleEdges = (
  graph: ReadonlyMap<string, readonly string[]>,
  rules: readonly ModuleRule[] = MODULES,
): ModuleEdge[] => {
  const edges = new Map<string, ModuleEdge>();
  for (const [file, imports] of graph) {
    const from = moduleOf(file, rules) ?? file;
    for (const target of imports) {
      const to = moduleOf(target, rules) ?? target;
      if (from === to || edges.has(`${from} ${to}`)) continue;
      edges.set(`${from} ${to}`, { from, to, example: `${file} -> ${target}` });
    }
  }
  return [...edges.values()];
};

/** The imports the rules do not allow (a file outside every module is never allowed). */
export const forbiddenImports = (
  graph: ReadonlyMap<string, readonly string[]>,
  rules: readonly ModuleRule[] = MODULES,
): string[] => {
  const allowed = new Map(rules.map((rule) => [rule.folder, new Set(rule.mayImport)]));
  return moduleEdges(graph, rules)
    .filter((edge) => {
      const may = allowed.get(edge.from);
      return may === undefined || !(may.has('*') || may.has(edge.to));
    })
    .map((edge) => `${edge.from} may not import ${edge.to}: ${edge.example}`);
};

/** The permissions no import uses: the rules may not be looser than the code. */
export const unusedPermissions = (
  graph: ReadonlyMap<string, readonly string[]>,
  rules: readonly ModuleRule[] = MODULES,
): string[] => {
  const used = new Set(moduleEdges(graph, rules).map((edge) => `${edge.from} ${edge.to}`));
  return rules.flatMap((rule) =>
    rule.mayImport
      .filter((to) => to !== '*' && !used.has(`${rule.folder} ${to}`))
      .map((to) => `${rule.folder} may import ${to}, but nothing does`),
  );
};

/**
 * The imports the scanner of the architecture test may not follow to a file, let pass by name:
 * the importing file, the specifier exactly as written, and why it cannot be a quoted name the
 * scanner reads. Every other import names a file (relative, or a path name of tsconfig.json) or a
 * package; one that cannot be followed fails the test, since it could hide any edge.
 */
export interface UnfollowedImport {
  readonly file: string;
  readonly specifier: string;
  readonly reason: string;
}

export const UNFOLLOWED_IMPORTS: readonly UnfollowedImport[] = [
  {
    file: 'local/aws/local-queues.ts',
    specifier: 'pathToFileURL(bodyCheckFile()).href',
    reason:
      "fauxqs's body-check module is a file inside the fauxqs package that its `exports` do not name: it is found where Node resolves the package and imported by its URL, so that the local queue takes the bodies SQS takes. It is a package's file, never one of this repository.",
  },
];

/** An import the scanner could not follow: the file, the specifier as written, and why. */
interface Unfollowed {
  readonly file: string;
  readonly specifier: string;
  readonly why: string;
}

const exempts = (exemption: UnfollowedImport, found: Unfollowed): boolean =>
  exemption.file === found.file && exemption.specifier === found.specifier;

/** The imports the scanner could not follow that no exemption names (file and specifier both). */
export const refusedImports = (
  unfollowed: readonly Unfollowed[],
  exemptions: readonly UnfollowedImport[] = UNFOLLOWED_IMPORTS,
): string[] =>
  unfollowed
    .filter((found) => !exemptions.some((exemption) => exempts(exemption, found)))
    .map((found) => `${found.file}: ${found.specifier} ${found.why}`);

/** The exemptions no import needs: one may not outlive the import it names. */
export const unusedExemptions = (
  unfollowed: readonly Unfollowed[],
  exemptions: readonly UnfollowedImport[] = UNFOLLOWED_IMPORTS,
): string[] =>
  exemptions
    .filter((exemption) => !unfollowed.some((found) => exempts(exemption, found)))
    .map((exemption) => `${exemption.file} may import ${exemption.specifier}, but does not`);

/** The rules as the Markdown table of docs/architecture.md. */
export const modulesTable = (rules: readonly ModuleRule[] = MODULES): string =>
  [
    '| Module | What lives there | May import |',
    '| --- | --- | --- |',
    ...rules.map((rule) => {
      const may =
        rule.mayImport.length === 0
          ? 'nothing'
          : rule.mayImport.includes('*')
            ? 'everything'
            : rule.mayImport.map((folder) => `\`${folder}/\``).join(', ');
      return `| \`${rule.folder}/\` | ${rule.holds} | ${may} |`;
    }),
  ].join('\n');

export const TABLE_BEGIN = '<!-- modules table: npm run docs:architecture -->';
export const TABLE_END = '<!-- end of modules table -->';

/** `document` with the text between the table's markers replaced by `table`. */
export const withModulesTable = (document: string, table: string = modulesTable()): string => {
  const begin = document.indexOf(TABLE_BEGIN);
  const end = document.indexOf(TABLE_END);
  if (begin < 0 || end < begin)
    throw new Error('docs/architecture.md has no modules table markers');
  return `${document.slice(0, begin + TABLE_BEGIN.length)}\n${table}\n${document.slice(end)}`;
};

/**
 * What a synthesized template holds that bills by the month, read from its resources, and what
 * its scheduled functions do at idle: the input of the idle month (`idle-month-model.ts`). The
 * custom metrics a function emits are read from its code by hand (`IDLE_METRICS`,
 * `WORKING_METRICS`): EMF metric names are built at run time, so no template shows them.
 */
import type { CfnResource, CfnTemplate } from '../aws-semantics/cloudformation-template.ts';
import type { Inventory, ScheduledFunction } from './idle-month-model.ts';

/**
 * Custom metrics (name × dimension set) each scheduled function emits on every idle run, from its
 * code: Powertools' `service` dimension makes each name one metric per function, and its
 * `ColdStart` metric (dimensions `service`, `function_name`) one more each. A counter added with
 * 0 is still a data point, so a billed metric-hour.
 */
export const IDLE_METRICS: Readonly<Record<string, readonly string[]>> = {
  // functions/tokens/handler.ts, on success.
  'refresh-token': [
    'TokenRefreshFailures',
    'GatewayCredentialsNotSet',
    'TokenMinutesLeft',
    'ColdStart',
  ],
  // functions/reconcile/handler.ts, the scheduled run: its counts, zero or not.
  'reconcile-status': [
    'StatusQueries',
    'ReportsReconciled',
    'StatusUnavailable',
    'StillPending',
    'ReconcileStoreFailures',
    'NotQueried',
    'UnknownOutcomesAccepted',
    'UnknownOutcomesNotSent',
    'UnknownOutcomesPending',
    'ColdStart',
  ],
  // functions/attachments/handler.ts: a metric only when an attachment is retried or lost.
  'sweep-attachments': ['ColdStart'],
};

/** The metrics of one webhook receiver: both receivers emit the same names. */
const RECEIVER_METRICS = [
  'Stored',
  'Duplicate',
  'ItemsQuarantined',
  'UnrecognisedBodies',
  'StoreFailures',
  'WebhookSecretRejected',
  'ColdStart',
] as const;

/** The further metrics of a deployment at work (every function's, as its code adds them). */
export const WORKING_METRICS: Readonly<Record<string, readonly string[]>> = {
  // functions/sending/handler.ts, rate-limit-metrics.ts.
  'send-messages': [
    'SendsRejectedInvalid',
    'RecipientsAccepted',
    'RecipientsRejected',
    'RecipientsScheduled',
    'RecipientsOutcomeUnknown',
    'SendRetries',
    'RateLimitWaitMilliseconds',
    'RateLimitWaits',
    'RateLimitWaitsExceeded',
    'QuotaRecipientsReserved',
    'ColdStart',
  ],
  // functions/webhooks/handler.ts (a `Reports…` or `Messages…` prefix per receiver).
  'receive-reports': RECEIVER_METRICS,
  'receive-inbound': RECEIVER_METRICS,
  // functions/publishing/handler.ts.
  'publish-events': [
    'PoisonRecords',
    'PublishFailures',
    'EventsPublished',
    'EventsMarkedUnpublished',
    'SettledRecordsSkipped',
    'EventsUnguarded',
    'ColdStart',
  ],
  // functions/reconcile/handler.ts, the report checks.
  'reconcile-status': [
    'ReportChecksFinished',
    'ReportChecksPostponed',
    'ReportChecksExpired',
    'ReportChecksInvalid',
  ],
  // functions/attachments/handler.ts.
  'fetch-attachments': [
    'AttachmentsStored',
    'AttachmentBytesStored',
    'AttachmentDownloadFailures',
    'AttachmentsLost',
    'ColdStart',
  ],
  'sweep-attachments': [
    'AttachmentsStored',
    'AttachmentBytesStored',
    'AttachmentDownloadFailures',
    'AttachmentsLost',
  ],
};

/** The count of `metrics`' names, all functions together. */
export const metricCount = (metrics: Readonly<Record<string, readonly string[]>>): number =>
  Object.values(metrics).reduce((sum, names) => sum + names.length, 0);

/** What the idle month takes from the run of a scheduled function: measured or modelled. */
export interface IdleRun {
  readonly msPerInvocation: number;
  readonly timeBasis: string;
  readonly unitsPerInvocation: Readonly<Record<string, number>>;
  readonly logBytesPerInvocation: number;
}

type Resources = Readonly<Record<string, CfnResource>>;

const ofType = (resources: Resources, type: string) =>
  Object.entries(resources).filter(([, resource]) => resource.Type === type);

/** The function name a construct path ends in (`…/scheduled-jobs/refresh-token/Resource`). */
const functionNameOf = (resource: CfnResource): string => {
  const path = String(resource.Metadata?.['aws:cdk:path'] ?? '');
  return path.split('/').at(-2) ?? path;
};

/** The logical id a `Fn::GetAtt [id, Arn]` or `Ref` points at. */
const targetId = (value: unknown): string | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const getAtt = (value as { 'Fn::GetAtt'?: unknown })['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return getAtt[0];
  const ref = (value as { Ref?: unknown }).Ref;
  return typeof ref === 'string' ? ref : undefined;
};

/** Minutes of a `rate(N minute[s]|hour[s])` expression; a cron or other rate is refused. */
export const rateMinutes = (expression: string): number => {
  const match = /^rate\((\d+) (minute|minutes|hour|hours)\)$/.exec(expression);
  if (!match) throw new Error(`idle month: cannot read the schedule "${expression}"`);
  const n = Number(match[1]);
  return match[2]?.startsWith('hour') ? n * 60 : n;
};

/** Metrics an alarm bills: one, or each metric a metric-math alarm reads. */
const alarmMetricsOf = (alarm: CfnResource): number => {
  const metrics = alarm.Properties?.Metrics;
  if (!Array.isArray(metrics)) return 1;
  return metrics.filter((m) => typeof m === 'object' && m !== null && 'MetricStat' in m).length;
};

/**
 * The inventory of `template`: counted from its resources, with `runs` for what its scheduled
 * functions do at idle (by function name; a scheduled function without one is refused).
 */
export const inventoryOf = (
  template: CfnTemplate,
  runs: Readonly<Record<string, IdleRun>>,
): Inventory => {
  const resources = template.Resources;
  const count = (type: string) => ofType(resources, type).length;
  const schedules: ScheduledFunction[] = ofType(resources, 'AWS::Scheduler::Schedule')
    .filter(([, schedule]) => schedule.Properties?.State !== 'DISABLED')
    .map(([id, schedule]) => {
      const target = schedule.Properties?.Target as { Arn?: unknown } | undefined;
      const fnId = targetId(target?.Arn);
      const fn = fnId === undefined ? undefined : resources[fnId];
      if (fn?.Type !== 'AWS::Lambda::Function')
        throw new Error(`idle month: schedule ${id} targets no function of the template`);
      const name = functionNameOf(fn);
      const run = runs[name];
      if (!run) throw new Error(`idle month: no idle run of ${name}`);
      const props = fn.Properties ?? {};
      return {
        name,
        everyMinutes: rateMinutes(String(schedule.Properties?.ScheduleExpression)),
        memoryMb: Number(props.MemorySize ?? 128),
        traced: (props.TracingConfig as { Mode?: string } | undefined)?.Mode === 'Active',
        inVpc: props.VpcConfig !== undefined,
        ...run,
      };
    });
  const mappings = ofType(resources, 'AWS::Lambda::EventSourceMapping').map(
    ([, mapping]) => targetId(mapping.Properties?.EventSourceArn) ?? '',
  );
  const sourceType = (id: string) => resources[id]?.Type;
  const instances = ofType(resources, 'AWS::EC2::Instance');
  // `prices.ts` has the t4g.nano's hour only: another type would be priced wrong, so it is refused.
  for (const [id, instance] of instances)
    if (instance.Properties?.InstanceType !== 't4g.nano')
      throw new Error(
        `idle month: ${id} is a ${String(instance.Properties?.InstanceType)}; add its hourly price to bench/prices.ts`,
      );
  const volumeGb = instances
    .flatMap(([, instance]) => {
      const mappingsOf = instance.Properties?.BlockDeviceMappings;
      return Array.isArray(mappingsOf)
        ? mappingsOf.map((m) =>
            Number((m as { Ebs?: { VolumeSize?: number } }).Ebs?.VolumeSize ?? 0),
          )
        : [];
    })
    .reduce((sum, gb) => sum + gb, 0);
  const logGroups = ofType(resources, 'AWS::Logs::LogGroup');
  const flowLogGroups = new Set(
    ofType(resources, 'AWS::EC2::FlowLog')
      .map(([, flow]) => targetId(flow.Properties?.LogGroupName) ?? '')
      .filter((id) => id !== ''),
  );
  const retention = (ids: (id: string) => boolean) =>
    logGroups
      .filter(([id]) => ids(id))
      .map(([, group]) => Number(group.Properties?.RetentionInDays ?? 0))
      .sort((a, b) => b - a)[0] ?? 0;
  return {
    natGateways: count('AWS::EC2::NatGateway'),
    natInstances: instances.length,
    // An instance with no block device mapping gets its image's root volume: Amazon Linux 2023's
    // is 8 GB (the NAT instance's image).
    natInstanceVolumeGb: instances.length === 0 ? 0 : Math.max(volumeGb / instances.length, 8),
    publicIpv4Addresses: count('AWS::EC2::EIP'),
    kmsKeys: count('AWS::KMS::Key'),
    kmsRotations: 0,
    secrets: count('AWS::SecretsManager::Secret'),
    alarms: count('AWS::CloudWatch::Alarm'),
    alarmMetrics: ofType(resources, 'AWS::CloudWatch::Alarm').reduce(
      (sum, [, alarm]) => sum + alarmMetricsOf(alarm),
      0,
    ),
    dashboards: count('AWS::CloudWatch::Dashboard'),
    idleCustomMetrics: schedules.reduce((sum, fn) => sum + (IDLE_METRICS[fn.name]?.length ?? 0), 0),
    schedules,
    sqsEventSources: mappings.filter((id) => sourceType(id) === 'AWS::SQS::Queue').length,
    streamEventSources: mappings.filter((id) => {
      const type = sourceType(id);
      return type === 'AWS::DynamoDB::GlobalTable' || type === 'AWS::DynamoDB::Table';
    }).length,
    flowLogs: flowLogGroups.size > 0,
    gatewayEndpoints: ofType(resources, 'AWS::EC2::VPCEndpoint').filter(
      ([, endpoint]) => (endpoint.Properties?.VpcEndpointType ?? 'Gateway') === 'Gateway',
    ).length,
    logRetentionDays: retention((id) => !flowLogGroups.has(id)),
    flowLogRetentionDays: retention((id) => flowLogGroups.has(id)),
  };
};

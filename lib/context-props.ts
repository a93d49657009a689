import { Duration } from 'aws-cdk-lib';
import { z } from 'zod';
import type { MsgbridgeStackProps } from './msgbridge-stack.ts';
import { InvalidPropsError } from './props-validation.ts';

/** The CDK context key read by `bin/msgbridge.ts`. */
export const CONTEXT_KEY = 'msgbridge';

/**
 * The shape of the `msgbridge` context object. Only the shape is checked here, and unknown keys
 * are refused so that a misspelt setting is not silently ignored; the stack validates the values
 * together with the rest of its props.
 */
const ContextSchema = z.strictObject({
  gateway: z.strictObject({
    hosts: z.strictObject({ api: z.string(), send: z.string(), mnt: z.string() }),
    tpsQuota: z.number(),
    timeoutMs: z.number().optional(),
  }),
  /** The send pipeline's event source and queue (see `SendPipelineOptions`). */
  sending: z
    .strictObject({
      maxConcurrency: z.number().optional(),
      batchSize: z.number().optional(),
      maxReceiveCount: z.number().optional(),
      functionTimeoutSeconds: z.number().optional(),
      maxBatchingWindowSeconds: z.number().optional(),
      attachmentBuckets: z.array(z.string()).optional(),
    })
    .optional(),
  /** `webhook`, `polling` or `both` (see `MsgbridgeStackProps.reportDelivery`). */
  reportDelivery: z.enum(['webhook', 'polling', 'both']).optional(),
  moPolling: z.boolean().optional(),
  /** Status reconciliation (see `ReconcileOptions`). */
  reconcile: z
    .strictObject({
      afterMinutes: z.number().optional(),
      horizonHours: z.number().optional(),
      maxRecipients: z.number().optional(),
    })
    .optional(),
  /** The gateway callers' fixed egress (see `GatewayEgressOptions`). */
  egress: z
    .strictObject({
      mode: z.enum(['none', 'nat', 'existing-vpc']).optional(),
      natGateways: z.number().optional(),
      maxAzs: z.number().optional(),
      vpcId: z.string().optional(),
      privateSubnetIds: z.array(z.string()).optional(),
      availabilityZones: z.array(z.string()).optional(),
      egressIps: z.array(z.string()).optional(),
    })
    .optional(),
  /** The attachment bucket's lifecycle (see `InboundAttachmentsOptions`). */
  attachments: z
    .strictObject({
      expireAfterDays: z.number().optional(),
      infrequentAccessAfterDays: z.number().optional(),
    })
    .optional(),
});

/** The stack props the context can set. */
export type ContextStackProps = Pick<
  MsgbridgeStackProps,
  'gateway' | 'egress' | 'sending' | 'reportDelivery' | 'moPolling' | 'reconcile' | 'attachments'
>;

/**
 * The stack props given by the `msgbridge` context object (from `cdk.json`, or a JSON string from
 * `--context msgbridge=...`). Throws one `InvalidPropsError` naming every missing or mistyped
 * setting by its path.
 */
export const stackPropsFromContext = (value: unknown): ContextStackProps => {
  const where = `context "${CONTEXT_KEY}"`;
  if (value === undefined)
    throw new InvalidPropsError(where, [
      'is missing: add {"gateway": {"hosts": {"api", "send", "mnt"}, "tpsQuota"}} to the context in cdk.json',
    ]);
  let object = value;
  if (typeof value === 'string') {
    try {
      object = JSON.parse(value);
    } catch {
      throw new InvalidPropsError(where, ['is a string that is not JSON']);
    }
  }
  const parsed = ContextSchema.safeParse(object);
  if (parsed.success) {
    const { sending, ...others } = parsed.data;
    if (!sending) return others;
    const { functionTimeoutSeconds, maxBatchingWindowSeconds, ...rest } = sending;
    return {
      ...others,
      sending: {
        ...rest,
        ...(functionTimeoutSeconds === undefined
          ? {}
          : { functionTimeout: Duration.seconds(functionTimeoutSeconds) }),
        ...(maxBatchingWindowSeconds === undefined
          ? {}
          : { maxBatchingWindow: Duration.seconds(maxBatchingWindowSeconds) }),
      },
    };
  }
  throw new InvalidPropsError(
    where,
    parsed.error.issues.map(
      (issue) => `${[CONTEXT_KEY, ...issue.path.map(String)].join('.')}: ${issue.message}`,
    ),
  );
};

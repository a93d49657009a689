import * as z from './schemas/zod.ts';

/** Base addresses of one gateway environment (spec 01 §1 "Hosts"). */
export const GatewayHostsSchema = z.strictObject({
  /** Authentication, `/msg/...` sending, reports, MO, opt-out register/delete, tracking URLs. */
  api: z.url({ protocol: /^https?$/ }),
  /** `/xms/...`, `/rcs/...`, `/msgr/...` sending. */
  send: z.url({ protocol: /^https?$/ }),
  /** Opt-out queries and the management operations of documents 2 and 3. */
  mnt: z.url({ protocol: /^https?$/ }),
});
export type GatewayHosts = z.infer<typeof GatewayHostsSchema>;
export type GatewayHost = keyof GatewayHosts;

/**
 * Where the gateway is and how long a call may take. The production and test environments have
 * different hosts and different API keys; the hosts of the selected environment must be set.
 */
export const GatewaySettingsSchema = z
  .strictObject({
    environment: z.enum(['production', 'test']),
    hosts: z.strictObject({
      production: z.optional(GatewayHostsSchema),
      test: z.optional(GatewayHostsSchema),
    }),
    timeoutMs: z._default(z.int().check(z.minimum(100), z.maximum(60_000)), 10_000),
  })
  .check((ctx) => {
    if (ctx.value.hosts[ctx.value.environment] === undefined) {
      ctx.issues.push({
        code: 'custom',
        input: ctx.value.hosts,
        path: ['hosts', ctx.value.environment],
        message: `the hosts of the selected environment "${ctx.value.environment}" are required`,
      });
    }
  });
export type GatewaySettings = z.output<typeof GatewaySettingsSchema>;

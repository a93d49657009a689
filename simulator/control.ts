import { envelope, ok } from './context.ts';
import type { SimControls } from './controls.ts';
import { MoInjectionSchema } from './mo.ts';
import { FaultsSchema } from './options.ts';
import type { Router, SimRequest, SimResponse } from './router.ts';
import * as z from './zod.ts';

const AdvanceSchema = z.strictObject({ ms: z.int().check(z.minimum(0)) });
// Not `FaultsSchema.partial()`: its defaults would reset every fault the body leaves out.
const FaultChangesSchema = z.record(z.string(), z.unknown());
const MoBodySchema = z.strictObject({ items: z.array(MoInjectionSchema).check(z.minLength(1)) });

/**
 * The simulator's remote control under `/_sim/`, for tests and the local run that drive a
 * simulator in another process. No authentication and never faulted. Answers use the gateway's
 * envelope (`10000` + data) so one client helper reads both.
 */
export const createControl = (simulator: SimControls) => ({
  register(router: Router): void {
    router.add('POST', '/_sim/clock/advance', async (request) => {
      const body = parse(AdvanceSchema, request);
      if (!body.success) return body.response;
      await simulator.advance(body.data.ms);
      return ok(simulator.snapshot());
    });
    router.add('POST', '/_sim/faults', (request) => {
      const changes = parse(FaultChangesSchema, request);
      if (!changes.success) return changes.response;
      // Validated merged over the current settings: unknown keys and bad values are refused.
      const merged = FaultsSchema.safeParse({ ...simulator.snapshot().faults, ...changes.data });
      if (!merged.success) return badRequest(z.prettifyError(merged.error));
      return ok(simulator.setFaults(merged.data));
    });
    router.add('POST', '/_sim/tokens/revoke', () => {
      simulator.revokeTokens();
      return ok();
    });
    router.add('POST', '/_sim/mo', (request) => {
      const body = parse(MoBodySchema, request);
      if (!body.success) return body.response;
      return ok({ items: simulator.injectMo(body.data.items) });
    });
    router.add('GET', '/_sim/state', () => ok(simulator.snapshot()));
  },
});

const badRequest = (message: string): SimResponse => envelope('21001', message, undefined, 400);

const parse = <T>(
  schema: z.ZodMiniType<T>,
  request: SimRequest,
): { success: true; data: T } | { success: false; response: SimResponse } => {
  const result = schema.safeParse(request.json() ?? {});
  return result.success
    ? { success: true, data: result.data }
    : { success: false, response: badRequest(z.prettifyError(result.error)) };
};

/**
 * `msgbridge doctor --stack NAME`'s quota checks on a deployed stack whose AWS clients are mocked
 * around the stack's real template (test/support/doctor-stack.ts): the EventBridge quotas read
 * from Service Quotas, the applied value before the default, and a quota short of the configured
 * throughput (or Lambda's concurrency short of what the template fixes) failed with the quota to
 * raise, its code and the value to ask for.
 */
import { GetTemplateCommand } from '@aws-sdk/client-cloudformation';
import { GetAccountSettingsCommand } from '@aws-sdk/client-lambda';
import { GetServiceQuotaCommand } from '@aws-sdk/client-service-quotas';
import { describe, expect, it } from 'vitest';
import type { CfnTemplate } from '../../aws-semantics/cloudformation-template.ts';
import {
  cloudFormation,
  doctor,
  failed,
  functionId,
  lambda,
  serviceQuotas,
  stack,
  synthesized,
  useDoctorStack,
} from '../support/doctor-stack.ts';

useDoctorStack();

/** The deployed template with send-messages configured for `tpsQuota` recipients a second. */
const deployedWithQuota = (tpsQuota: number) => {
  const template = structuredClone(synthesized.template) as CfnTemplate;
  const sender = template.Resources[functionId('send-messages')]?.Properties as {
    Environment: { Variables: Record<string, unknown> };
  };
  sender.Environment.Variables.TPS_QUOTA = String(tpsQuota);
  cloudFormation.on(GetTemplateCommand).resolves({ TemplateBody: JSON.stringify(template) });
};

describe('msgbridge doctor --stack', () => {
  it('reads the EventBridge quotas from Service Quotas, and finds a default account’s enough for the configured rate', async () => {
    const { named } = await doctor();

    const tps = Number(stack.functionNamed('send-messages').environment.TPS_QUOTA ?? Number.NaN);
    expect(named('PutEvents throttle limit in transactions per second quota')).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^600 requests\/s \(the default\) \(events L-9B653E91\)/),
    });
    expect(named('Invocations throttle limit in transactions per second quota')).toMatchObject({
      ok: true,
      detail: expect.stringContaining(`the configured ${tps} recipients a second need ${tps}`),
    });
    expect(named('Concurrent executions quota').ok).toBe(true);
    // The applied value first; the default only where none is applied.
    expect(
      serviceQuotas.commandCalls(GetServiceQuotaCommand).map((call) => call.args[0].input),
    ).toEqual([
      { ServiceCode: 'events', QuotaCode: 'L-9B653E91' },
      { ServiceCode: 'events', QuotaCode: 'L-5540C5E3' },
    ]);
  });

  it('names the quota to raise, its code, the value to ask for and the throughput, when one is short', async () => {
    deployedWithQuota(5_000);

    const { code, named } = await doctor();

    expect(code).toBe(1);
    expect(named('Invocations throttle limit in transactions per second quota')).toEqual(
      failed({
        name: 'Invocations throttle limit in transactions per second quota',
        detail:
          '1,100 invocations/s (the default) (events L-5540C5E3) is below the 5,000 the configured 5,000 recipients a second need (5,000 events a second, 1 a recipient, one subscriber rule each): it holds 1,100 recipients a second',
        fix: 'raise Invocations throttle limit in transactions per second (events L-5540C5E3) to at least 5,000 before sending 5,000 recipients a second: aws service-quotas request-service-quota-increase --service-code events --quota-code L-5540C5E3 --desired-value 5000',
      }),
    );
    // 5,000 events are 500 full PutEvents requests: the default 600 holds them.
    expect(named('PutEvents throttle limit in transactions per second quota').ok).toBe(true);
  });

  it('takes a raised quota as the account has it', async () => {
    deployedWithQuota(5_000);
    serviceQuotas
      .on(GetServiceQuotaCommand, { ServiceCode: 'events', QuotaCode: 'L-5540C5E3' })
      .resolves({ Quota: { Value: 6_000 } });

    const { named } = await doctor();

    expect(named('Invocations throttle limit in transactions per second quota')).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^6,000 invocations\/s \(events L-5540C5E3\);/),
    });
  });

  it('fails a concurrency quota below what the template fixes and the webhooks need', async () => {
    lambda
      .on(GetAccountSettingsCommand)
      .resolves({ AccountLimit: { ConcurrentExecutions: 50, UnreservedConcurrentExecutions: 50 } });

    const { named } = await doctor();

    expect(named('Concurrent executions quota')).toMatchObject(
      failed({
        detail: expect.stringMatching(/^50 executions \(lambda L-B99A9384\) is below the \d+/),
        fix: expect.stringContaining('--service-code lambda --quota-code L-B99A9384'),
      }),
    );
  });

  it('says which permission it lacks when Service Quotas refuses the read', async () => {
    serviceQuotas
      .on(GetServiceQuotaCommand)
      .rejects(Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' }));

    const { named } = await doctor();

    expect(named('PutEvents throttle limit in transactions per second quota')).toMatchObject(
      failed({ fix: expect.stringContaining('servicequotas:GetServiceQuota') }),
    );
  });
});

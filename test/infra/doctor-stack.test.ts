/**
 * `msgbridge doctor --stack NAME` on a deployed stack whose AWS clients are mocked around the
 * stack's real template (test/support/doctor-stack.ts). Each check reads what it should: a healthy
 * stack passes; a new account's concurrency, a failing mapping, a disabled schedule, an alarm in
 * ALARM, a message in the send DLQ or in the event bus's DLQ and the gateway's 20001 to
 * refresh-token each fail with the fix; the token's renewal prints in KST, UTC or ISO 8601. The
 * quota checks are in doctor-stack-quotas.test.ts, an existing VPC's gateway endpoints in
 * doctor-stack-existing-vpc.test.ts.
 */
import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import {
  GetAccountSettingsCommand,
  GetEventSourceMappingCommand,
  InvokeCommand,
  type InvokeCommandOutput,
} from '@aws-sdk/client-lambda';
import { GetScheduleCommand } from '@aws-sdk/client-scheduler';
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  busDlqUrl,
  cloudWatch,
  doctor,
  documents,
  ec2,
  failed,
  functionId,
  lambda,
  physical,
  runDoctorCommand,
  scheduler,
  secrets,
  sendDlqUrl,
  sqs,
  stack,
  synthesized,
  useDoctorStack,
} from '../support/doctor-stack.ts';

useDoctorStack();

describe('msgbridge doctor --stack', () => {
  it('passes every check of a healthy stack, reading each resource the template declares', async () => {
    const { code, checks, named } = await doctor();

    expect(checks.filter((check) => check.ok !== true)).toEqual([]);
    expect(code).toBe(0);
    expect(named('egress addresses').detail).toContain('203.0.113.10, 203.0.113.11');
    expect(named('report webhook').detail).toContain('404 to a wrong secret, 204');
    expect(named('dead-letter queue of the event bus')).toMatchObject({
      ok: true,
      detail: 'empty',
    });
    expect(
      sqs.commandCalls(GetQueueAttributesCommand).map((call) => call.args[0].input.QueueUrl),
    ).toContain(busDlqUrl());
    // Every mapping, alarm and schedule of the template was asked for by its physical id.
    expect(
      lambda
        .commandCalls(GetEventSourceMappingCommand)
        .map((call) => call.args[0].input.UUID)
        .sort(),
    ).toEqual(
      stack
        .eventSourceMappings()
        .map((mapping) => physical(mapping.logicalId))
        .sort(),
    );
    const alarms = Object.entries(synthesized.template.Resources).filter(
      ([, resource]) => resource.Type === 'AWS::CloudWatch::Alarm',
    );
    expect(named('alarms').detail).toBe(`none of ${alarms.length} in ALARM`);
    expect(scheduler.commandCalls(GetScheduleCommand)).toHaveLength(stack.schedules().length);
    // Nothing but reads: no Invoke without --invoke.
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(0);
    // The stack's own VPC: its template shows the endpoints, and EC2 is not asked.
    expect(named('gateway endpoints')).toMatchObject({
      ok: true,
      detail: expect.stringContaining('created by the stack'),
    });
    expect(ec2.calls()).toHaveLength(0);
  });

  it('fails each broken part with its fix', async () => {
    const publisherMapping = stack
      .eventSourceMappings()
      .find((mapping) => mapping.functionId === functionId('publish-events'));
    lambda
      .on(GetEventSourceMappingCommand, { UUID: physical(publisherMapping?.logicalId ?? '') })
      .resolves({ State: 'Enabled', LastProcessingResult: 'PROBLEM: Function call failed' })
      .on(GetAccountSettingsCommand)
      .resolves({ AccountLimit: { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10 } });
    const firstSchedule = stack.schedules()[0];
    scheduler
      .on(GetScheduleCommand, { Name: physical(firstSchedule?.logicalId ?? '') })
      .resolves({ State: 'DISABLED' });
    cloudWatch.on(DescribeAlarmsCommand).callsFake((input: { AlarmNames?: string[] }) => ({
      MetricAlarms: (input.AlarmNames ?? []).map((AlarmName, index) => ({
        AlarmName,
        StateValue: index === 0 ? 'ALARM' : 'OK',
      })),
    }));
    sqs
      .on(GetQueueAttributesCommand, { QueueUrl: sendDlqUrl() })
      .resolves({ Attributes: { ApproximateNumberOfMessages: '3' } })
      .on(GetQueueAttributesCommand, { QueueUrl: busDlqUrl() })
      .resolves({ Attributes: { ApproximateNumberOfMessages: '2' } });

    const { code, named } = await doctor();

    expect(code).toBe(1);
    expect(named('publish-events event source')).toMatchObject(
      failed({ detail: 'Enabled, last result PROBLEM: Function call failed' }),
    );
    expect(named('account concurrency')).toMatchObject(
      failed({ detail: 'quota 10, only 10 unreserved (Lambda keeps 100)' }),
    );
    expect(named('schedules')).toMatchObject(failed({ fix: expect.stringContaining('ENABLED') }));
    expect(named('alarms')).toMatchObject(failed({ detail: expect.stringMatching(/^in ALARM: /) }));
    expect(named('dead-letter queue of send-messages')).toMatchObject(
      failed({
        detail: '3 message(s) waiting',
        fix: expect.stringContaining('msgbridge dlq redrive'),
      }),
    );
    // Events the bus could not encrypt or decrypt: a key problem, which republish cannot see.
    expect(named('dead-letter queue of the event bus')).toMatchObject(
      failed({
        detail: '2 message(s) waiting',
        fix: expect.stringMatching(
          /could not encrypt or decrypt with the data key.*events\.amazonaws\.com.*"The event bus DLQ"\); msgbridge events republish does not read this queue$/,
        ),
      }),
    );
  });

  it('with --invoke, runs refresh-token and reads the gateway’s 20001 as "register these addresses"', async () => {
    documents.on(GetCommand).resolves({});
    lambda.on(InvokeCommand).resolves({
      FunctionError: 'Unhandled',
      // The SDK wraps the bytes in a blob adapter; the doctor reads them as bytes.
      Payload: new TextEncoder().encode(
        JSON.stringify({
          errorType: 'GatewayAuthError',
          errorMessage:
            'POST /auth/v1/token: 20001 IP not allowed: register this egress address in the gateway console',
        }),
      ) as InvokeCommandOutput['Payload'],
    });

    const { code, named } = await doctor('--invoke');

    expect(code).toBe(1);
    expect(named('gateway token')).toMatchObject(failed({ detail: 'no token in the state table' }));
    expect(named('egress addresses')).toMatchObject(
      failed({
        detail: '203.0.113.10, 203.0.113.11: the gateway refuses calls from them (20001)',
        fix: 'register 203.0.113.10, 203.0.113.11 in the gateway console',
      }),
    );
    expect(lambda.commandCalls(InvokeCommand)[0]?.args[0].input.FunctionName).toBe(
      physical(functionId('refresh-token')),
    );
  });

  it('finds the credentials secret still holding its generated string', async () => {
    secrets
      .on(GetSecretValueCommand, {
        SecretId: 'arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:creds',
      })
      .resolves({ SecretString: 'Zq8-generated-0p' });

    const { named } = await doctor();

    expect(named('gateway credentials')).toMatchObject(
      failed({
        fix: 'aws secretsmanager put-secret-value --secret-id arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:creds --secret-string \'{"apiKey":"…","apiPassword":"…"}\'',
      }),
    );
    expect(JSON.stringify(named('gateway credentials'))).not.toContain('Zq8-generated-0p');
  });
});

describe('msgbridge doctor --stack: times', () => {
  it('prints when the token was renewed in KST with the zone, in UTC with --utc, and ISO 8601 with --json', async () => {
    // Act: the token was renewed at 05:56 UTC, 14:56 KST.
    const kst = await runDoctorCommand();
    const utc = await runDoctorCommand('--utc');
    const json = await runDoctorCommand('--json', '--utc');

    // Assess
    const tokenLine = (stdout: string) =>
      stdout.split('\n').find((line) => line.startsWith('✔ gateway token:'));
    expect(tokenLine(kst.stdout)).toBe(
      '✔ gateway token: valid for 40 more min, renewed 2026-11-28 14:56:00 KST',
    );
    expect(kst.stdout).toContain(
      "the gateway accepted refresh-token's call from them at 2026-11-28 14:56:00 KST",
    );
    expect(tokenLine(utc.stdout)).toBe(
      '✔ gateway token: valid for 40 more min, renewed 2026-11-28 05:56:00 UTC',
    );
    const checks = (JSON.parse(json.stdout) as { checks: Array<{ name: string; detail: string }> })
      .checks;
    expect(checks.find((check) => check.name === 'gateway token')?.detail).toBe(
      'valid for 40 more min, renewed 2026-11-28T05:56:00.000Z',
    );
  });
});

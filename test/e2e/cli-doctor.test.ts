/**
 * `msgbridge doctor --local` against the local run: every check passes on a run that works, and
 * each planted fault — credentials that are not the JSON refresh-token reads, no token in the
 * state table, a message left in the publisher's on-failure queue — turns its check to ✗ with the
 * fix, and the exit code to 1. Nothing the probes send is stored.
 */
import { PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { DeleteCommand, GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { TOKEN_STATE_KEY } from '../../functions/gateway-access/token-state.ts';
import { localClientConfig } from '../../local/dynamodb-local.ts';
import { useCliLocalRun } from '../support/cli-local-run.ts';

const run = useCliLocalRun({ name: 'cli-doctor', seed: 17 });

interface Check {
  readonly name: string;
  readonly ok: boolean | null;
  readonly detail: string;
  readonly fix?: string;
}

const doctor = async () => {
  const { code, stdout, stderr } = await run.msgbridge('doctor', '--json');
  expect(stderr).toBe('');
  const { checks } = JSON.parse(stdout) as { checks: Check[] };
  const named = (name: string) => {
    const found = checks.find((check) => check.name === name);
    if (!found) throw new Error(`no check ${name} in ${stdout}`);
    return found;
  };
  return { code, checks, named };
};

const itemCount = async () =>
  (
    await run
      .bridge()
      .documents.send(new ScanCommand({ TableName: run.bridge().tables.events, Select: 'COUNT' }))
  ).Count ?? 0;

/** Whether refresh-token's first scheduled run has stored the token (it starts with the run). */
const tokenStored = async () =>
  (
    await run
      .bridge()
      .documents.send(
        new GetCommand({ TableName: run.bridge().tables.state, Key: { pk: TOKEN_STATE_KEY } }),
      )
  ).Item !== undefined;

describe('msgbridge doctor on the local run', () => {
  it('passes every check on a run that works, and stores nothing', async () => {
    // As after a deployment: the token comes with refresh-token's first run, not at once.
    const deadline = Date.now() + 30_000;
    while (!(await tokenStored()) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    const before = await itemCount();

    const { code, checks, named } = await doctor();

    expect(checks.filter((check) => check.ok === false)).toEqual([]);
    expect(code).toBe(0);
    expect(named('gateway credentials').ok).toBe(true);
    expect(named('gateway token').ok).toBe(true);
    expect(named('report webhook').detail).toContain('404 to a wrong secret, 204 to an empty list');
    expect(named('inbound webhook').detail).toContain('200 code 10000 to an empty list');
    expect(named('publish-events event source')).toMatchObject({ ok: true });
    expect(named('on-failure queue of publish-events')).toMatchObject({
      ok: true,
      detail: 'empty',
    });
    expect(named('dead-letter queue of send-messages')).toMatchObject({ ok: true });
    // The bus's DLQ is deployed locally like every queue of the template, and checked.
    expect(named('dead-letter queue of the event bus')).toMatchObject({
      ok: true,
      detail: 'empty',
    });
    expect(named('schedules').ok).toBe(true);
    // What the local run does not have is said, not passed.
    expect(named('alarms')).toMatchObject({ ok: null });
    expect(await itemCount()).toBe(before);
    // The secrets never appear.
    expect(JSON.stringify(checks)).not.toContain('cli-doctor-secret');
    expect(JSON.stringify(checks)).not.toContain('cli-doctor-password');
  });

  it('names a message left in the publisher’s on-failure queue, with the command that settles it', async () => {
    const bridge = run.bridge();
    await bridge.sqs.send(
      new SendMessageCommand({ QueueUrl: bridge.urls.publisherFailures, MessageBody: '{}' }),
    );

    const { code, named } = await doctor();

    expect(code).toBe(1);
    expect(named('on-failure queue of publish-events')).toMatchObject({
      ok: false,
      detail: '1 message(s) waiting',
      fix: 'msgbridge events republish (docs/operations.md)',
    });
    const waiting = await bridge.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: bridge.urls.publisherFailures,
        MaxNumberOfMessages: 10,
      }),
    );
    for (const message of waiting.Messages ?? [])
      await bridge.sqs.send(
        new DeleteMessageCommand({
          QueueUrl: bridge.urls.publisherFailures,
          ReceiptHandle: message.ReceiptHandle,
        }),
      );
    expect((await doctor()).code).toBe(0);
  });

  it('finds credentials that are not JSON and a missing token, and says how to fix each', async () => {
    const bridge = run.bridge();
    const secrets = new SecretsManagerClient(localClientConfig(bridge.urls.services));
    const arn = bridge.deployment.secretArn('gateway-credentials');
    const state = { TableName: bridge.tables.state, Key: { pk: TOKEN_STATE_KEY } };
    const token = (await bridge.documents.send(new GetCommand(state))).Item;
    // As a new stack's secret is until someone fills it in: a generated random string.
    await secrets.send(new PutSecretValueCommand({ SecretId: arn, SecretString: 'x7Gq2pLw9' }));
    await bridge.documents.send(new DeleteCommand(state));

    try {
      const { code, named } = await doctor();

      expect(code).toBe(1);
      expect(named('gateway credentials')).toMatchObject({
        ok: false,
        detail: expect.stringContaining('not JSON'),
        fix: expect.stringContaining('restart npm start'),
      });
      expect(named('gateway token')).toMatchObject({
        ok: false,
        detail: 'no token in the state table',
        fix: expect.stringContaining('fill in the gateway credentials first'),
      });
      expect(named('egress addresses').ok).toBe(false);
    } finally {
      await secrets.send(
        new PutSecretValueCommand({
          SecretId: arn,
          SecretString: JSON.stringify({
            apiKey: 'cli-doctor-key',
            apiPassword: 'cli-doctor-password',
          }),
        }),
      );
      if (token) await bridge.documents.send(new PutCommand({ ...state, Item: token }));
    }
    expect((await doctor()).code).toBe(0);
  });

  it('prints one line per check, ✔ or ✗, and each fix under its check', async () => {
    const { code, stdout } = await run.msgbridge('doctor');

    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^msgbridge doctor: the local run at /);
    expect(lines.filter((line) => line.startsWith('✔ ')).length).toBeGreaterThanOrEqual(10);
    expect(lines.at(-1)).toMatch(/^all \d+ checks passed$/);
  });
});

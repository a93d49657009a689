import { describe, expect, it } from 'vitest';
import { GatewayRejectedError } from '../../gateway/errors.ts';
import {
  GatewayManagementClient,
  TemplateStateError,
} from '../../gateway/management/messenger-client.ts';
import { MESSENGER_CODES } from '../../simulator/messenger-seeds.ts';
import {
  client,
  credentials,
  failureOf,
  registerChannel,
  rejectedWith,
  setTemplateStatus,
  simTemplate,
  templateBody,
  tokenRequests,
  useManagementSimulator,
} from '../support/management-simulator.ts';
import { startWithSessions } from '../support/simulator-sessions.ts';

useManagementSimulator();

describe('templates', () => {
  it('creates a template in T, comments it, requests review (T → R), then refuses request and delete before any call', async () => {
    // Prepare
    await registerChannel('@tmpl');

    // Act
    const created = await client.createTemplate(templateBody('@tmpl', 'ship-1'));
    const listedT = await client.listTemplates({ msgrChId: '@tmpl' });
    await client.commentTemplate({ msgrChId: '@tmpl', templateCode: 'ship-1', comment: 'ready' });
    await client.requestTemplateReview({ msgrChId: '@tmpl', templateCode: 'ship-1' });
    const listedR = await client.listTemplates({ msgrChId: '@tmpl', senderType: 'S' });
    const beforeRefusals = tokenRequests;
    const deleteKnownR = await failureOf(
      client.deleteTemplate({ msgrChId: '@tmpl', templateCode: 'ship-1' }, { currentStatus: 'R' }),
    );
    const requestKnownR = await failureOf(
      client.requestTemplateReview(
        { msgrChId: '@tmpl', templateCode: 'ship-1' },
        { currentStatus: 'R' },
      ),
    );

    // Assess
    expect(created).toMatchObject({
      templateCode: 'ship-1',
      templateName: 'Order shipped',
      msgrChId: '@tmpl',
      templateInfo: { senderType: 'S', templateMessageType: 'BA' },
    });
    expect(listedT).toEqual([
      expect.objectContaining({ templateCode: 'ship-1', templateStatusCode: 'T' }),
    ]);
    expect(listedR).toEqual([
      expect.objectContaining({ templateCode: 'ship-1', templateStatusCode: 'R' }),
    ]);
    expect(deleteKnownR).toBeInstanceOf(TemplateStateError);
    expect(requestKnownR).toMatchObject({
      name: 'TemplateStateError',
      operation: 'request',
      status: 'R',
    });
    expect(tokenRequests).toBe(beforeRefusals);
  });

  it('reads the state first when the caller does not give it: delete in R sends no delete', async () => {
    // Prepare
    await registerChannel('@tmpl2');
    await client.createTemplate(templateBody('@tmpl2', 'ship-2'));
    await client.requestTemplateReview({ msgrChId: '@tmpl2', templateCode: 'ship-2' });
    const before = tokenRequests;

    // Act
    const refused = await failureOf(
      client.deleteTemplate({ msgrChId: '@tmpl2', templateCode: 'ship-2' }),
    );

    // Assess
    expect(refused).toMatchObject({ operation: 'delete', status: 'R' });
    expect(tokenRequests).toBe(before + 1); // the list read only
    expect(await client.listTemplates({ msgrChId: '@tmpl2' })).toHaveLength(1);
  });

  it('deletes a template in T; it is gone afterwards', async () => {
    // Prepare
    await registerChannel('@tmpl3');
    await client.createTemplate(templateBody('@tmpl3', 'temp-3'));

    // Act
    await client.deleteTemplate({ msgrChId: '@tmpl3', templateCode: 'temp-3' });

    // Assess
    expect(await client.listTemplates({ msgrChId: '@tmpl3' })).toEqual([]);
    await expect(
      client.deleteTemplate({ msgrChId: '@tmpl3', templateCode: 'temp-3' }),
    ).rejects.toMatchObject({ name: 'TemplateStateError', status: undefined });
  });

  it('the simulator itself refuses request and delete outside T', async () => {
    // Prepare: the caller claims T, so the client sends the call
    await registerChannel('@tmpl4');
    await client.createTemplate(templateBody('@tmpl4', 'ship-4'));
    await client.requestTemplateReview({ msgrChId: '@tmpl4', templateCode: 'ship-4' });

    // Act
    const deleted = await failureOf(
      client.deleteTemplate({ msgrChId: '@tmpl4', templateCode: 'ship-4' }, { currentStatus: 'T' }),
    );

    // Assess
    expect(deleted).toBeInstanceOf(GatewayRejectedError);
    expect(deleted).toEqual(rejectedWith(MESSENGER_CODES.templateNotInT));
  });

  it('refuses a duplicate template code and a template for an unknown channel', async () => {
    // Prepare
    await registerChannel('@tmpl5');
    await client.createTemplate(templateBody('@tmpl5', 'dup'));

    // Act
    const duplicate = await failureOf(client.createTemplate(templateBody('@tmpl5', 'dup')));
    const unknown = await failureOf(client.createTemplate(templateBody('@ghost', 'x')));

    // Assess
    expect(duplicate).toEqual(rejectedWith(MESSENGER_CODES.templateCodeTaken));
    expect(unknown).toEqual(rejectedWith(MESSENGER_CODES.unknownChannel));
  });
});

describe('review request after a rejection (internal-approval customers)', () => {
  it('refuses a rejected (S) template without afterRejection, before any request call', async () => {
    // Prepare: a template rejected by the platform
    await registerChannel('@rejected');
    const created = await client.createTemplate(templateBody('@rejected', 'rej-1'));
    await client.requestTemplateReview({ msgrChId: '@rejected', templateCode: 'rej-1' });
    await setTemplateStatus(String(created.templateKey), 'S');
    const before = tokenRequests;

    // Act
    const known = await failureOf(
      client.requestTemplateReview(
        { msgrChId: '@rejected', templateCode: 'rej-1' },
        { currentStatus: 'S' },
      ),
    );
    const callsWhenKnown = tokenRequests - before;
    const read = await failureOf(
      client.requestTemplateReview({ msgrChId: '@rejected', templateCode: 'rej-1' }),
    );

    // Assess
    expect(known).toMatchObject({
      name: 'TemplateStateError',
      operation: 'request',
      status: 'S',
      message: 'cannot request template rej-1: its status is S, request needs T',
    });
    expect(callsWhenKnown).toBe(0);
    expect(read).toMatchObject({ name: 'TemplateStateError', status: 'S' });
    expect(tokenRequests - before).toBe(1); // the list read only, no review request
    expect(await client.listTemplates({ msgrChId: '@rejected' })).toEqual([
      expect.objectContaining({ templateCode: 'rej-1', templateStatusCode: 'S' }),
    ]);
  });

  it('with afterRejection requests review of an S template against an internal-approval gateway (S → R)', async () => {
    // Prepare: a second simulator whose API key is an internal-approval customer's
    const { sim: internal, sessions: tokens } = await startWithSessions(credentials, {
      internalApproval: true,
    });
    try {
      const approvalClient = new GatewayManagementClient({
        hosts: internal.hosts,
        tokens,
        timeoutMs: 2_000,
      });
      await registerChannel('@internal', approvalClient);
      const created = await approvalClient.createTemplate(templateBody('@internal', 'rej-2'));
      await approvalClient.requestTemplateReview({ msgrChId: '@internal', templateCode: 'rej-2' });
      await setTemplateStatus(String(created.templateKey), 'S', internal);

      // Act
      await approvalClient.requestTemplateReview(
        { msgrChId: '@internal', templateCode: 'rej-2', comment: 'wording fixed' },
        { afterRejection: true },
      );

      // Assess
      expect(await approvalClient.listTemplates({ msgrChId: '@internal' })).toEqual([
        expect.objectContaining({ templateCode: 'rej-2', templateStatusCode: 'R' }),
      ]);
      const held = await simTemplate(String(created.templateKey), internal);
      expect(held.comments).toEqual(['wording fixed']);
    } finally {
      await internal.close();
    }
  });

  it('afterRejection still refuses the other states: R is neither T nor S', async () => {
    // Prepare
    const before = tokenRequests;

    // Act
    const refused = await failureOf(
      client.requestTemplateReview(
        { msgrChId: '@rejected', templateCode: 'rej-1' },
        { currentStatus: 'R', afterRejection: true },
      ),
    );

    // Assess
    expect(refused).toMatchObject({
      name: 'TemplateStateError',
      status: 'R',
      message: 'cannot request template rej-1: its status is R, request needs T or S',
    });
    expect(tokenRequests).toBe(before);
  });
});

import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { CallCounter, LOCAL_ONLY } from '../../bench/call-counter.ts';
import { costLines, type PhaseFigures } from '../../bench/end-to-end-figures.ts';

/** A client whose calls never leave the process: each answers one consumed write unit. */
const offlineClient = () => {
  const client = new DynamoDBClient({
    region: 'ap-northeast-2',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  client.middlewareStack.add(
    () => async () => ({
      response: {},
      output: { $metadata: {}, ConsumedCapacity: { TableName: 'state', CapacityUnits: 1 } },
    }),
    { step: 'build', name: 'offlineAnswer' },
  );
  return client;
};

const update = (pk: string) =>
  new UpdateItemCommand({
    TableName: 'state',
    Key: { pk: { S: pk } },
    UpdateExpression: 'SET n = :n',
    ExpressionAttributeValues: { ':n': { N: '1' } },
  });

describe('the call counter', () => {
  it('counts calls only the local run makes apart, and the cost lines never price them', async () => {
    // Prepare
    const counter = new CallCounter();
    const client = offlineClient();
    counter.instrument(client.middlewareStack, 'DynamoDB', undefined, (input) =>
      String((input.Key as { pk?: { S?: string } }).pk?.S).startsWith('LOCAL#'),
    );

    // Act
    await client.send(update('LOCAL#STREAM_CHECKPOINT#publish-events'));
    await client.send(update('RATE#1'));
    const calls = counter.snapshot();

    // Assess
    expect(calls[`${LOCAL_ONLY}DynamoDB UpdateItem state`]).toMatchObject({ calls: 1, units: 1 });
    expect(calls['DynamoDB UpdateItem state']).toMatchObject({ calls: 1, units: 1 });
    const phase = { messages: 1, calls, lambda: {}, eventBytes: 0 } as unknown as PhaseFigures;
    const writes = costLines(phase, 'function-url').find(
      (line) => line.line === 'DynamoDB write request units',
    );
    expect(writes?.units).toBe(1);
  });
});

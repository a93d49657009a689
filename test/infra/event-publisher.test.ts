/**
 * The publisher construct on its own: its publish markers in the state table (environment and a
 * grant limited to `PUBLISH#` keys), the reports it reads for each message's status (a Query
 * limited to `REPORT#` partitions) and the outputs `msgbridge events republish` reads.
 */
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, StreamViewType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { EventPublisher, eventPublisherProblems } from '../../lib/event-publisher.ts';
import { allStatements } from '../support/stack-template.ts';

const synth = (options: { parallelizationFactor?: number } = {}) => {
  const stack = new Stack(new App(), 'publisher');
  const eventTable = new TableV2(stack, 'events', {
    partitionKey: { name: 'pk', type: AttributeType.STRING },
    sortKey: { name: 'sk', type: AttributeType.STRING },
    dynamoStream: StreamViewType.NEW_IMAGE,
  });
  const stateTable = new TableV2(stack, 'state', {
    partitionKey: { name: 'pk', type: AttributeType.STRING },
  });
  const publisher = new EventPublisher(stack, 'event-publisher', {
    eventTable,
    stateTable,
    eventBus: new EventBus(stack, 'bus'),
    eventSource: 'acme.msgbridge',
    ...options,
  });
  const id = (construct: IConstruct) =>
    stack.getLogicalId(construct.node.defaultChild as CfnElement);
  return { template: Template.fromStack(stack), publisher, eventTable, stateTable, id };
};

describe('EventPublisher', () => {
  const { template, publisher, eventTable, stateTable, id } = synth();
  /** The policy statements whose resource is `table` itself. */
  const statementsOn = (table: TableV2) =>
    allStatements(template).filter(
      (statement) =>
        JSON.stringify(statement.Resource) === JSON.stringify({ 'Fn::GetAtt': [id(table), 'Arn'] }),
    );

  it('outputs the on-failure queue and the event source under fixed names', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;

    expect(outputs.PublisherOnFailureQueueUrl?.Value).toEqual({
      Ref: id(publisher.onFailureQueue),
    });
    expect(outputs.EventSource?.Value).toBe('acme.msgbridge');
  });

  it('gives the publisher the state table, to read and put its markers only', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: { STATE_TABLE_NAME: { Ref: id(stateTable) } } },
    });

    expect(statementsOn(stateTable)).toEqual([
      {
        Effect: 'Allow',
        Action: [
          'dynamodb:GetItem',
          'dynamodb:BatchGetItem',
          'dynamodb:PutItem',
          'dynamodb:BatchWriteItem',
        ],
        Resource: { 'Fn::GetAtt': [id(stateTable), 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PUBLISH#*'] } },
      },
    ]);
  });

  it('lets the publisher query reports of the event table, and nothing else of it (each message status at publication)', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: { EVENT_TABLE_NAME: { Ref: id(eventTable) } } },
    });

    expect(statementsOn(eventTable)).toEqual([
      {
        Effect: 'Allow',
        Action: 'dynamodb:Query',
        Resource: { 'Fn::GetAtt': [id(eventTable), 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['REPORT#*'] } },
      },
    ]);
  });

  it('publishes two batches of a shard at once by default, and as many as chosen up to ten', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ParallelizationFactor: 2,
    });
    synth({ parallelizationFactor: 10 }).template.hasResourceProperties(
      'AWS::Lambda::EventSourceMapping',
      { ParallelizationFactor: 10 },
    );
    expect(eventPublisherProblems({ parallelizationFactor: 11 })).toEqual([
      expect.stringMatching(/^parallelizationFactor .*10/),
    ]);
    expect(eventPublisherProblems({ parallelizationFactor: 0 })).toHaveLength(1);
    expect(eventPublisherProblems({ parallelizationFactor: 4 })).toEqual([]);
  });
});

/**
 * The EventBridge schema registry: deployed by the stack with one schema per detail-type, each
 * the committed document of docs/events/registry/ (which a unit test regenerates from the zod
 * schemas), so the registry cannot drift from the catalogue.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../functions/catalogue/index.ts';
import { registrySchemaPath } from '../../lib/event-registry-schemas.ts';
import { EventSchemaRegistry } from '../../lib/event-schema-registry.ts';
import { MsgbridgeStack } from '../../lib/msgbridge-stack.ts';
import { problemsOf } from '../support/stack-template.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

const root = join(import.meta.dirname, '../..');

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
}

const ofType = (template: Template, type: string) =>
  Object.entries(template.toJSON().Resources as Record<string, Resource>).filter(
    ([, resource]) => resource.Type === type,
  );

describe('EventSchemaRegistry in the stack', () => {
  // Templates only, with cdk-nag: synthesis throws on any unacknowledged finding.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new MsgbridgeStack(app, 'msgbridge-schemas', { gateway: TEST_GATEWAY });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  app.synth();
  const template = Template.fromStack(stack);

  it('deploys one registry with exactly one schema per detail-type', () => {
    // Act
    const registries = ofType(template, 'AWS::EventSchemas::Registry');
    const schemas = ofType(template, 'AWS::EventSchemas::Schema');

    // Assess
    expect(registries).toHaveLength(1);
    const [registryId] = registries[0] ?? [];
    expect(schemas.map(([, schema]) => schema.Properties.SchemaName).sort()).toEqual(
      Object.values(EVENT_TYPES)
        .map(({ detailType }) => detailType.replace(/ /g, ''))
        .sort(),
    );
    for (const [, schema] of schemas) {
      expect(schema.Properties.Type).toBe('JSONSchemaDraft4');
      expect(schema.Properties.RegistryName).toEqual({
        'Fn::GetAtt': [registryId, 'RegistryName'],
      });
    }
  });

  it('gives each schema the committed document of its detail-type (docs/events/registry/)', () => {
    const schemas = new Map(
      ofType(template, 'AWS::EventSchemas::Schema').map(([, schema]) => [
        schema.Properties.SchemaName,
        schema.Properties.Content,
      ]),
    );

    for (const { detailType } of Object.values(EVENT_TYPES)) {
      const committed = JSON.parse(
        readFileSync(join(root, registrySchemaPath(detailType)), 'utf8'),
      );
      const content = schemas.get(detailType.replace(/ /g, ''));

      expect(typeof content, detailType).toBe('string');
      expect(content, detailType).toBe(JSON.stringify(committed));
      expect(committed['x-amazon-events-detail-type']).toBe(detailType);
    }
  });

  it('outputs the registry name', () => {
    const [registryId] = ofType(template, 'AWS::EventSchemas::Registry')[0] ?? [];

    expect(template.toJSON().Outputs.EventSchemaRegistryName.Value).toEqual({
      'Fn::GetAtt': [registryId, 'RegistryName'],
    });
  });
});

describe('EventSchemaRegistry', () => {
  it("names the stack's event source in every schema", () => {
    // Arrange
    const stack = new Stack(new App(), 'registry');

    // Act
    new EventSchemaRegistry(stack, 'event-schemas', { eventSource: 'acme.messaging' });

    // Assess
    const schemas = ofType(Template.fromStack(stack), 'AWS::EventSchemas::Schema');
    expect(schemas).toHaveLength(Object.keys(EVENT_TYPES).length);
    for (const [, schema] of schemas) {
      const document = JSON.parse(String(schema.Properties.Content));
      expect(document['x-amazon-events-source']).toBe('acme.messaging');
      expect(document.properties.source.enum).toEqual(['acme.messaging']);
    }
  });

  it('refuses an event source the bus would refuse', () => {
    const problems = problemsOf(
      () =>
        new EventSchemaRegistry(new Stack(new App(), 'registry'), 'event-schemas', {
          eventSource: 'aws.msgbridge',
        }),
    );

    expect(problems).toEqual([expect.stringContaining('must not start with "aws."')]);
  });
});

import { CfnOutput, Stack } from 'aws-cdk-lib';
import { CfnRegistry, CfnSchema } from 'aws-cdk-lib/aws-eventschemas';
import { Construct } from 'constructs';
import { slugOf } from '../functions/catalogue/detail-type-names.ts';
import { eventSourceProblems } from './event-publisher.ts';
import { REGISTRY_SCHEMA_TYPE, registrySchemas } from './event-registry-schemas.ts';
import { throwIfInvalid } from './props-validation.ts';

export interface EventSchemaRegistryProps {
  /** The `source` of the events on the bus, as the publisher sets it. */
  readonly eventSource: string;
}

/**
 * An EventBridge schema registry with one schema per detail-type msgbridge publishes (JSON Schema
 * draft 4, generated from the catalogue's zod schemas, as `docs/events/registry/*.json`), so that
 * subscribers can browse the events and download code bindings for them from the console or the
 * `schemas` API. A schema whose document changes gets a new version on the next deployment.
 */
export class EventSchemaRegistry extends Construct {
  public readonly registry: CfnRegistry;
  /** The registry's name, for `aws schemas …` calls. */
  public readonly registryName: string;
  /** One schema per detail-type, by detail-type. */
  public readonly schemas: ReadonlyMap<string, CfnSchema>;

  constructor(scope: Construct, id: string, props: EventSchemaRegistryProps) {
    super(scope, id);
    throwIfInvalid('EventSchemaRegistry', eventSourceProblems(props.eventSource));

    // No name of ours: CloudFormation generates one unique in the account and region, so that
    // two deployments never collide; the output names it.
    this.registry = new CfnRegistry(this, 'registry', {
      description: `msgbridge events (source "${props.eventSource}"), one schema per detail-type`,
    });
    this.registryName = this.registry.attrRegistryName;

    const schemas = new Map<string, CfnSchema>();
    for (const schema of registrySchemas(props.eventSource)) {
      schemas.set(
        schema.detailType,
        new CfnSchema(this, slugOf(schema.detailType), {
          registryName: this.registryName,
          schemaName: schema.schemaName,
          type: REGISTRY_SCHEMA_TYPE,
          description: `msgbridge "${schema.detailType}" (data version 1)`,
          content: Stack.of(this).toJsonString(schema.document),
        }),
      );
    }
    this.schemas = schemas;

    new CfnOutput(this, 'registry-name', {
      description: 'EventBridge schema registry of the events: browse them, download code bindings',
      value: this.registryName,
    }).overrideLogicalId('EventSchemaRegistryName');
  }
}

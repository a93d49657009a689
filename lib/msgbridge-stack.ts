import { RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import {
  AttributeType,
  Billing,
  StreamViewType,
  TableEncryptionV2,
  TableV2,
} from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { EVENT_TABLE, STATE_TABLE, type TableDefinition } from '../functions/commons/tables.ts';

export interface MsgbridgeStackProps extends StackProps {
  /**
   * Source of the events put on the bus.
   * @default 'msgbridge'
   */
  readonly eventSource?: string;
}

/**
 * msgbridge in one stack. The stateful resources (tables, secret) are retained when the stack is
 * deleted, so removing the functions can never drop data.
 */
export class MsgbridgeStack extends Stack {
  /** Reports, inbound messages, send records, attachments and quarantined bodies; stream on. */
  public readonly eventTable: TableV2;
  /** Gateway token, rate-limit bucket and leases; never streamed to subscribers. */
  public readonly stateTable: TableV2;
  /** The customer's events: delivery reports, inbound messages, send results. */
  public readonly eventBus: EventBus;
  /** Gateway API key and password (`{"apiKey": "...", "apiPassword": "..."}`), set by the operator. */
  public readonly credentials: Secret;
  public readonly eventSource: string;

  constructor(scope: Construct, id: string, props: MsgbridgeStackProps = {}) {
    super(scope, id, props);
    this.eventSource = props.eventSource ?? 'msgbridge';

    this.eventTable = this.table(EVENT_TABLE);
    this.stateTable = this.table(STATE_TABLE);

    this.eventBus = new EventBus(this, 'event-bus', {
      description: 'msgbridge delivery reports, inbound messages and send results',
    });

    this.credentials = new Secret(this, 'gateway-credentials', {
      description:
        'msgbridge gateway credentials: put {"apiKey":"...","apiPassword":"..."} here before use',
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.credentials).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The gateway issues the API key and password in its own console; there is no API to rotate them, so rotation is an operator task.',
    });
  }

  private table(definition: TableDefinition): TableV2 {
    return new TableV2(this, definition.name, {
      partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
      ...(definition.sortKey
        ? { sortKey: { name: definition.sortKey, type: AttributeType.STRING } }
        : {}),
      billing: Billing.onDemand(),
      ...(definition.stream ? { dynamoStream: StreamViewType.NEW_IMAGE } : {}),
      timeToLiveAttribute: definition.timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryptionV2.awsManagedKey(),
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}

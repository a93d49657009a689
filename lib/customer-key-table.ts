import { CfnElement } from 'aws-cdk-lib';
import {
  type CfnGlobalTable,
  TableEncryptionV2,
  type TablePropsV2,
  TableV2,
} from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';

export interface CustomerKeyTableProps extends Omit<TablePropsV2, 'encryption' | 'replicas'> {
  /** The customer managed key of the table (and of its stream, indexes and backups). */
  readonly encryptionKey: IKey;
}

/**
 * A `TableV2` encrypted with a customer managed key in an environment-agnostic stack.
 *
 * `TableEncryptionV2.customerManagedKey` cannot be used there: it pairs each replica's region with
 * a key and refuses to render when the stack's region is unknown at synth time ("Replica SSE
 * specification cannot be rendered in a region agnostic stack"). These tables have exactly one
 * replica, in the stack's own region, so this renders what `customerManagedKey` would (`SSEType`
 * KMS on the table, the key on its one replica) and sets `encryptionKey`, so that CDK's grants
 * (stream reads) and msgbridge's own (`grants.ts`) include the key. No replicas in other regions.
 */
export class CustomerKeyTable extends TableV2 {
  public override readonly encryptionKey: IKey;

  constructor(scope: Construct, id: string, props: CustomerKeyTableProps) {
    const { encryptionKey, ...tableProps } = props;
    // Renders SSESpecification { SSEEnabled: true, SSEType: KMS } without a key on the replica.
    super(scope, id, { ...tableProps, encryption: TableEncryptionV2.awsManagedKey() });
    this.encryptionKey = encryptionKey;
    const resource = this.node.defaultChild;
    if (!CfnElement.isCfnElement(resource)) throw new Error(`${id} has no CfnGlobalTable`);
    (resource as CfnGlobalTable).addPropertyOverride(
      'Replicas.0.SSESpecification.KMSMasterKeyId',
      encryptionKey.keyArn,
    );
  }
}

import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { GatewayPlacement } from './gateway-egress.ts';
import { type GatewaySettingsProps, gatewayEnvironment } from './gateway-settings.ts';
import { grantTableItemActions } from './grants.ts';
import { MsgbridgeFunction, type MsgbridgeFunctionProps } from './msgbridge-function.ts';

/**
 * State-table calls of the shared token provider (`stateTableTokenProvider`): read the token,
 * write a new one (version-checked), take and give back the `token-reauth` lease.
 */
export const TOKEN_PROVIDER_STATE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:DeleteItem',
] as const;

export interface GatewayFunctionProps extends MsgbridgeFunctionProps {
  /** The customer's gateway hosts and call timeout (`GATEWAY_*`). */
  readonly gateway: GatewaySettingsProps;
  /**
   * `GATEWAY_TIMEOUT_MS` of this function, when it must differ from `gateway.timeoutMs`.
   * @default - `gateway.timeoutMs`
   */
  readonly gatewayTimeoutMs?: number;
  /** Gateway API key and password; the function may `GetSecretValue` on it, nothing more. */
  readonly credentials: ISecret;
  /** Holds the shared gateway token (`STATE_TABLE_NAME`). */
  readonly stateTable: ITableV2;
  /**
   * Every item action the function takes on the state table: the token's and its own. Granted
   * in one statement on the table itself.
   */
  readonly stateTableActions: readonly string[];
  /** `POWERTOOLS_METRICS_NAMESPACE`. */
  readonly metricsNamespace: string;
  /**
   * The private subnets and security group of the fixed-egress VPC (`GatewayEgress.placement`).
   * @default - outside a VPC
   */
  readonly egress?: GatewayPlacement;
}

/**
 * A function that calls the gateway: the one place that gives a function the gateway's address,
 * the credentials secret and the state table with the shared token. Every gateway caller is
 * created here, so that their network placement (`egress`: the fixed-egress VPC the gateway's IP
 * allowlist needs) is decided in one place too.
 */
export class GatewayFunction extends MsgbridgeFunction {
  constructor(scope: Construct, id: string, props: GatewayFunctionProps) {
    const {
      gateway,
      gatewayTimeoutMs,
      credentials,
      stateTable,
      stateTableActions,
      metricsNamespace,
      egress,
      ...functionProps
    } = props;
    super(scope, id, {
      ...functionProps,
      ...egress,
      environment: {
        ...functionProps.environment,
        STATE_TABLE_NAME: stateTable.tableName,
        ...gatewayEnvironment(
          gatewayTimeoutMs === undefined ? gateway : { ...gateway, timeoutMs: gatewayTimeoutMs },
        ),
        GATEWAY_CREDENTIALS_SECRET_ARN: credentials.secretArn,
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
      },
    });
    grantTableItemActions(stateTable, this, ...new Set(stateTableActions));
    // GetSecretValue only: `grantRead` would add DescribeSecret, which no function calls.
    this.addToRolePolicy(
      new PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [credentials.secretFullArn ?? `${credentials.secretArn}-??????`],
      }),
    );
    credentials.encryptionKey?.grantDecrypt(this);
  }
}

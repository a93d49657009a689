import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { integerProblem, throwIfInvalid } from './props-validation.ts';

export interface WebhookSecretProps {
  /**
   * Length of the generated secret: letters and digits only, so it is safe in a URL path.
   * @default 40
   */
  readonly length?: number;
}

/** What the stack adds to `WebhookSecretProps`. */
export interface WebhookSecretConstructProps extends WebhookSecretProps {
  /**
   * Customer managed key the secret is encrypted with.
   * @default - the account's `aws/secretsmanager` key
   */
  readonly encryptionKey?: IKey;
}

/** The problems with `WebhookSecretProps`, for a caller that reports every problem at once. */
export const webhookSecretProblems = (props: WebhookSecretProps): string[] =>
  integerProblem('length', props.length, { min: 16, max: 4_096 });

/**
 * The webhook path secret: `POST /webhooks/{secret}/report` and `/mo` answer 404 unless `{secret}`
 * equals `current` or, during a rotation, `previous` of this secret's JSON value
 * (`{"current": "...", "previous": "..."}`). It is generated at the first deployment and retained
 * when the stack is deleted, so the URLs registered in the gateway console keep working.
 *
 * Rotation (docs/operations.md has the commands):
 * 1. put `{"current": <new value>, "previous": <old current>}`; both URLs work from now on;
 * 2. wait until every receiver has reloaded the secret (it is cached for 5 minutes);
 * 3. change both webhook URLs in the gateway console to the new value;
 * 4. once the gateway has stopped using the old URLs, put `{"current": <new value>}` again.
 */
export class WebhookSecret extends Construct {
  public readonly secret: Secret;

  constructor(scope: Construct, id: string, props: WebhookSecretConstructProps = {}) {
    super(scope, id);
    throwIfInvalid('WebhookSecret', webhookSecretProblems(props));

    this.secret = new Secret(this, 'secret', {
      description:
        'msgbridge webhook path secret {"current": "...", "previous": "..."}; see docs/operations.md before changing it',
      generateSecretString: {
        secretStringTemplate: JSON.stringify({}),
        generateStringKey: 'current',
        passwordLength: props.length ?? 40,
        excludePunctuation: true,
        includeSpace: false,
      },
      removalPolicy: RemovalPolicy.RETAIN,
      ...(props.encryptionKey ? { encryptionKey: props.encryptionKey } : {}),
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The secret is also configured in the gateway console, which has no API: a rotation Lambda could change our side only and would break the webhooks. Rotation is the documented four-step operator procedure (docs/operations.md), which keeps both values valid until the console is updated.',
    });
  }
}

import { GatewayRequestInvalidError } from '../gateway/client.ts';
import { GatewayError, GatewayTransportError } from '../gateway/errors.ts';
import { RcsChatbotIdUnusableError } from '../gateway/management/rcs-client.ts';

/**
 * A failure of an operation the operator can act on: the CLI prints it as `msgbridge CMD: message`
 * (exit 1, no stack trace), the console on the page.
 */
export class OperationError extends Error {
  override readonly name = 'OperationError';
  constructor(
    message: string,
    /** Extra lines printed under the message (e.g. every validation problem). */
    readonly details: readonly string[] = [],
  ) {
    super(message);
  }
}

/**
 * The lines that tell the user what went wrong, without a stack trace: the gateway's code and
 * message (and nested codes), every problem of an invalid request, or the error's message.
 */
export const describeError = (error: unknown): string[] => {
  if (error instanceof OperationError)
    return [error.message, ...error.details.map((d) => `  ${d}`)];
  if (error instanceof GatewayTransportError) {
    return [
      `the gateway did not answer (${error.kind}): ${error.gatewayMessage}`,
      '  (the gateway accepts calls only from registered IP addresses; see docs/operations.md)',
    ];
  }
  if (error instanceof GatewayError) {
    const nested =
      error instanceof RcsChatbotIdUnusableError
        ? [`  nested: ${error.nestedCode} ${error.nestedMessage}`]
        : [];
    return [`the gateway refused: ${error.code} ${error.gatewayMessage}`.trimEnd(), ...nested];
  }
  if (error instanceof GatewayRequestInvalidError) {
    return [
      'invalid request, nothing was sent:',
      ...error.issues.map((issue) => `  ${issue.path.join('.') || '(request)'}: ${issue.message}`),
    ];
  }
  if (error instanceof Error && error.name === 'CredentialsProviderError') {
    return [
      'no AWS credentials were found for the stack',
      '  (set a profile with AWS_PROFILE=NAME, after `aws configure` or `aws sso login --profile NAME`,',
      "  or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; and the stack's region with --region R or AWS_REGION)",
    ];
  }
  if (error instanceof Error && error.message === 'Region is missing') {
    return [
      'no AWS region was given for the stack',
      '  (pass --region R, or set AWS_REGION or a region in the AWS profile)',
    ];
  }
  if (error instanceof Error) {
    // AWS SDK errors carry a name such as AccessDeniedException or ValidationError.
    return [
      error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message,
    ];
  }
  return [String(error)];
};

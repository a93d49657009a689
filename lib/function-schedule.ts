import { type Duration, Stack } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';

export interface FunctionScheduleProps {
  /** The function invoked. */
  readonly target: IFunction;
  /** Time between invocations: `rate(...)`. */
  readonly rate: Duration;
  /**
   * Retries of a failed invocation, by the scheduler (the invocation could not be delivered) and
   * by Lambda (the function failed): asynchronous invocations have both, and both get this.
   */
  readonly retryAttempts: number;
  /** After this long an invocation is dropped instead of retried, by both. At least a minute. */
  readonly maxEventAge: Duration;
  readonly description: string;
}

/**
 * Invokes a function on an EventBridge Scheduler `rate(...)` schedule, through a role of its own
 * that may invoke this one function and nothing else.
 *
 * The scheduler invokes Lambda asynchronously, so its retry policy only covers delivering the
 * invocation; what happens when the function fails is the function's asynchronous invocation
 * config. Both are set from the same `retryAttempts` and `maxEventAge` here, so that "retries"
 * means what it says.
 */
export class FunctionSchedule extends Construct {
  public readonly schedule: Schedule;
  /** Assumed by EventBridge Scheduler for this schedule's account only. */
  public readonly role: Role;

  constructor(scope: Construct, id: string, props: FunctionScheduleProps) {
    super(scope, id);
    this.role = new Role(this, 'role', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        // Only schedules of this account may use the role (confused-deputy protection).
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: `msgbridge: lets EventBridge Scheduler invoke ${props.target.node.id} only`,
    });
    // The function itself only: `LambdaInvoke` would use `grantInvoke`, which adds every version
    // and alias (`<arn>:*`), none of which exists here.
    this.role.addToPolicy(
      new PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: [props.target.functionArn],
      }),
    );
    const retryPolicy = {
      maximumRetryAttempts: props.retryAttempts,
      maximumEventAgeInSeconds: props.maxEventAge.toSeconds(),
    };
    this.schedule = new Schedule(this, 'schedule', {
      schedule: ScheduleExpression.rate(props.rate),
      description: props.description,
      target: { bind: () => ({ arn: props.target.functionArn, role: this.role, retryPolicy }) },
    });
    props.target.configureAsyncInvoke({
      retryAttempts: props.retryAttempts,
      maxEventAge: props.maxEventAge,
    });
  }
}

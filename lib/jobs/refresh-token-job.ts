import { join } from 'node:path';
import { Duration, Token } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { FunctionSchedule } from '../function-schedule.ts';
import { GatewayFunction } from '../gateway-function.ts';
import { JOB_SERVICES, type JobParts } from './job-parts.ts';

/**
 * `refresh-token` every 5 minutes (two quick retries) keeps the shared gateway token in the state
 * table current.
 */
export const refreshTokenJob = ({ scope, common, gatewayTimeoutMs }: JobParts) => {
  const fn = new GatewayFunction(scope, JOB_SERVICES.refreshToken, {
    ...common,
    entry: join(import.meta.dirname, '../../functions/refresh-token.ts'),
    description: 'msgbridge: keeps the one shared gateway token in the state table current',
    // A refresh and, when it is refused, a full authentication: two gateway calls at most.
    timeout: Duration.seconds(
      Token.isUnresolved(gatewayTimeoutMs)
        ? 30
        : Math.max(30, Math.ceil((2 * gatewayTimeoutMs) / 1_000) + 5),
    ),
    // It never takes the re-authentication lease: its writes are version-checked instead.
    stateTableActions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
  });
  const schedule = new FunctionSchedule(scope, `${JOB_SERVICES.refreshToken}-schedule`, {
    target: fn,
    rate: Duration.minutes(5),
    // Two quick retries, all before the next regular run.
    retryAttempts: 2,
    maxEventAge: Duration.minutes(4),
    description: 'msgbridge refresh-token: every 5 minutes, 2 retries',
  });
  return { fn, schedule };
};

/** The alarms of `refresh-token`: failed runs, and a token close to expiry or no run reported. */
export const refreshTokenAlarms = ({ scope, metric, above }: JobParts) => {
  const fiveMinutes = Duration.minutes(5);
  const failures = above(
    'token-refresh-failures',
    'msgbridge: refresh-token failed in 2 of the last 3 runs (after its retries); the other functions re-authenticate on demand meanwhile, but check the credentials secret and the gateway.',
    'the-gateway-token',
    metric(JOB_SERVICES.refreshToken, 'TokenRefreshFailures', Stats.SUM, fiveMinutes),
    { evaluation: 3, toAlarm: 2 },
  );
  const minutesLeft = new Alarm(scope, 'token-minutes-left', {
    alarmDescription:
      'msgbridge: the stored gateway token has less than 8 minutes left, or refresh-token has not reported for 10 minutes (stopped, failing or not scheduled). See docs/operations.md#the-gateway-token.',
    metric: metric(JOB_SERVICES.refreshToken, 'TokenMinutesLeft', Stats.MINIMUM, fiveMinutes),
    threshold: 8,
    comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
    // Two periods, so that one run reported a little late is not an alarm.
    evaluationPeriods: 2,
    datapointsToAlarm: 2,
    // No data means no refresher: that must alarm too.
    treatMissingData: TreatMissingData.BREACHING,
  });
  return { failures, minutesLeft };
};

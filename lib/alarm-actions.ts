import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';

/** Sends each alarm, and its return to OK, to the alarm topic when there is one. */
export const notifyAlarmTopic = (
  scope: Construct,
  alarmTopicArn: string | undefined,
  alarms: readonly Alarm[],
): void => {
  if (!alarmTopicArn) return;
  const action = new SnsAction(Topic.fromTopicArn(scope, 'alarm-topic', alarmTopicArn));
  for (const alarm of alarms) {
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
  }
};

/** The CloudFormation the infrastructure tests expect of msgbridge's alarms and gateway callers, built from the few values that differ. */

/** A metric the functions publish: `metricName` with the `service` dimension, in `namespace`. */
export const serviceMetric = (namespace: string, service: string, metricName: string) => ({
  Namespace: namespace,
  MetricName: metricName,
  Dimensions: [{ Name: 'service', Value: service }],
});

/** The visible-messages metric of the queue with logical id `queueId`. */
export const queueMessagesMetric = (queueId: string) => ({
  Namespace: 'AWS/SQS',
  MetricName: 'ApproximateNumberOfMessagesVisible',
  Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
});

/**
 * An alarm on `statistic` over `period` seconds as `alarmAbove` makes it: anything above 0 in one
 * period, missing data not breaching; `overrides` sets what differs.
 */
export const alarmAbove = (
  statistic: string,
  period: number,
  overrides: Readonly<Record<string, unknown>> = {},
) => ({
  Statistic: statistic,
  Period: period,
  ComparisonOperator: 'GreaterThanThreshold',
  Threshold: 0,
  EvaluationPeriods: 1,
  TreatMissingData: 'notBreaching',
  ...overrides,
});

/**
 * The environment every gateway caller gets: the test gateway's hosts, its call timeout, the
 * credentials secret (by logical id) and the metrics namespace.
 */
export const gatewayCallerEnvironment = (
  credentialsId: string,
  { timeoutMs = '10000', namespace = 'msgbridge' } = {},
) => ({
  GATEWAY_API_URL: 'https://api.gateway.example',
  GATEWAY_SEND_URL: 'https://send.gateway.example',
  GATEWAY_MNT_URL: 'https://mnt.gateway.example',
  GATEWAY_TIMEOUT_MS: timeoutMs,
  GATEWAY_CREDENTIALS_SECRET_ARN: { Ref: credentialsId },
  POWERTOOLS_METRICS_NAMESPACE: namespace,
});

/**
 * The cdk-nag findings acknowledged in `InboundAttachments`, as `path rule`: the functions' object
 * writes below `inbound/` of the bucket with logical id `bucketId`, the access-log bucket and the
 * on-failure queue.
 */
export const attachmentFindings = (bucketId: string): string[] => {
  const objects = `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/inbound/*]`;
  return [
    'inbound-attachments/fetch-attachments-role AwsSolutions-IAM5[Resource::*]',
    `inbound-attachments/fetch-attachments-role ${objects}`,
    'inbound-attachments/sweep-attachments-role AwsSolutions-IAM5[Resource::*]',
    `inbound-attachments/sweep-attachments-role ${objects}`,
    'inbound-attachments/access-logs AwsSolutions-S1',
    'inbound-attachments/on-failure-queue AwsSolutions-SQS3',
  ];
};

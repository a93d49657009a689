/*
 * msgbridge as one construct in a CDK app of yours, with a producer of the same app granted the
 * send queue and its key. Deploy it with `npx cdk deploy`; the steps after the first deploy are in
 * docs/deploy.md ("A first deploy"). cdk-nag's AwsSolutions checks run clean on it, if you use
 * them (`Validations.of(app).addPlugins(new AwsSolutionsChecks(app))`, with cdk-nag installed).
 */
import { App, Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { MsgBridge } from 'msgbridge';

const app = new App();
const stack = new Stack(app, 'messaging', { env: { region: 'ap-northeast-2' } });
const bridge = new MsgBridge(stack, 'msgbridge', {
  gateway: {
    // The three hosts of your msghub environment (test or production) and your TPS quota.
    hosts: {
      api: 'https://api.msghub.example',
      send: 'https://send.msghub.example',
      mnt: 'https://mnt.msghub.example',
    },
    tpsQuota: 100,
  },
  reportDelivery: 'both',
  alarmEmails: ['oncall@example.com'],
});

// A producer of this app: the SQS send actions and the queue key's GenerateDataKey and Decrypt,
// nothing else. Producers outside the app: the output SendProducerPolicyArn, or
// `sending.producers` for another account (docs/operations.md, "Letting a producer send").
const orderService = new Role(stack, 'order-service', {
  assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
});
bridge.sendPipeline.grantSendMessages(orderService);

/*
 * msgbridge and a producer in two stacks of one CDK app: the producer's stack gets the send
 * queue's URL and the permission to send to it from the construct (`grantSendMessages`: the
 * SQS send actions and the queue key's GenerateDataKey/Decrypt), nothing else.
 */
import { App, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import { MsgBridge } from 'msgbridge';

interface OrderServiceProps extends StackProps {
  readonly bridge: MsgBridge;
}

class OrderService extends Stack {
  constructor(scope: Construct, id: string, props: OrderServiceProps) {
    super(scope, id, props);
    const { sendPipeline } = props.bridge;
    const notifier = new NodejsFunction(this, 'order-notifier', {
      entry: 'order-notifier.ts',
      runtime: Runtime.NODEJS_24_X,
      environment: { SEND_QUEUE_URL: sendPipeline.queue.queueUrl },
    });
    sendPipeline.grantSendMessages(notifier);
  }
}

const app = new App();
const messaging = new Stack(app, 'messaging');
const bridge = new MsgBridge(messaging, 'msgbridge', {
  gateway: {
    hosts: {
      api: 'https://api.gateway.example',
      send: 'https://send.gateway.example',
      mnt: 'https://mnt.gateway.example',
    },
    tpsQuota: 100,
  },
});
new OrderService(app, 'order-service', { bridge });
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();

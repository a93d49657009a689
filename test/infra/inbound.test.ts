import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import {
  configured,
  defaults,
  environmentOf,
  restApi,
  type Statement,
  synthInboundStacks,
} from '../support/inbound-stack.ts';

describe('inbound path infrastructure', () => {
  synthInboundStacks();

  describe('webhook REST API (front: rest-api)', () => {
    it('routes POST /webhooks/{secret}/report and /mo to their receivers by Lambda proxy', () => {
      // Prepare
      const { template, stack, id } = restApi;
      const routes = [
        { path: 'report', fn: stack.webhookApi.receiveReports },
        { path: 'mo', fn: stack.webhookApi.receiveInbound },
      ];

      // Act
      const methods = template.findResources('AWS::ApiGateway::Method');
      const resources = template.findResources('AWS::ApiGateway::Resource');

      // Assess
      template.hasResourceProperties('AWS::ApiGateway::RestApi', {
        EndpointConfiguration: { Types: ['REGIONAL'] },
      });
      const pathParts = Object.values(resources).map((resource) => resource.Properties.PathPart);
      expect(pathParts.sort()).toEqual(['mo', 'report', 'webhooks', '{secret}'].sort());
      expect(Object.keys(methods)).toHaveLength(2);
      for (const { path, fn } of routes) {
        const resourceId = Object.entries(resources).find(
          ([, resource]) => resource.Properties.PathPart === path,
        )?.[0];
        template.hasResourceProperties('AWS::ApiGateway::Method', {
          HttpMethod: 'POST',
          ResourceId: { Ref: resourceId },
          Integration: {
            Type: 'AWS_PROXY',
            IntegrationHttpMethod: 'POST',
            Uri: Match.anyValue(),
          },
        });
        const method = Object.values(methods).find(
          (each) => each.Properties.ResourceId.Ref === resourceId,
        );
        expect(JSON.stringify(method?.Properties.Integration.Uri)).toContain(id(fn));
      }
    });

    it('validates only the path secret, so every body reaches the receivers to be quarantined', () => {
      const { template } = restApi;

      const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));

      template.hasResourceProperties('AWS::ApiGateway::RequestValidator', {
        ValidateRequestParameters: true,
      });
      for (const method of methods) {
        expect(method.Properties.AuthorizationType).toBe('NONE');
        expect(method.Properties.RequestParameters).toEqual({ 'method.request.path.secret': true });
        // Without a request model, body validation has nothing to reject.
        expect(method.Properties.RequestModels).toBeUndefined();
      }
      template.resourceCountIs('AWS::ApiGateway::Model', 0);
    });

    it('throttles the stage at 100 requests per second with bursts of 200 unless told otherwise', () => {
      restApi.template.hasResourceProperties('AWS::ApiGateway::Stage', {
        MethodSettings: [
          Match.objectLike({
            HttpMethod: '*',
            ResourcePath: '/*',
            ThrottlingRateLimit: 100,
            ThrottlingBurstLimit: 200,
            MetricsEnabled: true,
            LoggingLevel: 'OFF',
            DataTraceEnabled: false,
          }),
        ],
        TracingEnabled: false,
      });
    });

    it('takes throttling and stage tracing from props', () => {
      configured.template.hasResourceProperties('AWS::ApiGateway::Stage', {
        MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 })],
        TracingEnabled: true,
      });
    });

    it('writes JSON access logs with the route template, never the requested path', () => {
      const { template } = restApi;

      const stage = Object.values(template.findResources('AWS::ApiGateway::Stage'))[0];
      const format = String(stage?.Properties.AccessLogSetting.Format);

      expect(stage?.Properties.AccessLogSetting.DestinationArn).toBeDefined();
      expect(JSON.parse(format)).toMatchObject({
        resourcePath: '$context.resourcePath',
        status: '$context.status',
        sourceIp: '$context.identity.sourceIp',
      });
      expect(format).not.toContain('$context.path');
      expect(format).not.toContain('$context.error.message');
      expect(format).not.toContain('requestOverride');
    });

    it('has a resource policy allowing only the listed source CIDRs when they are given', () => {
      const api = Object.values(configured.template.findResources('AWS::ApiGateway::RestApi'))[0];
      const statements = api?.Properties.Policy.Statement as Statement[];

      expect(statements).toContainEqual(
        expect.objectContaining({ Effect: 'Allow', Action: 'execute-api:Invoke' }),
      );
      expect(statements).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Action: 'execute-api:Invoke',
          Condition: {
            NotIpAddress: { 'aws:SourceIp': ['203.0.113.0/24', '2001:db8::/32'] },
          },
        }),
      );
    });

    it('has no resource policy without allowed source CIDRs', () => {
      const api = Object.values(restApi.template.findResources('AWS::ApiGateway::RestApi'))[0];

      expect(api?.Properties.Policy).toBeUndefined();
      expect(JSON.stringify(restApi.template.toJSON())).not.toContain('aws:SourceIp');
    });

    it('lets API Gateway invoke each receiver from its own route of the stage only', () => {
      const permissions = Object.values(
        restApi.template.findResources('AWS::Lambda::Permission'),
      ).map((permission) => JSON.stringify(permission.Properties.SourceArn));

      expect(permissions).toHaveLength(2);
      expect(permissions.some((arn) => arn.includes('/POST/webhooks/*/report'))).toBe(true);
      expect(permissions.some((arn) => arn.includes('/POST/webhooks/*/mo'))).toBe(true);
      expect(permissions.some((arn) => arn.includes('test-invoke-stage'))).toBe(false);
    });

    it('outputs the stage URL and both webhook URL templates, never the secret value', () => {
      const { template, id, stack } = restApi;

      const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;

      expect(Object.keys(outputs)).toEqual(
        expect.arrayContaining(['WebhookStageUrl', 'ReportWebhookUrl', 'InboundWebhookUrl']),
      );
      expect(JSON.stringify(outputs.ReportWebhookUrl?.Value)).toContain(
        '/webhooks/<secret>/report',
      );
      expect(JSON.stringify(outputs.InboundWebhookUrl?.Value)).toContain('/webhooks/<secret>/mo');
      const secretId = id(stack.webhookSecret.secret);
      for (const [name, output] of Object.entries(outputs)) {
        const value = JSON.stringify(output.Value);
        expect(value).not.toContain('resolve:secretsmanager');
        if (name !== 'WebhookSecretArn') expect(value).not.toContain(secretId);
      }
    });
  });

  describe('webhook secret', () => {
    it('is generated as {"current": 40 letters and digits} and kept when the stack is deleted', () => {
      const { template, id, stack } = defaults;

      const secret = template.toJSON().Resources[id(stack.webhookSecret.secret)];

      expect(secret.DeletionPolicy).toBe('Retain');
      expect(secret.Properties.GenerateSecretString).toEqual({
        SecretStringTemplate: '{}',
        GenerateStringKey: 'current',
        PasswordLength: 40,
        ExcludePunctuation: true,
        IncludeSpace: false,
      });
    });
  });

  describe('functions', () => {
    it('configures each receiver from its environment', () => {
      const { id, stack } = defaults;

      for (const fn of [stack.webhookApi.receiveReports, stack.webhookApi.receiveInbound]) {
        const variables = environmentOf(defaults, fn);
        expect(variables).toMatchObject({
          EVENT_TABLE_NAME: { Ref: id(stack.eventTable) },
          WEBHOOK_SECRET_ARN: { Ref: id(stack.webhookSecret.secret) },
          EVENT_RETENTION_DAYS: '35',
          STORE_CONCURRENCY: '16',
          POWERTOOLS_METRICS_NAMESPACE: 'msgbridge',
        });
      }
    });

    it('configures the publisher from its environment', () => {
      const { id, stack } = defaults;

      const fn = stack.eventPublisher.publishEvents;
      const variables = environmentOf(defaults, fn);

      expect(variables).toMatchObject({
        EVENT_BUS_NAME: { Ref: id(stack.eventBus) },
        EVENT_SOURCE: 'msgbridge',
        STATE_TABLE_NAME: { Ref: id(stack.stateTable) },
        PUBLISH_MAX_ATTEMPTS: '4',
        POWERTOOLS_METRICS_NAMESPACE: 'msgbridge',
      });
    });
  });
});

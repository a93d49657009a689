/**
 * `msgbridge doctor`'s checks of what keeps a deployment moving, each resource read as its template
 * declares it: the event source mappings enabled and succeeding, the dead-letter and on-failure
 * queues (and the event bus's DLQ) empty, no alarm in ALARM, every schedule enabled, and enough of
 * the account's concurrency left unreserved.
 */
import {
  referencedId,
  resourcesOfType,
  type StackTemplate,
} from '../aws-semantics/cloudformation-template.ts';
import type { DoctorCheck, DoctorSources } from './doctor-ports.ts';

/** Lambda keeps this much of an account's concurrency unreserved. */
const LAMBDA_UNRESERVED_MINIMUM = 100;

/** Each event source mapping of the template is enabled and its last result no problem. */
export const mappingChecks = async (sources: DoctorSources): Promise<DoctorCheck[]> => {
  const names = new Map(sources.template.functions().map((fn) => [fn.logicalId, fn.name]));
  const checks: DoctorCheck[] = [];
  for (const mapping of sources.template.eventSourceMappings()) {
    const fn = names.get(mapping.functionId) ?? mapping.functionId;
    const name = `${fn} event source`;
    const { state, lastProcessingResult } = await sources.mapping(mapping.logicalId);
    const failing = lastProcessingResult?.startsWith('PROBLEM') === true;
    checks.push(
      state === 'Enabled' && !failing
        ? { name, ok: true, detail: `${state}, last result ${lastProcessingResult ?? 'none yet'}` }
        : {
            name,
            ok: false,
            detail: `${state}, last result ${lastProcessingResult ?? 'none'}`,
            fix:
              state === 'Enabled'
                ? `read ${fn}'s log group for the failing invocations (docs/operations.md, "Alarms")`
                : `enable it: aws lambda update-event-source-mapping --uuid ${sources.physicalId(mapping.logicalId) ?? mapping.logicalId} --enabled`,
          },
    );
  }
  return checks;
};

/** What to do about messages left in a queue, by the queue's role. */
const queueFix = (fn: string | undefined, role: 'dead-letter' | 'on-failure'): string => {
  if (role === 'on-failure' && fn === 'publish-events')
    return 'msgbridge events republish (docs/operations.md)';
  if (role === 'dead-letter' && fn === 'send-messages')
    return 'fix the cause, then msgbridge dlq redrive (docs/operations.md, "Redriving the DLQ")';
  return 'see docs/operations.md for this queue';
};

/**
 * What to do about events in an event bus's dead-letter queue: EventBridge put them there because
 * it could not encrypt or decrypt them with the bus's customer managed key (EventBridge user guide,
 * "Using dead-letter queues to capture encrypted event errors in EventBridge",
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-encryption-event-bus-dlq.html, read
 * 2026-12-07). The publisher counted them published, so `msgbridge events republish` never sees
 * them.
 */
const BUS_DLQ_FIX =
  'each message is an event EventBridge could not encrypt or decrypt with the data key, which subscribers never got (its ERROR_CODE and ERROR_MESSAGE attributes say why): usually the key is disabled, pending deletion, or its policy no longer lets events.amazonaws.com use it. Fix the key, then put the events on the bus again and delete the messages (docs/operations.md, "The event bus DLQ"); msgbridge events republish does not read this queue';

/** The logical id of the dead-letter queue of each event bus of the template that has one. */
const busDeadLetterQueues = (template: StackTemplate): string[] =>
  resourcesOfType(template.template, 'AWS::Events::EventBus').flatMap(([, bus]) => {
    const queueId = referencedId(
      (bus.Properties?.DeadLetterConfig as { Arn?: unknown } | undefined)?.Arn,
    );
    return queueId === undefined ? [] : [queueId];
  });

/** Each dead-letter and on-failure queue of the template, and the event bus's DLQ, is empty. */
export const queueChecks = async (sources: DoctorSources): Promise<DoctorCheck[]> => {
  const { template } = sources;
  const names = new Map(template.functions().map((fn) => [fn.logicalId, fn.name]));
  const consumerOf = (queueId: string) =>
    names.get(
      template.eventSourceMappings().find((mapping) => mapping.sourceId === queueId)?.functionId ??
        '',
    );
  const watched: Array<{ id: string; label: string; fix: string }> = [];
  for (const queue of template.queues())
    if (queue.redrive) {
      const fn = consumerOf(queue.logicalId);
      watched.push({
        id: queue.redrive.deadLetterQueueId,
        label: `dead-letter queue of ${fn ?? template.constructPath(queue.logicalId)}`,
        fix: queueFix(fn, 'dead-letter'),
      });
    }
  for (const mapping of template.eventSourceMappings())
    if (mapping.onFailureQueueId !== undefined) {
      const fn = names.get(mapping.functionId);
      watched.push({
        id: mapping.onFailureQueueId,
        label: `on-failure queue of ${fn ?? mapping.functionId}`,
        fix: queueFix(fn, 'on-failure'),
      });
    }
  for (const queueId of busDeadLetterQueues(template))
    watched.push({ id: queueId, label: 'dead-letter queue of the event bus', fix: BUS_DLQ_FIX });
  const checks: DoctorCheck[] = [];
  for (const { id, label, fix } of watched) {
    const url = sources.physicalId(id);
    if (url === undefined) {
      checks.push({ name: label, ok: false, detail: `${id} is not deployed`, fix: 'deploy again' });
      continue;
    }
    const depth = await sources.queueDepth(url);
    checks.push(
      depth === 0
        ? { name: label, ok: true, detail: 'empty' }
        : { name: label, ok: false, detail: `${depth} message(s) waiting`, fix },
    );
  }
  return checks;
};

/** No alarm of the template is in ALARM. */
export const alarmCheck = async (sources: DoctorSources): Promise<DoctorCheck> => {
  const name = 'alarms';
  const ids = Object.entries(sources.template.template.Resources)
    .filter(([, resource]) => resource.Type === 'AWS::CloudWatch::Alarm')
    .map(([id]) => id);
  if (!sources.alarms) return { name, ok: null, detail: 'the local run has no alarms' };
  const alarmNames = ids
    .map((id) => sources.physicalId(id))
    .filter((each): each is string => each !== undefined);
  const states = await sources.alarms(alarmNames);
  const firing = states.filter((alarm) => alarm.state === 'ALARM');
  return firing.length === 0
    ? { name, ok: true, detail: `none of ${states.length} in ALARM` }
    : {
        name,
        ok: false,
        detail: `in ALARM: ${firing.map((alarm) => alarm.name).join(', ')}`,
        fix: 'each alarm says what it watches and what to do: docs/operations.md, "Alarms"',
      };
};

/** Every schedule of the template is enabled. */
export const scheduleCheck = async (sources: DoctorSources): Promise<DoctorCheck> => {
  const name = 'schedules';
  const names = new Map(sources.template.functions().map((fn) => [fn.logicalId, fn.name]));
  const off: string[] = [];
  const schedules = sources.template.schedules();
  for (const schedule of schedules)
    if ((await sources.schedule(schedule.logicalId)) !== 'ENABLED')
      off.push(names.get(schedule.functionId) ?? schedule.logicalId);
  return off.length === 0
    ? {
        name,
        ok: true,
        detail: `all ${schedules.length} enabled (${schedules.map((s) => names.get(s.functionId)).join(', ')})`,
      }
    : {
        name,
        ok: false,
        detail: `disabled: ${off.join(', ')}`,
        fix: 'enable them again (aws scheduler update-schedule … --state ENABLED) or deploy again',
      };
};

/** Lambda keeps its minimum of the account's concurrency unreserved. */
export const concurrencyCheck = async (sources: DoctorSources): Promise<DoctorCheck> => {
  const name = 'account concurrency';
  if (!sources.accountConcurrency)
    return { name, ok: null, detail: 'no account quota in the local run' };
  const { limit, unreserved } = await sources.accountConcurrency();
  return unreserved >= LAMBDA_UNRESERVED_MINIMUM
    ? { name, ok: true, detail: `quota ${limit}, ${unreserved} unreserved` }
    : {
        name,
        ok: false,
        detail: `quota ${limit}, only ${unreserved} unreserved (Lambda keeps ${LAMBDA_UNRESERVED_MINIMUM})`,
        fix: 'ask for a higher concurrency quota (Service Quotas, Lambda, "Concurrent executions"), or reserve less',
      };
};

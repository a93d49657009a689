/**
 * Lambda's fixed quota on a function's environment: "Function environment variables: 4 KB, for
 * all environment variables associated with the function, in aggregate", a quota that cannot be
 * raised (Lambda developer guide, "Lambda quotas",
 * https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html, read 2026-12-07; the
 * page's KB is 1,024 bytes). Lambda measures the variables as their JSON: its refusal
 * (`InvalidParameterValueException: … exceeded the 4KB limit. String measured: {"NAME":"value",…}`)
 * quotes the string it measured. A template over it synthesizes and fails only at deploy, so the
 * settings that put lists into an environment are bounded here and every function's whole
 * environment is summed before deploy (local/stack/template-rules.ts).
 */
import { utf8Bytes } from '../functions/event-table/item-size.ts';

/** Lambda's quota on one function's environment variables, in bytes. */
export const LAMBDA_ENVIRONMENT_BYTES = 4_096;

/**
 * What one setting that grows with a list (`webhooks.allowedSourceCidrs`,
 * `attachments.contentHosts`, `statisticsExport.messengerChannels`) may take of its function's
 * environment: half the quota, the other half being the function's other variables, which an
 * infrastructure test shows fit in it with the longest stack name CloudFormation allows.
 */
export const SETTING_ENVIRONMENT_BYTES = LAMBDA_ENVIRONMENT_BYTES / 2;

/**
 * The bytes CloudFormation adds to a name it generates (`<stack>-<logical id>-<random>`, with a
 * random part of 12 or 13 characters): the deployed name is longer than the one a template model
 * gives by at most this much.
 */
export const GENERATED_NAME_SUFFIX_BYTES = 14;

/** The size of `variables` as Lambda measures it: the UTF-8 bytes of their JSON. */
export const environmentBytes = (variables: Readonly<Record<string, string>>): number =>
  utf8Bytes(JSON.stringify(variables));

/**
 * The problem with a setting whose variable `name` would hold `value`, if it takes more than
 * `SETTING_ENVIRONMENT_BYTES` of the function's environment.
 */
export const environmentShareProblems = (
  setting: string,
  name: string,
  value: string,
  advice: string,
): string[] => {
  // The variable's own share of the JSON: `"NAME":"value"`, without the braces around them all.
  const bytes = environmentBytes({ [name]: value }) - 2;
  if (bytes <= SETTING_ENVIRONMENT_BYTES) return [];
  return [
    `${setting} takes ${bytes.toLocaleString('en-US')} bytes of its function's environment (${name}, as Lambda measures it), more than the ${SETTING_ENVIRONMENT_BYTES.toLocaleString('en-US')} a setting may take: Lambda refuses a function whose variables exceed 4 KB (${LAMBDA_ENVIRONMENT_BYTES.toLocaleString('en-US')} bytes) in all; ${advice}`,
  ];
};

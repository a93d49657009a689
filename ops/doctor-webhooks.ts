/**
 * `msgbridge doctor`'s check of a webhook URL: a wrong secret answered 404, and the secret's
 * "current" value answered as the receiver's contract answers an empty list, which stores nothing.
 */
import { randomBytes } from 'node:crypto';
import type { DoctorCheck, DoctorSources } from './doctor-ports.ts';

/** The `kind` webhook URL answers a wrong secret 404 and an empty list as its contract does. */
export const webhookCheck = async (
  sources: DoctorSources,
  kind: 'report' | 'mo',
): Promise<DoctorCheck> => {
  const name = `${kind === 'report' ? 'report' : 'inbound'} webhook`;
  const template = sources.webhookUrlTemplates[kind];
  const text = await sources.secretText(sources.secrets.webhook);
  const current = text === undefined ? undefined : secretOf(text);
  if (current === undefined)
    return {
      name,
      ok: false,
      detail: 'the webhook secret holds no {"current": "…"}',
      fix: 'see "Rotating the webhook secret" in docs/operations.md',
    };
  const wrong = await sources.post(
    template.replace('<secret>', `doctor-${randomBytes(12).toString('hex')}`),
    '{}',
  );
  // An empty list: the contract's answer, and nothing stored.
  const url = template.replace('<secret>', encodeURIComponent(current));
  const right = await sources.post(
    url,
    JSON.stringify(kind === 'report' ? { rptLst: [] } : { moLst: [] }),
  );
  const shown = template;
  if (wrong.status === 403 || right.status === 403)
    return {
      name,
      ok: null,
      detail: `${shown} answers 403 to this machine: the source allowlist admits the gateway's addresses only`,
    };
  const problems: string[] = [];
  if (wrong.status !== 404) problems.push(`a wrong secret got ${wrong.status}, not 404`);
  const expected =
    kind === 'report'
      ? right.status === 204
      : right.status === 200 && /"code"\s*:\s*"10000"/.test(right.body);
  if (!expected)
    problems.push(
      `an empty list got ${right.status} ${right.body.slice(0, 120)}, not ${kind === 'report' ? '204' : '200 with code 10000'}`,
    );
  return problems.length === 0
    ? {
        name,
        ok: true,
        detail: `${shown}: 404 to a wrong secret, ${kind === 'report' ? '204' : '200 code 10000'} to an empty list`,
      }
    : {
        name,
        ok: false,
        detail: `${shown}: ${problems.join('; ')}`,
        fix: 'the URL registered in the gateway console must be this one with the secret\'s "current" value; see docs/deploy.md, "Deploy"',
      };
};

const secretOf = (text: string): string | undefined => {
  try {
    const value = (JSON.parse(text) as { current?: unknown }).current;
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  } catch {
    return undefined;
  }
};

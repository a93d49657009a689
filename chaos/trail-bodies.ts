/*
 * Reading the bodies the chaos run's trail (`trail.ts`) records: a report check's recipients, an
 * SQS event, a gateway answer's envelope.
 */

/** Checks the queue message body names: its recipients' cliKeys (and msgKeys), if it is a check. */
export const checkOf = (
  body: string | undefined,
): { readonly acceptedAt: string; readonly recipients: { cliKey: string; msgKey?: string }[] } => {
  try {
    const parsed = JSON.parse(body ?? '') as {
      acceptedAt?: unknown;
      recipients?: Array<{ cliKey?: unknown; msgKey?: unknown }>;
    };
    if (!Array.isArray(parsed.recipients)) return { acceptedAt: '', recipients: [] };
    return {
      acceptedAt: String(parsed.acceptedAt ?? ''),
      recipients: parsed.recipients.flatMap((r) =>
        typeof r.cliKey === 'string'
          ? [
              typeof r.msgKey === 'string'
                ? { cliKey: r.cliKey, msgKey: r.msgKey }
                : { cliKey: r.cliKey },
            ]
          : [],
      ),
    };
  } catch {
    return { acceptedAt: '', recipients: [] };
  }
};

export const isSqsEvent = (
  event: unknown,
): event is {
  Records: Array<{ messageId: string; body: string; attributes?: Record<string, string> }>;
} =>
  typeof event === 'object' &&
  event !== null &&
  Array.isArray((event as { Records?: unknown }).Records) &&
  (event as { Records: Array<{ eventSource?: unknown }> }).Records.every(
    (record) => record?.eventSource === 'aws:sqs',
  );

/** A gateway answer's envelope, or undefined when the text is not one. */
export const envelopeOf = (
  text: string,
): { code?: string; message?: string; data?: Record<string, unknown> | null } | undefined => {
  try {
    return JSON.parse(text) as { code?: string; message?: string; data?: Record<string, unknown> };
  } catch {
    return undefined;
  }
};

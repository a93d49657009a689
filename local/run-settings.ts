/**
 * The settings of `npm start`, read from the environment and all checked before anything starts.
 * Each problem is one line that names the variable, what it must be and what it was given (never
 * the value of a secret: its length), so that the fix is in the message, not in a zod path.
 */
import { createServer } from 'node:net';
import * as z from '../gateway/schemas/zod.ts';

const quoted = (value: string) => JSON.stringify(value);

/** Refuses `text` in a transform with `message` (the value then fails to parse). */
const refuse = (context: z.core.ParsePayload, text: string, message: string): never => {
  context.issues.push({ code: 'custom', message, input: text });
  return z.NEVER;
};

/** A whole number in [min, max] written in digits only; `rule` says what it must be. */
const wholeNumber = (name: string, rule: string, min: number, max: number, fallback: number) =>
  z.pipe(
    z._default(z.string(), String(fallback)),
    z.transform((text, context) => {
      const value = Number(text);
      if (/^\d{1,9}$/.test(text) && value >= min && value <= max) return value;
      return refuse(context, text, `${name} must be ${rule}, got ${quoted(text)}`);
    }),
  );

const port = (name: string, fallback: number) =>
  wholeNumber(name, 'a port number (1-65535, or 0 for any free port)', 0, 65_535, fallback);

/** A secret or key: its length is checked and named, its value never printed. */
const secretText = (name: string, min: number, max: number, unset: string) =>
  z.pipe(
    z.string(),
    z.transform((text, context) => {
      if (text.length >= min && text.length <= max) return text;
      const rule =
        max !== Number.POSITIVE_INFINITY
          ? `must be ${min} to ${max} characters, got ${text.length}`
          : min === 1
            ? 'must not be empty'
            : `must be at least ${min} characters, got ${text.length}`;
      return refuse(context, text, `${name} ${rule}; ${unset}`);
    }),
  );

const REPORT_DELIVERIES = ['webhook', 'polling', 'both'] as const;

export const RunSettingsSchema = z.object({
  PORT: port('PORT', 3000),
  SIMULATOR_PORT: port('SIMULATOR_PORT', 4010),
  WEBHOOK_SECRET: z.optional(
    secretText(
      'WEBHOOK_SECRET',
      16,
      Number.POSITIVE_INFINITY,
      'leave it unset to have one generated',
    ),
  ),
  LOCAL_DATA_DIR: z._default(z.string(), '.local').check(
    z.refine((text) => text !== '', {
      message: 'LOCAL_DATA_DIR must name a directory, got ""; leave it unset for .local',
    }),
  ),
  TPS_QUOTA: wholeNumber(
    'TPS_QUOTA',
    'a whole number of recipients a second, at least 10 (one 10-recipient request)',
    10,
    1_000_000,
    50,
  ),
  SIMULATOR_API_KEY: z._default(
    secretText('SIMULATOR_API_KEY', 1, 20, 'leave it unset for local-key'),
    'local-key',
  ),
  SIMULATOR_API_PASSWORD: z.optional(
    secretText(
      'SIMULATOR_API_PASSWORD',
      1,
      Number.POSITIVE_INFINITY,
      'leave it unset to have one generated',
    ),
  ),
  REPORT_DELIVERY: z.pipe(
    z._default(z.string(), 'webhook'),
    z.transform((text, context) => {
      const found = REPORT_DELIVERIES.find((each) => each === text);
      if (found !== undefined) return found;
      return refuse(
        context,
        text,
        `REPORT_DELIVERY must be webhook, polling or both, got ${quoted(text)}`,
      );
    }),
  ),
});
export type RunSettings = z.infer<typeof RunSettingsSchema>;

/** The settings, or one line per problem (every problem at once). */
export const parseRunSettings = (
  env: Readonly<Record<string, string | undefined>>,
):
  | { readonly ok: true; readonly settings: RunSettings }
  | { readonly ok: false; readonly problems: string[] } => {
  const parsed = RunSettingsSchema.safeParse(env);
  return parsed.success
    ? { ok: true, settings: parsed.data }
    : { ok: false, problems: parsed.error.issues.map((issue) => issue.message) };
};

/** Whether something else listens on 127.0.0.1:`port`, where the local run's servers listen. */
export const portInUse = (port: number): Promise<boolean> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve(true);
      else reject(error);
    });
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      server.close(() => resolve(false));
    });
  });

/**
 * The message for a setting whose port is taken: the setting, the port, and what to do, with a
 * port above it that was free a moment ago (or none, when the next twenty are all taken).
 */
export const portInUseMessage = async (name: string, port: number): Promise<string> => {
  let free: number | undefined;
  for (let next = port + 1; next <= Math.min(port + 20, 65_535) && free === undefined; next++)
    if (!(await portInUse(next))) free = next;
  const choose =
    free === undefined
      ? `choose a free one with ${name}=N npm start`
      : `choose another, e.g. ${name}=${free} npm start`;
  return `${name} ${port} is already in use (by another program, or an npm start with another LOCAL_DATA_DIR): ${choose}, or stop what listens on it`;
};

/** The settings of `ports` whose port is in use (0, any free port, never is), in order. */
export const settingsWithPortsInUse = async (
  ports: Readonly<Record<string, number>>,
): Promise<Array<{ readonly name: string; readonly port: number }>> => {
  const taken: Array<{ readonly name: string; readonly port: number }> = [];
  for (const [name, port] of Object.entries(ports))
    if (port !== 0 && (await portInUse(port))) taken.push({ name, port });
  return taken;
};

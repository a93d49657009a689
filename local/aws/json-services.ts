/**
 * The local run's Secrets Manager and EventBridge: one loopback HTTP endpoint speaking their
 * JSON 1.1 protocol (`X-Amz-Target: secretsmanager.GetSecretValue`, `AWSEvents.PutEvents`), so the
 * functions use their own SDK clients and adapters exactly as deployed, and every call they make
 * is an SDK call the IAM check can read. Only the operations msgbridge and its operators call are
 * served, each with the limits and errors the API reference documents; anything else is answered
 * `UnknownOperationException`, as AWS answers an operation it does not have.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { BusEntry, BusEntryResult } from '../../functions/publishing/ports.ts';

/** A secret the local run holds: its ARN, name and current string. */
export interface LocalSecret {
  readonly arn: string;
  readonly name: string;
  value: string;
  versionId: string;
  readonly createdAt: Date;
  readonly description?: string;
}

/** Where the local EventBridge puts an accepted event (the local run's bus). */
export interface LocalBusTarget {
  putEvents(entries: readonly BusEntry[]): Promise<readonly BusEntryResult[]>;
}

/** PutEvents: at most 10 entries, their total size (as EventBridge counts it) under 256 KB. */
export const PUT_EVENTS_MAX_ENTRIES = 10;
export const PUT_EVENTS_MAX_BYTES = 256 * 1024;

class ServiceError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export interface LocalJsonServices {
  /** `http://127.0.0.1:<port>`: the endpoint of both services' clients. */
  readonly url: string;
  /** Adds a secret, as its stack created it. */
  addSecret(secret: Omit<LocalSecret, 'versionId' | 'createdAt'>): void;
  /** The secret of this ARN or name. */
  secret(id: string): LocalSecret | undefined;
  /** Adds an event bus of this name and ARN, delivering to `target`. */
  addBus(name: string, arn: string, target: LocalBusTarget): void;
  close(): Promise<void>;
}

/** Starts the endpoint on a free loopback port. */
export const startLocalJsonServices = async (): Promise<LocalJsonServices> => {
  const secrets = new Map<string, LocalSecret>();
  const buses = new Map<string, { arn: string; target: LocalBusTarget }>();
  /** The ARN and the name every answer about a secret carries. */
  const identityOf = (secret: LocalSecret) => ({ ARN: secret.arn, Name: secret.name });
  const secretOf = (id: unknown): LocalSecret => {
    const found =
      typeof id === 'string'
        ? (secrets.get(id) ?? [...secrets.values()].find((each) => each.name === id))
        : undefined;
    if (!found)
      throw new ServiceError(
        'ResourceNotFoundException',
        "Secrets Manager can't find the specified secret.",
      );
    return found;
  };

  const operations: Record<string, (input: Record<string, unknown>) => Promise<unknown>> = {
    'secretsmanager.GetSecretValue': async (input) => {
      const secret = secretOf(input.SecretId);
      return {
        ...identityOf(secret),
        VersionId: secret.versionId,
        SecretString: secret.value,
        VersionStages: ['AWSCURRENT'],
        CreatedDate: secret.createdAt.getTime() / 1000,
      };
    },
    'secretsmanager.PutSecretValue': async (input) => {
      const secret = secretOf(input.SecretId);
      if (typeof input.SecretString !== 'string' || input.SecretString.length === 0)
        throw new ServiceError(
          'InvalidParameterException',
          'SecretString must be a non-empty string',
        );
      secret.value = input.SecretString;
      secret.versionId = randomUUID();
      return {
        ...identityOf(secret),
        VersionId: secret.versionId,
        VersionStages: ['AWSCURRENT'],
      };
    },
    'secretsmanager.DescribeSecret': async (input) => {
      const secret = secretOf(input.SecretId);
      return {
        ...identityOf(secret),
        Description: secret.description,
        CreatedDate: secret.createdAt.getTime() / 1000,
        VersionIdsToStages: { [secret.versionId]: ['AWSCURRENT'] },
      };
    },
    'AWSEvents.PutEvents': async (input) => {
      const entries = Array.isArray(input.Entries)
        ? (input.Entries as Record<string, unknown>[])
        : [];
      if (entries.length < 1 || entries.length > PUT_EVENTS_MAX_ENTRIES)
        throw new ServiceError(
          'ValidationException',
          `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length between 1 and ${PUT_EVENTS_MAX_ENTRIES}`,
        );
      const size = entries.reduce((total, entry) => total + entrySize(entry), 0);
      if (size >= PUT_EVENTS_MAX_BYTES)
        throw new ServiceError(
          'ValidationException',
          `Total size of the entries in the request is over the limit (${size} bytes).`,
        );
      const results: Array<Record<string, string>> = [];
      for (const entry of entries) results.push(await putEntry(entry));
      return {
        FailedEntryCount: results.filter((result) => result.ErrorCode !== undefined).length,
        Entries: results,
      };
    },
  };

  /** One entry: its bus, its fields, its detail a JSON object; otherwise its own error. */
  const putEntry = async (entry: Record<string, unknown>): Promise<Record<string, string>> => {
    const busName = typeof entry.EventBusName === 'string' ? entry.EventBusName : 'default';
    const bus =
      buses.get(busName) ?? [...buses.values()].find((each) => each.arn === entry.EventBusName);
    if (!bus)
      return {
        ErrorCode: 'NotAuthorizedForSourceException',
        ErrorMessage: `Event bus ${busName} does not exist.`,
      };
    if (typeof entry.Source !== 'string' || entry.Source === '')
      return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Parameter Source is not valid.' };
    if (typeof entry.DetailType !== 'string' || entry.DetailType === '')
      return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Parameter DetailType is not valid.' };
    if (!isJsonObject(entry.Detail))
      return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
    const time = typeof entry.Time === 'number' ? new Date(entry.Time * 1000) : new Date();
    const [result] = await bus.target.putEvents([
      { Source: entry.Source, DetailType: entry.DetailType, Detail: entry.Detail, Time: time },
    ]);
    if (result && !result.ok)
      return { ErrorCode: result.errorCode, ErrorMessage: result.errorMessage };
    return { EventId: randomUUID() };
  };

  const server: Server = createServer((request, response) => {
    void (async () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      let status = 200;
      let body: unknown;
      try {
        const operation = operations[target];
        if (!operation)
          throw new ServiceError('UnknownOperationException', `${target} is not served locally`);
        body = await operation(parseBody(await readAll(request)));
      } catch (error) {
        const failure =
          error instanceof ServiceError
            ? error
            : new ServiceError('InternalFailure', String(error), 500);
        status = failure.status;
        body = { __type: failure.type, message: failure.message };
        response.setHeader('x-amzn-errortype', failure.type);
      }
      response.writeHead(status, {
        'content-type': 'application/x-amz-json-1.1',
        'x-amzn-requestid': randomUUID(),
      });
      response.end(JSON.stringify(body));
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    addSecret: (secret) => {
      secrets.set(secret.arn, {
        ...secret,
        versionId: createHash('sha256').update(secret.arn).digest('hex').slice(0, 32),
        createdAt: new Date(),
      });
    },
    secret: (id) => {
      try {
        return secretOf(id);
      } catch {
        return undefined;
      }
    },
    addBus: (name, arn, target) => {
      buses.set(name, { arn, target });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** An entry's size as EventBridge counts it ("Calculating PutEvents event entry size"). */
export const entrySize = (entry: Record<string, unknown>): number => {
  const bytes = (value: unknown) =>
    typeof value === 'string' ? Buffer.byteLength(value, 'utf8') : 0;
  const resources = Array.isArray(entry.Resources) ? entry.Resources : [];
  return (
    (entry.Time === undefined ? 0 : 14) +
    bytes(entry.Source) +
    bytes(entry.DetailType) +
    bytes(entry.Detail) +
    resources.reduce((total: number, resource) => total + bytes(resource), 0)
  );
};

const isJsonObject = (text: unknown): text is string => {
  if (typeof text !== 'string') return false;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
};

const parseBody = (text: string): Record<string, unknown> => {
  try {
    const parsed: unknown = JSON.parse(text === '' ? '{}' : text);
    if (typeof parsed === 'object' && parsed !== null) return parsed as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new ServiceError('SerializationException', 'the request body is not a JSON object');
};

const readAll = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

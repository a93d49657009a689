/**
 * The chaos run's workload, a pure function of the seed and the item count: send requests across
 * every channel (producer shapes from the documentation examples), inbound messages with and
 * without attachments (injected at the simulator, so they arrive by its webhook with its retries),
 * hostile bodies posted straight to the webhook routes, and bad queue messages no producer helper
 * would queue (oversized, nested too deep, a cliKey reused with other content).
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { ReportDelivery } from '../functions/polling/poll-use-case.ts';
import type { SendMessageInput } from '../functions/send-contract/queue-message.ts';
import { SEND_MESSAGE_EXAMPLES } from '../producer/examples.ts';
import { formatKst } from '../protocol/kst.ts';
import type { MoInjectionInput } from '../simulator/index.ts';
import { prng } from './faults.ts';

/** A body posted straight to a webhook route, and what must come of it. */
export interface HostileBody {
  readonly label: string;
  readonly route: 'report' | 'mo';
  /** Text, or bytes posted as they are (a compressed body). */
  readonly body: string | Uint8Array;
  /** Request headers besides the JSON content type. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly sha256: string;
  /** Events naming this body's SHA-256 (quarantined items or parts, an unrecognised body). */
  readonly quarantined: number;
  /** Keys (`msgKey`, `moKey`) of the valid items in it, each to become exactly one event. */
  readonly itemKeys: readonly string[];
  /** API Gateway refuses it (413) before any handler: it never arrives, so no event. */
  readonly refused: boolean;
  /** Posted twice, as a gateway redelivers. */
  readonly repost: boolean;
}

/**
 * A queue message put straight on the send queue (`enqueueSend` validates, and would refuse the
 * invalid ones): each must become exactly one "Send Rejected", and never be sent.
 */
export interface BadSend {
  readonly kind: 'oversized' | 'nested' | 'reused';
  /** The queue message, as queued: text, since one nests deeper than JSON.stringify recurses. */
  readonly body: string;
  /** Queued with `sends[batch]`: in the same SendMessageBatch call, or alone right after it. */
  readonly batch: number;
  readonly sameBatch: boolean;
  /** Every cliKey it names. */
  readonly cliKeys: readonly string[];
  /** A reused cliKey: the workload message whose every cliKey it names, with other phones. */
  readonly reuse?: {
    /** Where the first message is in `sends`. */
    readonly batch: number;
    readonly position: number;
    /** The cliKey of the send record both claim (the smallest of them). */
    readonly cliKey: string;
    /** Phone per cliKey, of the first message and of this one. */
    readonly firstPhones: Readonly<Record<string, string>>;
    readonly phones: Readonly<Record<string, string>>;
  };
}

export interface Workload {
  readonly seed: number;
  readonly reportDelivery: ReportDelivery;
  /** Queue messages, in batches of at most ten (one `enqueueSend` call each). */
  readonly sends: readonly (readonly SendMessageInput[])[];
  /** Every cliKey of the sends, immediate and scheduled. */
  readonly cliKeys: readonly string[];
  readonly scheduledCliKeys: ReadonlySet<string>;
  /** cliKeys of the valid sends with an emoji (above U+FFFF) in their texts: sent like any other. */
  readonly emojiCliKeys: readonly string[];
  readonly badSends: readonly BadSend[];
  /** MO injections, in batches (one simulator webhook body each). */
  readonly mo: readonly (readonly MoInjectionInput[])[];
  readonly attachments: number;
  readonly hostile: readonly HostileBody[];
}

const sha256 = (body: string | Uint8Array) =>
  createHash('sha256')
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest('hex');

const DELIVERIES: readonly ReportDelivery[] = ['webhook', 'polling', 'both'];

/** Examples with fresh keys; the MMS attachment (an S3 object) is dropped. */
const shapes = SEND_MESSAGE_EXAMPLES.map((example) => example.message);

const withKeys = (
  template: SendMessageInput,
  nextKey: () => string,
  now: number,
): SendMessageInput => {
  const copy = structuredClone(template) as Record<string, unknown>;
  if (Array.isArray(copy.recvInfoLst)) {
    copy.recvInfoLst = (copy.recvInfoLst as Array<Record<string, unknown>>).map((recipient) => ({
      ...recipient,
      cliKey: nextKey(),
    }));
  }
  if (typeof copy.cliKey === 'string') copy.cliKey = nextKey();
  delete copy.attachments;
  if (copy.resvYn === 'Y') copy.resvReqDt = formatKst(now + 2 * 86_400_000, 'YYYY-MM-DD HH:mm');
  return copy as unknown as SendMessageInput;
};

const keysOf = (message: SendMessageInput): string[] => {
  const fields = message as { recvInfoLst?: Array<{ cliKey: string }>; cliKey?: string };
  return fields.recvInfoLst?.map((recipient) => recipient.cliKey) ?? [fields.cliKey ?? ''];
};

const HANGUL = '가나다라마바사아자차카타파하';

export const buildWorkload = (seed: number, items: number, now = Date.now()): Workload => {
  const random = prng(seed * 7_919 + 17);
  const int = (max: number) => Math.floor(random() * max);
  let keyCounter = 0;
  const nextKey = () => `c${seed}-${keyCounter++}`;

  const hostileTarget = Math.max(6, Math.round(items * 0.1));
  const moTarget = Math.max(2, Math.round(items * 0.25));
  const sendTarget = Math.max(1, items - hostileTarget - moTarget);

  // Sends: a seeded mix of every channel's shape until the recipient target is reached.
  const messages: SendMessageInput[] = [];
  const cliKeys: string[] = [];
  const scheduled = new Set<string>();
  while (cliKeys.length < sendTarget) {
    const template = shapes[int(shapes.length)];
    if (!template) continue;
    const message = withKeys(template, nextKey, now);
    const keys = keysOf(message);
    messages.push(message);
    cliKeys.push(...keys);
    if ((message as { resvYn?: string }).resvYn === 'Y') for (const key of keys) scheduled.add(key);
  }
  // Emoji and bad sends draw from a stream of their own: the rest of a seed's workload is what it
  // was before they were added.
  const extra = prng(seed * 104_729 + 31);
  const emojiCliKeys = addEmoji(messages, extra);
  const sends: SendMessageInput[][] = [];
  for (let index = 0; index < messages.length; index += 10)
    sends.push(messages.slice(index, index + 10));
  const badSends = buildBadSends(seed, sends, scheduled, extra);

  // Inbound messages, some with attachments, one near the 256 KiB limit in Hangul (UTF-8).
  const moItems: MoInjectionInput[] = [];
  let attachments = 0;
  for (let index = 0; index < moTarget; index += 1) {
    const withFiles = random() < 0.3;
    const files = withFiles ? 1 + int(2) : 0;
    attachments += files;
    moItems.push({
      moType: withFiles ? 'MMSMO' : random() < 0.5 ? 'SMSMO' : 'LMSMO',
      moCallback: `0109${String(seed % 1000).padStart(3, '0')}${String(index).padStart(4, '0')}`,
      moNumber: '15880000',
      moMsg: `문의 ${seed}-${index}`,
      ...(files > 0
        ? {
            attachments: Array.from({ length: files }, (_, file) => ({
              name: `photo-${index}-${file}.jpg`,
              contentType: 'image/jpeg',
              sizeBytes: 1_000 + int(30_000),
            })),
          }
        : {}),
    });
  }
  // 250 KB of Hangul: under the limit in characters and bytes, far over DynamoDB's 400 KB item
  // once stored with its raw copy.
  moItems.push({
    moType: 'LMSMO',
    moCallback: '01099990000',
    moNumber: '15880000',
    moMsg: HANGUL.repeat(Math.ceil(83_000 / HANGUL.length)).slice(0, 83_000),
  });
  const mo: MoInjectionInput[][] = [];
  for (let index = 0; index < moItems.length; ) {
    const size = 1 + int(5);
    mo.push(moItems.slice(index, index + size));
    index += size;
  }

  const hostile = hostileBodies(seed, hostileTarget, random);
  return {
    seed,
    reportDelivery: DELIVERIES[seed % DELIVERIES.length] ?? 'both',
    sends,
    cliKeys,
    scheduledCliKeys: scheduled,
    emojiCliKeys,
    badSends,
    mo,
    attachments,
    hostile,
  };
};

type Json = Record<string, unknown>;

/**
 * Appends an emoji outside the Basic Multilingual Plane to every text of a channel that allows
 * one, as test/e2e/local-emoji-sends.test.ts does (SMS and MMS count in CP949, which has none).
 */
const EMOJI_TEXTS: Readonly<
  Record<string, (message: Json, emoji: (text: unknown) => string) => void>
> = {
  rcs: (message, emoji) => {
    for (const recipient of message.recvInfoLst as Json[]) {
      const mergeData = recipient.mergeData as Json;
      for (const field of ['title', 'description'])
        if (typeof mergeData[field] === 'string') mergeData[field] = emoji(mergeData[field]);
    }
  },
  'rcs-reply': (message, emoji) => {
    const body = message.body as Json;
    body.description = emoji(body.description);
  },
  push: (message, emoji) => {
    const msg = message.msg as Json;
    msg.title = emoji(msg.title);
    msg.body = emoji(msg.body);
  },
  'messenger-notice': (message, emoji) => {
    message.msg = emoji(message.msg);
  },
  'brand-free': (message, emoji) => {
    message.content = emoji(message.content);
  },
};

/** Puts emoji in about a third of the messages whose channel allows them (at least one). */
const addEmoji = (messages: SendMessageInput[], random: () => number): string[] => {
  const eligible = messages.filter((message) => message.channel in EMOJI_TEXTS);
  const chosen = eligible.filter(() => random() < 0.3);
  if (chosen.length === 0 && eligible[0]) chosen.push(eligible[0]);
  for (const message of chosen)
    EMOJI_TEXTS[message.channel]?.(message as unknown as Json, (text) => `${String(text)} 🎁😀`);
  return chosen.flatMap(keysOf);
};

/** Phone per cliKey of a message (the two-way RCS reply has one, outside any list). */
const phonesOf = (message: Json): Record<string, string> =>
  Array.isArray(message.recvInfoLst)
    ? Object.fromEntries(
        (message.recvInfoLst as Json[]).map((r) => [String(r.cliKey), String(r.phone)]),
      )
    : { [String(message.cliKey)]: String(message.phone) };

/**
 * One oversized message (400 to 900 KB of Hangul in an SMS, over DynamoDB's 400 KB item and under
 * SQS's 1 MiB), one nested 20,000 arrays deep in a brand coupon (about 40 KB), and two that reuse
 * every cliKey of an immediate workload message with other phones: one in the same SendMessageBatch
 * as its first when that batch has room, one in a later batch.
 */
const buildBadSends = (
  seed: number,
  sends: readonly (readonly SendMessageInput[])[],
  scheduled: ReadonlySet<string>,
  random: () => number,
): BadSend[] => {
  const int = (max: number) => Math.floor(random() * max);
  const anyBatch = () => int(sends.length);
  const bad: BadSend[] = [];

  const oversizedKey = `bad${seed}-big`;
  const shell = JSON.stringify({
    channel: 'sms',
    callback: '0215880000',
    msg: '',
    recvInfoLst: [{ cliKey: oversizedKey, phone: '01055559000' }],
  });
  const targetBytes = 410_000 + int(490_000);
  // Hangul syllables are 3 bytes each in UTF-8; the SMS limit is 90 bytes of CP949.
  const syllables = Math.floor((targetBytes - Buffer.byteLength(shell)) / 3);
  const oversized = JSON.stringify({
    channel: 'sms',
    callback: '0215880000',
    msg: HANGUL.repeat(Math.ceil(syllables / HANGUL.length)).slice(0, syllables),
    recvInfoLst: [{ cliKey: oversizedKey, phone: '01055559000' }],
  });
  bad.push({
    kind: 'oversized',
    body: oversized,
    batch: anyBatch(),
    sameBatch: false,
    cliKeys: [oversizedKey],
  });

  // A brand coupon takes any JSON: only the depth makes this message invalid.
  const brand = SEND_MESSAGE_EXAMPLES.find((example) => example.message.channel === 'brand-free');
  const nestedKey = `bad${seed}-deep`;
  const nestedShell = structuredClone(brand?.message ?? {}) as Json;
  nestedShell.recvInfoLst = [{ cliKey: nestedKey, phone: '01055559001' }];
  nestedShell.coupon = { title: '할인 쿠폰', nested: 'NESTED' };
  const depth = 20_000;
  bad.push({
    kind: 'nested',
    body: JSON.stringify(nestedShell).replace(
      '"NESTED"',
      `${'['.repeat(depth)}${']'.repeat(depth)}`,
    ),
    batch: anyBatch(),
    sameBatch: false,
    cliKeys: [nestedKey],
  });

  // Immediate messages only: a scheduled one is accepted days ahead, beside the point here.
  const candidates = sends.flatMap((batch, index) =>
    batch.flatMap((message, position) =>
      keysOf(message).some((key) => scheduled.has(key)) ? [] : [{ index, position, message }],
    ),
  );
  const roomy = candidates.filter((candidate) => (sends[candidate.index]?.length ?? 10) < 10);
  // The same batch when one has room (the last, short one, usually), then a later batch; never
  // the same first twice, so that each pair has one first.
  const sameBatch = roomy[int(roomy.length)];
  const others = candidates.filter((candidate) => candidate !== sameBatch);
  const later = others[int(others.length)];
  // Without a batch with room, two later ones.
  const second = sameBatch ? undefined : others.filter((c) => c !== later)[int(others.length - 1)];
  for (const [n, pick] of [sameBatch ?? second, later].entries()) {
    if (!pick) continue;
    const first = pick.message as unknown as Json;
    const copy = structuredClone(first);
    let phone = 0;
    const otherPhone = () => `0105555${String(n)}${String(phone++).padStart(3, '0')}`;
    if (Array.isArray(copy.recvInfoLst))
      copy.recvInfoLst = (copy.recvInfoLst as Json[]).map((r) => ({ ...r, phone: otherPhone() }));
    else copy.phone = otherPhone();
    const cliKeys = keysOf(pick.message);
    const inSameBatch = pick === sameBatch;
    bad.push({
      kind: 'reused',
      body: JSON.stringify(copy),
      // Later: one or two batches after its first's, or right after the last batch.
      batch: inSameBatch ? pick.index : Math.min(pick.index + 1 + int(2), sends.length - 1),
      sameBatch: inSameBatch,
      cliKeys,
      reuse: {
        batch: pick.index,
        position: pick.position,
        cliKey: [...cliKeys].sort()[0] ?? '',
        firstPhones: phonesOf(first),
        phones: phonesOf(copy),
      },
    });
  }
  return bad;
};

const reportItem = (seed: number, index: number, extra: Record<string, unknown> = {}) => ({
  msgKey: `HX${seed}-${index}`,
  cliKey: `hx${seed}-${index}`,
  ch: 'SMS',
  resultCode: '10000',
  resultCodeDesc: '성공',
  fbReasonLst: null,
  telco: 'SKT',
  rptDt: '2026-11-24 10:00:00',
  productCode: 'SMS',
  resultNetwork: 'LTE',
  rptRegDt: '2026-11-24 10:00:01',
  phone: '01012340000',
  isBi: false,
  recvDt: '2026-11-24 09:59:59',
  ...extra,
});

const moItem = (seed: number, index: number) => ({
  moKey: `MX${seed}-${index}`,
  moNumber: '15880000',
  moType: 'SMSMO',
  moCallback: '01012349999',
  productCode: 'SMS',
  moTitle: null,
  moMsg: `hostile page ${index}`,
  telco: 'KT',
  moRecvDt: '2026-11-24 10:00:00',
  contentCnt: 0,
  contentInfoLst: null,
});

/** Items no schema can read: each must be quarantined on its own, the rest of its page kept. */
const ODD_REPORT_ITEMS: readonly unknown[] = [null, 42, 'text', { msgKey: 12_345 }, { foo: 'bar' }];
const ODD_MO_ITEMS: readonly unknown[] = [null, 7, 'text', { moKey: 5 }, { bar: 'baz' }];

const hostileBodies = (seed: number, target: number, random: () => number): HostileBody[] => {
  const bodies: HostileBody[] = [];
  let itemCounter = 0;
  const add = (
    label: string,
    route: 'report' | 'mo',
    body: string | Uint8Array,
    expect: { quarantined: number; itemKeys: string[]; refused?: boolean },
    headers?: Record<string, string>,
  ) =>
    bodies.push({
      label,
      route,
      body,
      ...(headers ? { headers } : {}),
      sha256: sha256(body),
      quarantined: expect.quarantined,
      itemKeys: expect.itemKeys,
      refused: expect.refused ?? false,
      repost: random() < 0.3,
    });

  /** A page of `count` valid items of the route, with the keys each must become an event of. */
  const validPage = (route: 'report' | 'mo', count: number) => {
    const keys: string[] = [];
    const page = Array.from({ length: count }, () => {
      const n = itemCounter++;
      const value = route === 'report' ? reportItem(seed, n) : moItem(seed, n);
      keys.push('msgKey' in value ? value.msgKey : value.moKey);
      return value;
    });
    const listField = route === 'report' ? 'rptLst' : 'moLst';
    const countField = route === 'report' ? 'rptCnt' : 'moCnt';
    return { page, keys, listField, countField };
  };
  // Each class in turn (odd items first), the routes alternating, so that even a short run
  // meets most classes.
  const classes = [3, 0, 1, 2, 4, 5, 6] as const;
  for (let index = 0; bodies.length < target; index += 1) {
    const route = index % 2 === 0 ? 'report' : 'mo';
    switch (classes[index % classes.length]) {
      case 4: {
        // A list given twice: JSON.parse reads the last; the whole body is kept for the first.
        const earlier = validPage(route, 1);
        const last = validPage(route, 1 + Math.floor(random() * 2));
        const text = `{"${last.countField}":${last.page.length},"${last.listField}":${JSON.stringify(earlier.page)},"${last.listField}":${JSON.stringify(last.page)}}`;
        add('a list given twice', route, text, { quarantined: 1, itemKeys: last.keys });
        break;
      }
      case 5: {
        const { page, keys, listField, countField } = validPage(route, 2);
        const text = JSON.stringify({ [countField]: page.length, [listField]: page });
        add(
          'gzip body',
          route,
          new Uint8Array(gzipSync(text)),
          { quarantined: 0, itemKeys: keys },
          {
            'content-encoding': 'gzip',
          },
        );
        break;
      }
      case 6: {
        const { page, keys, listField, countField } = validPage(route, 1);
        add(
          'body behind a byte-order mark',
          route,
          `\ufeff${JSON.stringify({ [countField]: page.length, [listField]: page })}`,
          {
            quarantined: 0,
            itemKeys: keys,
          },
        );
        break;
      }
      case 0:
        add('malformed JSON', route, `{"rptCnt": 2, "rptLst": [{"msgKey": "x${seed}-${index}"`, {
          quarantined: 1,
          itemKeys: [],
        });
        break;
      case 1:
        add(
          'unknown shape',
          route,
          JSON.stringify({ chatList: [{ id: `${seed}-${index}`, text: 'hello' }] }),
          { quarantined: 1, itemKeys: [] },
        );
        break;
      case 2: {
        // Keys that shared a table key or an event id before key parts were escaped: msgKeys or
        // moKeys that differ only in an unpaired surrogate, and a ":" moved between two parts.
        const n = itemCounter++;
        const base = route === 'report' ? `HX${seed}-${n}` : `MX${seed}-${n}`;
        const keys = [`${base}\ud800`, `${base}\udbff`, `${base}:b`, base];
        const page =
          route === 'report'
            ? keys.map((msgKey, at) =>
                reportItem(seed, n, {
                  msgKey,
                  ...(at >= 2 ? { resultCode: at === 2 ? 'c' : 'b:c' } : {}),
                }),
              )
            : keys.map((moKey) => ({ ...moItem(seed, n), moKey }));
        const body =
          route === 'report'
            ? { rptCnt: page.length, rptLst: page }
            : { moCnt: page.length, moLst: page };
        add('keys that collided unescaped', route, JSON.stringify(body), {
          quarantined: 0,
          itemKeys: keys,
        });
        break;
      }
      default: {
        const valid = 1 + Math.floor(random() * 3);
        const odd = 1 + Math.floor(random() * 2);
        const page: unknown[] = [];
        const keys: string[] = [];
        for (let item = 0; item < valid; item += 1) {
          const n = itemCounter++;
          const value = route === 'report' ? reportItem(seed, n) : moItem(seed, n);
          keys.push('msgKey' in value ? value.msgKey : value.moKey);
          page.push(value);
        }
        const oddItems = route === 'report' ? ODD_REPORT_ITEMS : ODD_MO_ITEMS;
        for (let item = 0; item < odd; item += 1) {
          const at = Math.floor(random() * (page.length + 1));
          page.splice(at, 0, oddItems[Math.floor(random() * oddItems.length)]);
        }
        const body =
          route === 'report'
            ? { rptCnt: page.length, rptLst: page }
            : { moCnt: page.length, moLst: page };
        add('odd items in a page', route, JSON.stringify(body), {
          quarantined: odd,
          itemKeys: keys,
        });
      }
    }
  }
  // Near and over the limits: a report with a 200 KB field (stored, but too big for one event),
  // a 300 KB page, and 11 MB that API Gateway refuses before any handler runs.
  const big = itemCounter++;
  add(
    'report with a 200 KB field',
    'report',
    JSON.stringify({
      rptCnt: 1,
      rptLst: [reportItem(seed, big, { resultCodeDesc: 'x'.repeat(200_000) })],
    }),
    { quarantined: 0, itemKeys: [`HX${seed}-${big}`] },
  );
  const pageKeys: string[] = [];
  const pageItems = Array.from({ length: 30 }, () => {
    const n = itemCounter++;
    pageKeys.push(`HX${seed}-${n}`);
    return reportItem(seed, n, { resultCodeDesc: '전송 성공 '.repeat(1_000) });
  });
  add('300 KB page of reports', 'report', JSON.stringify({ rptCnt: 30, rptLst: pageItems }), {
    quarantined: 0,
    itemKeys: pageKeys,
  });
  add('11 MB body', 'mo', `{"moCnt":1,"moLst":["${'y'.repeat(11 * 1024 * 1024)}"]}`, {
    quarantined: 0,
    itemKeys: [],
    refused: true,
  });
  return bodies;
};

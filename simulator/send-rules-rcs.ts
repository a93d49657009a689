/**
 * The simulator's own reading of spec 01 §4.5 (RCS) and §4.6 (two-way reply), with the RCS button
 * objects of §2. See send-rules.ts for the common pieces.
 */
import {
  at,
  bool,
  type Check,
  fail,
  flag,
  isObject,
  type Json,
  list,
  object,
  optional,
  required,
  type Shape,
  stringsIn,
  text,
} from './send-checks.ts';
import {
  AGENCY,
  COMMON,
  type EndpointRules,
  LIMITED,
  LIMITS,
  PHONE,
  type TextSlot,
} from './send-rules.ts';

// --- RCS (§4.5, §4.6) ---------------------------------------------------------------------------

const URL_KINDS = {
  set_by_chatbot_open_url: ['urlAction', 'openUrl', 'url'],
  set_by_chatbot_copy_to_clipboard: ['clipboardAction', 'copyToClipboard', 'text'],
  set_by_chatbot_dial_phone_number: ['dialerAction', 'dialPhoneNumber', 'phoneNumber'],
} as const;

const dig = (value: unknown, keys: readonly string[]): unknown =>
  keys.reduce<unknown>((inner, key) => (isObject(inner) ? inner[key] : undefined), value);

/** Spec 01 §2 "RCS button objects": each suggestion's action and the fields its kind needs. */
const rcsAction: Check = (value, path) => {
  if (!isObject(value)) return fail(path, 'must be an object');
  text()(value.displayText, at(path, 'displayText'));
  const kind = dig(value, ['postback', 'data']);
  const kinds = [
    ...Object.keys(URL_KINDS),
    'set_by_chatbot_create_calendar_event',
    'set_by_chatbot_request_location_push',
    'set_by_chatbot_show_location',
    'set_by_chatbot_search_locations',
  ];
  if (typeof kind !== 'string' || !kinds.includes(kind)) {
    fail(at(path, 'postback.data'), `must be one of ${kinds.join(', ')}`);
  }
  const need = (keys: readonly string[], what = 'a non-empty string') => {
    const found = dig(value, keys);
    const ok = what === 'an object' ? isObject(found) : typeof found === 'string' && found !== '';
    if (!ok) fail(at(path, keys.join('.')), `is required for ${String(kind)} (${what})`);
  };
  if (typeof kind === 'string' && kind in URL_KINDS)
    need(URL_KINDS[kind as keyof typeof URL_KINDS]);
  if (kind === 'set_by_chatbot_create_calendar_event') {
    for (const key of ['title', 'description', 'startTime', 'endTime'])
      need(['calendarAction', 'createCalendarEvent', key]);
  }
  if (kind === 'set_by_chatbot_request_location_push')
    need(['mapAction', 'requestLocationPush'], 'an object');
  if (kind === 'set_by_chatbot_show_location' || kind === 'set_by_chatbot_search_locations') {
    need(['mapAction', 'showLocation', 'fallbackUrl']);
    const location = ['mapAction', 'showLocation', 'location'];
    need(location, 'an object');
    const keys =
      kind === 'set_by_chatbot_show_location' ? ['latitude', 'longitude', 'label'] : ['query'];
    for (const key of keys) {
      const found = dig(value, [...location, key]);
      if (found === undefined || found === null || found === '')
        fail(at(path, [...location, key].join('.')), `is required for ${kind}`);
    }
  }
};

const rcsButton: Check = (value, path) => {
  if (!isObject(value)) return fail(path, 'must be an object');
  list(
    (suggestion, at_) => {
      if (!isObject(suggestion)) return fail(at_, 'must be an object');
      rcsAction(suggestion.action, at(at_, 'action'));
    },
    { min: 1 },
  )(value.suggestions, at(path, 'suggestions'));
};

const agencyFields = {
  brandId: optional(text()),
  brandKey: optional(text()),
  productCode: optional(text()),
};

/** "agencies: yes": an agency send names its brand and product. */
const agencyNeedsBrand = (body: Json) => {
  if (body.agency === undefined || body.agency === null) return;
  for (const key of ['brandId', 'brandKey', 'productCode']) {
    if (typeof body[key] !== 'string' || body[key] === '')
      fail(key, 'is required when agency is given');
  }
};

const rcsVariables = (body: Json): TextSlot[] =>
  stringsIn(body.buttons, 'buttons').map(([path, value]) => ({
    path,
    text: value,
    syntax: 'braces' as const,
  }));

/** RCS media variables are `maapfile://<file_id>` (spec 01 §2). */
const maapFiles = (strings: ReadonlyArray<[string, string]>) =>
  strings.flatMap(([path, value]) =>
    value.startsWith('maapfile://') ? [{ path, fileId: value.slice('maapfile://'.length) }] : [],
  );

const RCS_BASE: Shape = {
  ...COMMON,
  ...LIMITED,
  clickUrlYn: optional(flag),
  messagebaseId: required(text({ max: 100 })),
  callback: required(text({ max: 100 })),
  header: required(text({ oneOf: ['0', '1'] })),
  footer: optional(text({ max: 20 })),
  copyAllowed: optional(bool),
  expiryOption: optional(text({ max: 1 })),
  buttons: optional(list(rcsButton, { max: LIMITS.rcsButtons })),
};

const advertisingNeedsFooter = (body: Json) => {
  if (body.header === '1' && (typeof body.footer !== 'string' || body.footer === '')) {
    fail('footer', 'an advertising message (header 1) needs the opt-out number in footer');
  }
};

const rcsCommon = {
  main: undefined,
  recipients: 'list',
  slots: rcsVariables,
  moreFileIds: (body: Json) => maapFiles(stringsIn(body.recvInfoLst, 'recvInfoLst')),
} as const;

/** `/msg/v1/rcs`: no agency brand fields. */
export const RCS_V1_RULES: EndpointRules = {
  ...rcsCommon,
  shape: RCS_BASE,
  cross: advertisingNeedsFooter,
};

export const RCS_V11_RULES: EndpointRules = {
  ...rcsCommon,
  shape: { ...RCS_BASE, ...agencyFields },
  cross: (body) => {
    advertisingNeedsFooter(body);
    agencyNeedsBrand(body);
  },
};

/** `{send_url}/rcs/v1.1`: header `0` only, no footer, copyAllowed or clickUrlYn. */
export const RCS_INTEGRATED_RULES: EndpointRules = {
  ...rcsCommon,
  shape: (() => {
    const { footer: _f, copyAllowed: _c, clickUrlYn: _u, ...rest } = RCS_BASE;
    return { ...rest, ...agencyFields, header: required(text({ oneOf: ['0'] })) };
  })(),
  cross: agencyNeedsBrand,
};

/** `/rcs/bi/v1.1`: one recipient at the top level, no scheduling, no fallback. */
export const RCS_REPLY_RULES: EndpointRules = {
  shape: {
    agency: optional(object(AGENCY)),
    replyId: required(text()),
    cliKey: required(text({ pattern: /^[a-zA-Z0-9\-_.@]{1,20}$/ })),
    messagebaseId: required(text({ max: 100 })),
    chatbotId: required(text({ max: 40 })),
    telco: required(text()),
    phone: required(text({ pattern: PHONE })),
    body: required(object({ description: required(text()), media: optional(text()) })),
    header: required(text({ oneOf: ['0', '1'] })),
    footer: optional(text({ max: 20 })),
    copyAllowed: optional(bool),
    ...LIMITED,
    buttons: optional(list(rcsButton, { max: LIMITS.rcsButtons })),
    chipList: optional(list(rcsButton)),
    ...agencyFields,
    fbInfoLst: optional(),
  },
  recipients: 'reply',
  cross: agencyNeedsBrand,
  slots: (body) =>
    [
      ...stringsIn(body.body, 'body'),
      ...stringsIn(body.buttons, 'buttons'),
      ...stringsIn(body.chipList, 'chipList'),
    ].map(([path, value]) => ({ path, text: value, syntax: 'braces' as const })),
  moreFileIds: (body) => maapFiles(stringsIn(body.body, 'body')),
};

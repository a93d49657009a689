import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { TemplateStateError } from '../../gateway/management/messenger-client.ts';
import type { TemplateCreateRequestInput, TemplateImage } from '../../gateway/schemas/index.ts';
import { OperationError } from '../../ops/errors.ts';
import { UsageError } from '../errors.ts';
import {
  type CommandContext,
  type CommandSpec,
  compactDateOption,
  type GroupSpec,
  readJsonFile,
  valueOptions,
} from '../framework.ts';
import { columns, described } from '../output.ts';

/*
 * `msgbridge templates …`: messenger notification templates (spec 02 §4.3, §4.4) — create (with
 * images as multipart), list, review request, delete, comment — and the template categories.
 */

const management = async (context: CommandContext) => (await context.target()).gateway().management;

/** The template states of spec 02 §2 and their meaning. */
const STATUS: Readonly<Record<string, string>> = {
  T: 'registered',
  R: 'review requested',
  Q: 'under review',
  A: 'approved',
  S: 'rejected',
};

const OWNER_OPTIONS = valueOptions('channel', 'group');
const OWNER_USAGE = `  --channel CHANNEL_ID  a template of one channel (sender type S)
  --group GROUP_ID      a template of a channel group (sender type G)`;

/** `--channel` or `--group`, exactly one: the template's owner and sender type. */
const ownerOf = (context: CommandContext) => {
  const channel = context.string('channel');
  const group = context.string('group');
  if ((channel === undefined) === (group === undefined)) {
    throw new UsageError('give either --channel CHANNEL_ID or --group GROUP_ID');
  }
  return channel === undefined
    ? { owner: { msgrGrpId: group ?? '' }, senderType: 'G' as const }
    : { owner: { msgrChId: channel }, senderType: 'S' as const };
};

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
};

/** An image file as the client's multipart part; the client checks its bytes and size. */
const imageOption = async (
  context: CommandContext,
  option: string,
): Promise<TemplateImage | undefined> => {
  const path = context.string(option);
  if (path === undefined) return undefined;
  const contentType = IMAGE_TYPES[extname(path).toLowerCase()];
  if (contentType === undefined) {
    throw new UsageError(`--${option} must be a .jpg, .jpeg or .png file, got ${path}`);
  }
  const read = context.io.readBytes ?? ((file: string) => readFile(file));
  let data: Uint8Array;
  try {
    data = await read(path);
  } catch (error) {
    throw new OperationError(`cannot read ${path}: ${(error as Error).message}`);
  }
  return { fileName: basename(path), contentType, data };
};

const create: CommandSpec = {
  summary: 'create a template from a JSON request, with images',
  usage: `msgbridge templates create --file REQUEST.json [--image FILE] [--highlight-image FILE]

Creates a notification template; it starts in state T (registered). REQUEST.json is the
request body of spec 02 §4.4 (msgrChId or msgrGrpId, senderType, templateName,
templateContent, categoryCode, templateMessageType, templateEmphasizeType, …). With images
the request is sent as multipart: --image is the template image, --highlight-image the item
highlight thumbnail (which shortens the highlight title to 21 and its description to 13
characters). Images are JPEG or PNG (.jpg, .jpeg, .png), at most 500 KB.`,
  options: valueOptions('file', 'image', 'highlight-image'),
  run: async (context) => {
    const request = (await readJsonFile(
      context.io,
      context.required('file'),
    )) as TemplateCreateRequestInput;
    const image = await imageOption(context, 'image');
    const itemHighlightImage = await imageOption(context, 'highlight-image');
    const created = await (await management(context)).createTemplate(request, {
      ...(image === undefined ? {} : { image }),
      ...(itemHighlightImage === undefined ? {} : { itemHighlightImage }),
    });
    context.out.emit(created, () =>
      context.out.line(
        `created template ${created.templateCode ?? ''} (key ${created.templateKey ?? '?'}) in state T`,
      ),
    );
    return 0;
  },
};

const list: CommandSpec = {
  summary: 'templates of a channel or group, with their states',
  usage: `msgbridge templates list (--channel CHANNEL_ID | --group GROUP_ID) [--since DATE]

Lists the templates of the channel or group, changed since DATE (KST; YYYY-MM-DD or
"YYYY-MM-DD HH:mm:ss") or all of them. States: T registered, R review requested, Q under
review, A approved, S rejected.
${OWNER_USAGE}`,
  options: { ...OWNER_OPTIONS, since: { type: 'string' } },
  run: async (context) => {
    const { owner, senderType } = ownerOf(context);
    const since = context.string('since');
    const rows = await (await management(context)).listTemplates({
      ...owner,
      senderType,
      ...(since === undefined ? {} : { updateDt: compactDateOption('since', since, 14) }),
    });
    context.out.rows(
      rows,
      [
        { header: 'CODE', key: 'templateCode' },
        { header: 'NAME', key: 'templateName' },
        { header: 'STATUS', value: (row) => described(STATUS, row.templateStatusCode) },
        { header: 'KEY', key: 'templateKey' },
        { header: 'CHANNEL', key: 'msgrChId' },
      ],
      '(no templates)',
    );
    return 0;
  },
};

/** The state refusal of the client, as a failure the user can act on. */
const stateRefusal = (error: TemplateStateError): OperationError => {
  if (error.status === undefined) {
    return new OperationError(error.message, [
      'check the template code and --channel/--group with `msgbridge templates list`',
    ]);
  }
  const states = error.allowed.map((state) => `${state} (${STATUS[state]})`).join(' or ');
  const hints = [
    `only a template in state ${states} can be ${error.operation === 'delete' ? 'deleted' : 'sent for review'}; this one is ${described(STATUS, error.status)}`,
  ];
  if (error.operation === 'request' && error.status === 'S' && !error.allowed.includes('S')) {
    hints.push('internal-approval customers may request review again with --after-rejection');
  }
  return new OperationError(error.message, hints);
};

const action = (operation: 'request' | 'delete'): CommandSpec => ({
  summary:
    operation === 'request'
      ? 'request review of a template (T → R)'
      : 'delete a template for good (state T only)',
  usage:
    operation === 'request'
      ? `msgbridge templates request TEMPLATE_CODE (--channel CHANNEL_ID | --group GROUP_ID) [--comment TEXT] [--after-rejection]

Requests review of the template: allowed in state T, after which it is R (review
requested). The state is checked before the request is sent.
${OWNER_USAGE}
  --comment TEXT        a note for the reviewer (up to 500 characters)
  --after-rejection     also allow a rejected template (state S): only for internal-approval
                        customers, whom the gateway lets request review again after a
                        rejection (spec 02 §3); any other account is refused by the gateway`
      : `msgbridge templates delete TEMPLATE_CODE (--channel CHANNEL_ID | --group GROUP_ID)

Deletes the template for good: allowed only in state T (registered, review not requested).
The state is checked before the delete is sent.
${OWNER_USAGE}`,
  positionals: { min: 1, max: 1, name: 'TEMPLATE_CODE' },
  options: {
    ...OWNER_OPTIONS,
    ...(operation === 'request'
      ? { comment: { type: 'string' }, 'after-rejection': { type: 'boolean' } }
      : {}),
  },
  run: async (context) => {
    const [templateCode = ''] = context.positionals;
    const { owner, senderType } = ownerOf(context);
    const comment = context.string('comment');
    const request = {
      ...owner,
      templateCode,
      senderKeyType: senderType,
      ...(comment === undefined ? {} : { comment }),
    };
    const client = await management(context);
    try {
      if (operation === 'request') {
        await client.requestTemplateReview(request, {
          afterRejection: context.flag('after-rejection'),
        });
      } else await client.deleteTemplate(request);
    } catch (error) {
      if (error instanceof TemplateStateError) throw stateRefusal(error);
      throw error;
    }
    const done = operation === 'request' ? 'requested review of' : 'deleted';
    context.out.emit(
      { templateCode, ...owner, [operation === 'request' ? 'reviewRequested' : 'deleted']: true },
      () => context.out.line(`${done} template ${templateCode}`),
    );
    return 0;
  },
});

const comment: CommandSpec = {
  summary: 'add a comment to a template',
  usage: `msgbridge templates comment TEMPLATE_CODE (--channel CHANNEL_ID | --group GROUP_ID) --text TEXT

Adds a comment (up to 500 characters) to the template, e.g. an answer to the reviewer.
${OWNER_USAGE}`,
  positionals: { min: 1, max: 1, name: 'TEMPLATE_CODE' },
  options: { ...OWNER_OPTIONS, text: { type: 'string' } },
  run: async (context) => {
    const [templateCode = ''] = context.positionals;
    const { owner, senderType } = ownerOf(context);
    const text = context.required('text');
    await (await management(context)).commentTemplate({
      ...owner,
      templateCode,
      senderType,
      comment: text,
    });
    context.out.emit({ templateCode, ...owner, commented: true }, () =>
      context.out.line(`commented on template ${templateCode}`),
    );
    return 0;
  },
};

const categories: CommandSpec = {
  summary: 'template categories (the codes create takes)',
  usage: `msgbridge templates categories

Lists the template categories with what each includes and excludes; a create request's
categoryCode is one of the codes.`,
  run: async (context) => {
    const rows = await (await management(context)).listTemplateCategories();
    context.out.rows(
      rows,
      columns({
        CODE: 'code',
        GROUP: 'groupName',
        NAME: 'name',
        INCLUDES: 'iclusion',
        EXCLUDES: 'exclusion',
      }),
    );
    return 0;
  },
};

export const templatesCommands: GroupSpec = {
  summary: 'messenger notification templates (spec 02)',
  description: `Messenger notification templates (spec 02 §4.3, §4.4). A template is created in state T;
review request and delete are allowed only in T (internal-approval customers may also request
review of a rejected template, state S: templates request --after-rejection).`,
  commands: {
    create,
    list,
    request: action('request'),
    delete: action('delete'),
    comment,
    categories,
  },
};

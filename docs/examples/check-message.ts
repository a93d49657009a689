/*
 * Checks a queue message with the sender's own rules before it is queued (what
 * `npx msgbridge validate` does for files): `node check-message.js '{"channel":"sms",…}'`.
 */
import { parseSendMessage } from 'msgbridge/send';

const input: unknown = JSON.parse(process.argv[2] ?? '{}');
const checked = parseSendMessage(input, { now: new Date() });
if (checked.ok) console.log(`a valid ${checked.message.channel} message`);
else for (const { path, message } of checked.problems) console.error(`${path}: ${message}`);

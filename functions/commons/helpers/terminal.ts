/**
 * Text made safe for a terminal: stored bytes come from the gateway and from producers, and a
 * field holding ESC or BEL sequences would otherwise clear the operator's screen, set the window
 * title or hide what follows. Every control character but the line feed and the tab (C0, DEL,
 * C1, whose 0x9b is a one-byte CSI) and every bidirectional override is written as a visible
 * escape (`\x1b`, `\u202e`). Output for scripts (`--json`) is JSON and needs none of this.
 */
const BIDI = new Set([
  0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
]);

const unsafe = (code: number): boolean =>
  (code <= 0x1f && code !== 0x0a && code !== 0x09) ||
  (code >= 0x7f && code <= 0x9f) ||
  BIDI.has(code);

export const terminalSafe = (text: string): string => {
  let safe = '';
  let from = 0;
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (!unsafe(code)) continue;
    safe +=
      text.slice(from, at) +
      (code <= 0xff
        ? `\\x${code.toString(16).padStart(2, '0')}`
        : `\\u${code.toString(16).padStart(4, '0')}`);
    from = at + 1;
  }
  return from === 0 ? text : safe + text.slice(from);
};

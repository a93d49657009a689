/** The console's building blocks: escaping by construction, phone numbers as entered, and the mask. */
import { describe, expect, it } from 'vitest';
import { html, raw, toText } from '../../console/html.ts';
import { fmt } from '../../console/http.ts';
import { phoneDigits, revealingMask } from '../../ops/phone-search.ts';

describe('html', () => {
  it('escapes every interpolated value and keeps nested markup', () => {
    const value = `<img src=x onerror="alert('1')">&\``;
    const inner = html`<b>${value}</b>`;

    const page = toText(
      html`<p title="${value}">${inner}${[value, 1]}${raw('<br>')}${undefined}</p>`,
    );

    expect(page).toBe(
      '<p title="&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;&#96;"><b>&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;&#96;</b>&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;&#96;1<br></p>',
    );
  });
});

describe('times', () => {
  it('shows an instant in KST, the gateway’s and its users’ zone, with UTC on hover', () => {
    // 19:02 UTC is 04:02 the next day in Seoul (UTC+9, no daylight saving time).
    expect(toText(fmt('2026-11-28T19:02:14.000Z'))).toBe(
      '<time datetime="2026-11-28T19:02:14.000Z" title="2026-11-28 19:02:14.000 UTC">2026-11-29 04:02:14.000 KST</time>',
    );
    expect(toText(fmt(undefined))).toBe('—');
    expect(toText(fmt('not a time'))).toBe('not a time');
  });
});

describe('phone numbers', () => {
  it('reads a number entered with hyphens, spaces or +82, and refuses the rest', () => {
    expect(phoneDigits('010-1234-5678')).toBe('01012345678');
    expect(phoneDigits('+82 10 1234 5678')).toBe('01012345678');
    expect(phoneDigits(' 0212345678 ')).toBe('0212345678');
    expect(phoneDigits('1234')).toBeUndefined();
    expect(phoneDigits('010-1234-5678; drop')).toBeUndefined();
  });

  it('shows the searched number in full and masks every other one', () => {
    const mask = revealingMask('01012345678');

    const shown = mask({
      phone: '010-1234-5678',
      raw: { moCallback: '01098765432', text: 'call 01098765432' },
      list: ['01012345678', '01055556666'],
    });

    expect(shown).toEqual({
      phone: '010-1234-5678',
      raw: { moCallback: '010****5432', text: 'call 010****5432' },
      list: ['01012345678', '010****6666'],
    });
  });
});

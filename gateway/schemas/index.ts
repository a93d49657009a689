/**
 * zod schemas of every request and response of the gateway's messaging API (spec 01 §4.1–4.16) and
 * of the messenger management API (spec 02).
 * Requests are strict; responses and webhook bodies lenient. Types are inferred from them.
 */
export * from './auth.ts';
export * from './common.ts';
export * from './cp949-text.ts';
export * from './lenient.ts';
export * from './messenger.ts';
export * from './messenger-management.ts';
export * from './messenger-statistics.ts';
export * from './mo.ts';
export * from './opt-out.ts';
export * from './rcs-management.ts';
export * from './report-items.ts';
export * from './reports.ts';
export * from './send.ts';
export * from './tracking-urls.ts';

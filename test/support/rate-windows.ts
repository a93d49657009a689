/** Time for the rate limiter tests: a rate window is one epoch second. */
export const SECOND = 1000;
/** The start of a window: 2023-11-14T22:13:20.000Z. */
export const T0 = 1_700_000_000_000;
/** The rate window (epoch second) that starts at T0. */
export const W0 = T0 / SECOND;

/** A recipient entry (cliKey and phone) as the send request schema tests put it in `recvInfoLst`. */

export const recipient = (i: number) => ({ cliKey: `order-${i}`, phone: `010-1234-${1000 + i}` });

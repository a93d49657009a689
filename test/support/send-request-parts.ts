/** A recipient entry (cliKey and phone) as the send request schema tests put it in `recvInfoLst`. */

export const recipient = (i: number) => ({ cliKey: `order-${i}`, phone: `010-1234-${1000 + i}` });

/** The sending number and one recipient: what every SMS and MMS request of these tests has. */
export const fromShopToOne = { callback: '0212345678', recvInfoLst: [recipient(0)] };

/** A messenger request's sender: the sending number and the messenger channel. */
export const messengerSender = { callback: '0212345678', msgrChId: '@msgbridge' };

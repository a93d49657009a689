import type { SendGateway } from '../../functions/sending/ports.ts';

/**
 * A send gateway that answers every recipient with `code` (`10000`: accepted), after taking its
 * share of the quota (`beforeSend`) as the real one does.
 */
export const gatewayAnswering = (code: string): SendGateway => ({
  send: async (message, options) => {
    await options?.beforeSend?.();
    return {
      kind: 'immediate',
      results:
        'recvInfoLst' in message.body
          ? message.body.recvInfoLst.map((r) => ({ cliKey: r.cliKey, code }))
          : [],
    };
  },
});

/*
 * A messenger template with a highlight image, created through the management client of this
 * repository (`multipart/form-data`: the JSON body and the image). Settings as in `send-sms.ts`,
 * and `thumb.png` in the working directory.
 */
import { readFile } from 'node:fs/promises';
import { SessionTokenProvider } from '../../../gateway/bearer/session-token-provider.ts';
import { GatewayManagementClient } from '../../../gateway/management/messenger-client.ts';
import { GatewayAuthApi } from '../../../gateway/token-api.ts';

const setting = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const hosts = {
  api: setting('GATEWAY_API_URL'),
  send: setting('GATEWAY_SEND_URL'),
  mnt: setting('GATEWAY_MNT_URL'),
};
const credentials = () => ({
  apiKey: setting('GATEWAY_API_KEY'),
  apiPassword: setting('GATEWAY_API_PASSWORD'),
});
const tokens = new SessionTokenProvider({ auth: new GatewayAuthApi({ hosts }), credentials });

const management = new GatewayManagementClient({ hosts, tokens });
const created = await management.createTemplate(
  {
    msgrChId: '@shop',
    templateCode: 'order-shipped',
    templateName: 'Order shipped',
    templateContent: 'Hello #{name}, order #{order} has shipped.',
    categoryCode: '002001',
    templateMessageType: 'BA',
    templateEmphasizeType: 'ITEM_LIST',
    itemHighlightTitle: 'Order #{order}', // max 21 with a thumbnail, else 30
    itemHighlightDescription: 'Shipped today', // max 13 with a thumbnail, else 19
  },
  {
    itemHighlightImage: {
      fileName: 'thumb.png',
      contentType: 'image/png',
      data: await readFile('thumb.png'),
    },
  },
);
console.log(created);

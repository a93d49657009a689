/** Report and MO webhook bodies shaped like the gateway's, with its production quirks. */
export const reportItem = (index: number, overrides: Record<string, unknown> = {}) => ({
  msgKey: `M${String(index).padStart(10, '0')}`,
  cliKey: `c-${index}`,
  ch: 'SMS',
  resultCode: '10000',
  resultCodeDesc: '성공',
  fbReasonLst: null,
  telco: 'SKT',
  rptDt: '2026-11-21 09:30:15',
  rptRegDt: '20261121093016',
  productCode: 'SMS',
  phone: '01012345678',
  isBi: false,
  recvDt: '2026-11-21T09:30:10',
  ...overrides,
});

export const reportBody = (count: number, start = 0) => ({
  rptCnt: count,
  rptLst: Array.from({ length: count }, (_, i) => reportItem(start + i)),
});

export const moItem = (index: number, overrides: Record<string, unknown> = {}) => ({
  moKey: `MO${String(index).padStart(8, '0')}`,
  moNumber: '0212345678',
  moType: 'SMSMO',
  moCallback: '01098765432',
  productCode: 'SMS',
  moTitle: null,
  moMsg: `안녕하세요 ${index}`,
  telco: 'KT',
  moRecvDt: '20261121093015',
  contentCnt: '0',
  contentInfoLst: null,
  ...overrides,
});

export const moBody = (count: number, start = 0) => ({
  moCnt: String(count),
  moLst: Array.from({ length: count }, (_, i) => moItem(start + i)),
});

import {
  GatewayCodeSchema,
  LenientBooleanSchema,
  listOrEmpty,
  NullableStringSchema,
  nullableStrings,
  UserCustomFieldsSchema,
} from './lenient.ts';
import * as z from './zod.ts';

/*
 * One delivery report item, as polling (spec 01 §4.11), the status query (§4.13) and the report
 * webhook (§6) write it; re-exported by `reports.ts`. Apart from it so that the report receiver
 * builds only the item schema it reads, not the poll and status-query schemas.
 */

/** Why the first channel failed before the fallback. */
export const FbReasonSchema = z.looseObject({
  ch: NullableStringSchema,
  fbResultCode: z.nullish(GatewayCodeSchema),
  ...nullableStrings('fbResultDesc', 'telco'),
});
export type FbReason = z.infer<typeof FbReasonSchema>;

/**
 * One delivery result. `ch` is the channel that finally delivered and `productCode` the billed
 * product; `fbReasonLst` may be `null` or missing (read as `[]`). The webhook-only fields
 * (`rptRegDt`, `phone`, `isBi`, `userCustomFields`, `recvDt`) are optional.
 */
export const ReportItemSchema = z.looseObject({
  msgKey: z.string(),
  cliKey: z.string(),
  ch: NullableStringSchema,
  resultCode: GatewayCodeSchema,
  resultCodeDesc: NullableStringSchema,
  fbReasonLst: listOrEmpty(FbReasonSchema),
  ...nullableStrings('telco', 'rptDt', 'rptRegDt', 'productCode', 'phone'),
  isBi: z.nullish(LenientBooleanSchema),
  userCustomFields: z.nullish(UserCustomFieldsSchema),
  recvDt: NullableStringSchema,
});
export type ReportItem = z.infer<typeof ReportItemSchema>;

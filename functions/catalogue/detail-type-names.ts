/*
 * The names derived from a detail-type, shared by everything generated from the catalogue: the
 * JSON Schema files, the subscribers' types and the schema registry.
 */

/** `Delivery Report Received` → `delivery-report-received`: its schema files' name. */
export const slugOf = (detailType: string): string =>
  detailType.toLowerCase().replace(/[^a-z0-9]+/g, '-');

/** `Delivery Report Received` → `DeliveryReportReceived`: its type's and registry schema's name. */
export const typeNameOf = (detailType: string): string =>
  detailType
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join('');

/**
 * CSRF token fetches. SAP clients (the SAP Cloud SDK before every write, UI5 models) first send a
 * HEAD or GET with `X-CSRF-Token: Fetch` and send the token they get back with the write. This
 * service keeps no CSRF tokens (credentials travel in headers, not in ambient cookies a third
 * site could replay; a deployment that needs CSRF protection puts it in front, as SAP's approuter
 * does), so it answers every fetch with the fixed value `unsafe`, which says so: clients send it
 * back, and it is ignored. Answering at all spares the clients a failed fetch and its warning.
 * Pure.
 */

/** The value answered to a token fetch. */
export const CSRF_NO_TOKEN = 'unsafe';

/** The response headers to add for a request's headers (lower-case names): the token when one was fetched. */
export function csrfHeaders(headers: Record<string, string>): Record<string, string> {
  return (headers['x-csrf-token'] ?? '').trim().toLowerCase() === 'fetch' ? { 'X-CSRF-Token': CSRF_NO_TOKEN } : {};
}

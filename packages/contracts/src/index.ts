export * from './codes.js';
export * from './messages/index.js';
export * from './permissions.js';
export * from './areas.js';
export * from './menu/index.js';
export * from './common.js';
export * from './call.js';
export * from './calls/system.js';
export * from './calls/user.js';
export * from './calls/config.js';
export * from './calls/domain.js';
export * from './calls/dashboard.js';
export * from './calls/access-common.js';
export * from './calls/role.js';
export * from './calls/password-policy.js';
export * from './calls/registration-token.js';
export * from './calls/ldap.js';
export * from './calls/key.js';
export * from './ip.js';
export * from './algorithms.js';
export * from './rules/key-lifecycle.js';
export * from './rules/text.js';

import type { CallDef } from './call.js';
import { systemCalls } from './calls/system.js';
import { tokenCalls, userCalls } from './calls/user.js';
import { configCalls } from './calls/config.js';
import { domainCalls } from './calls/domain.js';
import { dashboardCalls } from './calls/dashboard.js';
import { roleCalls } from './calls/role.js';
import { passwordPolicyCalls } from './calls/password-policy.js';
import { registrationTokenCalls } from './calls/registration-token.js';
import { ldapCalls } from './calls/ldap.js';
import { cryptoCalls, keyCalls } from './calls/key.js';

/** Every call, grouped by area: the server registers these and the console calls them. */
export const api = {
  system: systemCalls,
  user: userCalls,
  token: tokenCalls,
  config: configCalls,
  domain: domainCalls,
  dashboard: dashboardCalls,
  role: roleCalls,
  passwordPolicy: passwordPolicyCalls,
  registrationToken: registrationTokenCalls,
  ldap: ldapCalls,
  key: keyCalls,
  crypto: cryptoCalls,
} as const;

/** Every call of the API, in area order: what the server registers and the tests sweep. */
const callAreas: readonly Record<string, CallDef>[] = Object.values(api);
export const allCalls: readonly CallDef[] = callAreas.flatMap((area) => Object.values(area));

export const PRODUCT_VERSION = 'v1.9.0';
export const VERSION_HEADER = 'version';
export const TOKEN_HEADER = 'token';

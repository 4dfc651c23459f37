export * from './codes.js';
export * from './messages.js';
export * from './permissions.js';
export * from './menu.js';
export * from './common.js';
export * from './call.js';
export * from './calls/system.js';
export * from './calls/user.js';
export * from './calls/config.js';
export * from './calls/domain.js';
export * from './calls/dashboard.js';

import { systemCalls } from './calls/system.js';
import { tokenCalls, userCalls } from './calls/user.js';
import { configCalls } from './calls/config.js';
import { domainCalls } from './calls/domain.js';
import { dashboardCalls } from './calls/dashboard.js';

/** Every call, grouped by area: the server registers these and the console calls them. */
export const api = {
  system: systemCalls,
  user: userCalls,
  token: tokenCalls,
  config: configCalls,
  domain: domainCalls,
  dashboard: dashboardCalls,
} as const;

export const PRODUCT_VERSION = 'v1.9.0';
export const VERSION_HEADER = 'version';
export const TOKEN_HEADER = 'token';
